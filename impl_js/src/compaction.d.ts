import { HanzoError } from "./errors.js";

/** Content of a pruned tool result (COMP-9). */
export const COMPACTED: "[compacted]";
/** Library default cost of a "[compacted]" tool result (not contract). */
export const DEFAULT_COMPACTED_TOKENS: number;
/** Library default cost of the placeholder summary (not contract). */
export const DEFAULT_SUMMARY_TOKENS: number;

/** Base of the session-compaction contract errors. */
export class CompactionError extends HanzoError {}
/** `maxTokens` is not null and below 1; code "invalid_budget". */
export class InvalidBudgetError extends CompactionError {
  constructor(message: string);
}
/** `reserveRecent` is negative; code "invalid_reserve". */
export class InvalidReserveError extends CompactionError {
  constructor(message: string);
}
/** A negative cost or a total above 2^53-1; code "invalid_token_count". */
export class InvalidTokenCountError extends CompactionError {
  constructor(message: string);
}
/** The history is not well-formed; code "invalid_messages". */
export class InvalidMessagesError extends CompactionError {
  constructor(message: string);
}

export interface ToolCall {
  id: string;
  name: string;
}

/** A history entry in its wire shape (COMP-2). */
export interface Message {
  role: "system" | "user" | "assistant" | "tool";
  content: string;
  token_count: number;
  tool_calls?: ToolCall[];
  tool_call_id?: string;
  summary?: boolean;
}

export interface Summary {
  content: string;
  token_count: number;
}

/** Turns the (already pruned) middle into one summary; throwing is a failed call (COMP-11). */
export type Summarizer = (middle: Message[]) => Summary;

/** The role of the summary message (COMP-12). */
export declare const SUMMARY_ROLE: "user";

export interface CompactionResult {
  messages: Message[];
  compactedCount: number;
  tokensSaved: number;
  totalTokens: number;
  overBudget: boolean;
}

/** T = maxTokens - ceil(maxTokens / 10): totals above T trigger compaction. */
export function triggerThreshold(maxTokens: number): number;

/** "Summary of N earlier messages." at a fixed cost; throws InvalidTokenCountError if negative. */
export function placeholderSummarizer(tokenCount: number): Summarizer;

export class SessionCompactor {
  constructor(
    maxTokens: number | null,
    reserveRecent?: number,
    options?: { compactedTokens?: number; summarizer?: Summarizer },
  );
  readonly maxTokens: number | null;
  readonly reserveRecent: number;
  readonly compactedTokens: number;
  readonly summarizer: Summarizer;
  withSummarizer(summarizer: Summarizer): SessionCompactor;
  compact(messages: readonly Message[], options?: { force?: boolean }): CompactionResult;
}
