// Token-budget session compaction (HIP-301 "Session compaction"; contract:
// docs/domains/session-compaction.md, clauses COMP-1..COMP-13).
//
// Keep the system prompt and the last `reserveRecent` turns; when the total
// exceeds 90% of `maxTokens` (or when forced, a manual /compact), first replace
// tool results of the middle with "[compacted]", and if that is not enough,
// replace the whole middle with one summary message from the user role, or drop
// the middle if the summarizer throws (a failed summarization call). Message content is measured
// only for a message without a token_count, by the token estimator in UTF-8 bytes (COMP-13),
// so UTF-16 never matters here. Token sums stay within Number.MAX_SAFE_INTEGER
// (checked after every addition); the 90% threshold is computed with BigInt.

import { HanzoError } from "./errors.js";
import { estimateMessage } from "./tokens.js";

/** Content of a pruned tool result (COMP-9). */
export const COMPACTED = "[compacted]";
/** Library default cost of a "[compacted]" tool result (not contract). */
export const DEFAULT_COMPACTED_TOKENS = 3;
/** Library default cost of the placeholder summary (not contract). */
export const DEFAULT_SUMMARY_TOKENS = 16;

/**
 * The role of the summary message (COMP-12): several providers reject a history
 * whose first non-system message is not from the user.
 */
export const SUMMARY_ROLE = "user";

const ROLES = new Set(["system", "user", "assistant", "tool"]);

/** Base of the session-compaction contract errors. */
export class CompactionError extends HanzoError {}

/** `maxTokens` is not null and below 1 (COMP-3.1). */
export class InvalidBudgetError extends CompactionError {
  /** @param {string} message */
  constructor(message) {
    super("invalid_budget", message);
  }
}

/** `reserveRecent` is negative (COMP-3.2). */
export class InvalidReserveError extends CompactionError {
  /** @param {string} message */
  constructor(message) {
    super("invalid_reserve", message);
  }
}

/** A negative cost, or a total above 2^53-1 (COMP-3). */
export class InvalidTokenCountError extends CompactionError {
  /** @param {string} message */
  constructor(message) {
    super("invalid_token_count", message);
  }
}

/** The history is not well-formed (COMP-4). */
export class InvalidMessagesError extends CompactionError {
  /** @param {string} message */
  constructor(message) {
    super("invalid_messages", message);
  }
}

/**
 * @typedef {{id: string, name: string}} ToolCall
 * @typedef {{role: string, content: string, token_count: number,
 *   tool_calls?: ToolCall[], tool_call_id?: string, summary?: boolean}} Message
 * @typedef {{role: string, content: string, token_count?: number,
 *   tool_calls?: ToolCall[], tool_call_id?: string, summary?: boolean}} InputMessage
 *   A message as compact takes it: without token_count, it is estimated (COMP-13).
 * @typedef {{content: string, token_count: number}} Summary
 * @typedef {(middle: Message[]) => Summary} Summarizer
 * @typedef {{messages: Message[], compactedCount: number, tokensSaved: number,
 *   totalTokens: number, overBudget: boolean}} CompactionResult
 */

/**
 * @param {unknown} value
 * @param {string} what
 * @returns {number}
 */
function checkCost(value, what) {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    throw new InvalidTokenCountError(`${what} must be a non-negative safe integer`);
  }
  return value;
}

/**
 * T = maxTokens - ceil(maxTokens / 10); a total triggers compaction iff it is
 * greater than T, i.e. greater than maxTokens * 0.9 (COMP-7).
 * @param {number} maxTokens a positive safe integer
 * @returns {number}
 */
export function triggerThreshold(maxTokens) {
  const max = BigInt(maxTokens);
  return Number(max - (max + 9n) / 10n);
}

/**
 * A summarizer writing "Summary of N earlier messages." at a fixed cost.
 * @param {number} tokenCount
 * @returns {Summarizer}
 */
export function placeholderSummarizer(tokenCount) {
  const cost = checkCost(tokenCount, "summary token_count");
  return (middle) => ({ content: `Summary of ${middle.length} earlier messages.`, token_count: cost });
}

/**
 * @param {readonly Message[]} messages
 * @returns {number}
 */
function checkedTotal(messages) {
  let total = 0;
  for (const message of messages) {
    total += message.token_count;
    if (total > Number.MAX_SAFE_INTEGER) {
      throw new InvalidTokenCountError("total token count exceeds 2^53-1");
    }
  }
  return total;
}

/**
 * The token-estimation estimate of a message (COMP-13): its content (and
 * tool_call_id) as one part, each tool call's id and name as another.
 * @param {InputMessage} message
 * @returns {number}
 */
export function estimatedTokenCount(message) {
  return estimateMessage(message.content, {
    ...(message.tool_calls === undefined ? {} : { toolCalls: message.tool_calls }),
    ...(message.tool_call_id === undefined ? {} : { toolCallId: message.tool_call_id }),
  });
}

/**
 * The messages with every missing token_count set to its estimate (COMP-13). A
 * message whose content is not a string is left for validate to reject.
 * @param {readonly InputMessage[]} messages
 * @returns {readonly Message[]}
 */
function counted(messages) {
  if (messages.every((m) => m?.token_count !== undefined)) return /** @type {readonly Message[]} */ (messages);
  return messages.map((m) =>
    m?.token_count === undefined && typeof m?.content === "string"
      ? { ...m, token_count: estimatedTokenCount(m) }
      : /** @type {Message} */ (m),
  );
}

/**
 * COMP-3 steps 4 and 5 (COMP-4).
 * @param {readonly Message[]} messages
 */
function validate(messages) {
  messages.forEach((m, i) => checkCost(m?.token_count, `messages[${i}].token_count`));
  /** @type {Set<string>} */
  const callIds = new Set();
  /** @type {Set<string>} */
  const answered = new Set();
  messages.forEach((m, i) => {
    const fail = (/** @type {string} */ why) => {
      throw new InvalidMessagesError(`messages[${i}]: ${why}`);
    };
    if (!ROLES.has(m.role)) fail(`unknown role ${JSON.stringify(m.role)}`);
    if (typeof m.content !== "string") fail("content must be a string");
    if (m.role === "system" && i !== 0) fail("a system message is allowed only at index 0");
    if (m.tool_calls !== undefined) {
      if (m.role !== "assistant") fail("only assistant messages have tool_calls");
      if (!Array.isArray(m.tool_calls)) fail("tool_calls must be an array");
      for (const call of m.tool_calls) {
        if (typeof call?.id !== "string" || call.id === "" || callIds.has(call.id)) {
          fail("tool call id is empty or reused");
        }
        callIds.add(call.id);
      }
    }
    if (m.summary !== undefined && m.role !== "assistant" && m.role !== "user") {
      fail("only user and assistant messages have summary");
    }
    if (m.role === "tool") {
      const id = m.tool_call_id;
      if (typeof id !== "string" || !callIds.has(id)) fail("tool result does not answer an earlier call");
      if (answered.has(/** @type {string} */ (id))) fail("the call already has a result");
      answered.add(/** @type {string} */ (id));
    } else if (m.tool_call_id !== undefined) {
      fail("only tool messages have tool_call_id");
    }
  });
}

/**
 * The first index of the recent region (COMP-5, COMP-6).
 * @param {readonly Message[]} messages
 * @param {number} bodyStart
 * @param {number} reserve
 * @returns {number}
 */
function recentStart(messages, bodyStart, reserve) {
  /** @type {number[]} */
  const starts = [];
  for (let i = bodyStart; i < messages.length; i++) {
    if (i === bodyStart || messages[i].role === "user") starts.push(i);
  }
  let recent;
  if (reserve === 0) recent = messages.length;
  else if (starts.length <= reserve) recent = bodyStart;
  else recent = starts[starts.length - reserve];
  /** @type {Map<string, number>} */
  const callerOf = new Map();
  messages.forEach((m, i) => {
    for (const call of m.tool_calls ?? []) callerOf.set(call.id, i);
  });
  for (;;) {
    let caller = -1;
    for (let i = recent; i < messages.length && caller < 0; i++) {
      const id = messages[i].tool_call_id;
      const at = id === undefined ? undefined : callerOf.get(id);
      if (at !== undefined && at < recent) caller = at;
    }
    if (caller < 0) return recent;
    recent = bodyStart;
    for (const start of starts) if (start <= caller) recent = start;
  }
}

/** Compacts a conversation history to fit a token budget (HIP-301). */
export class SessionCompactor {
  /**
   * @param {number | null} maxTokens the budget; null turns compaction off
   * @param {number} [reserveRecent] recent turns always kept (default 3)
   * @param {{compactedTokens?: number, summarizer?: Summarizer}} [options]
   */
  constructor(maxTokens, reserveRecent = 3, { compactedTokens = DEFAULT_COMPACTED_TOKENS, summarizer } = {}) {
    if (maxTokens !== null && !(Number.isSafeInteger(maxTokens) && maxTokens >= 1)) {
      throw new InvalidBudgetError(`maxTokens must be null or an integer >= 1, got ${maxTokens}`);
    }
    if (!(Number.isSafeInteger(reserveRecent) && reserveRecent >= 0)) {
      throw new InvalidReserveError(`reserveRecent must be an integer >= 0, got ${reserveRecent}`);
    }
    /** @readonly */
    this.maxTokens = maxTokens;
    /** @readonly */
    this.reserveRecent = reserveRecent;
    /** @readonly */
    this.compactedTokens = checkCost(compactedTokens, "compactedTokens");
    /** @readonly @type {Summarizer} */
    this.summarizer = summarizer ?? placeholderSummarizer(DEFAULT_SUMMARY_TOKENS);
  }

  /**
   * A copy of this compactor that summarizes with `summarizer`.
   * @param {Summarizer} summarizer
   * @returns {SessionCompactor}
   */
  withSummarizer(summarizer) {
    return new SessionCompactor(this.maxTokens, this.reserveRecent, {
      compactedTokens: this.compactedTokens,
      summarizer,
    });
  }

  /**
   * Compact `input` (COMP-1..COMP-13); it is not modified. With
   * `force` (a manual /compact, COMP-7) the total and the budget do not matter:
   * the middle is pruned and then summarized, or truncated.
   * @param {readonly InputMessage[]} input
   * @param {{force?: boolean}} [options]
   * @returns {CompactionResult}
   */
  compact(input, { force = false } = {}) {
    const messages = counted(input);
    validate(messages);
    const before = checkedTotal(messages);
    const threshold = this.maxTokens === null ? null : triggerThreshold(this.maxTokens);
    if (!force && (threshold === null || before <= threshold)) return this.#result([...messages], 0, before);
    const bodyStart = messages.length > 0 && messages[0].role === "system" ? 1 : 0;
    const recent = recentStart(messages, bodyStart, this.reserveRecent);
    if (recent <= bodyStart) return this.#result([...messages], 0, before);

    let prunedCount = 0;
    const pruned = messages.map((m, i) => {
      if (i < bodyStart || i >= recent || m.role !== "tool" || m.content === COMPACTED) return m;
      prunedCount += 1;
      return { ...m, content: COMPACTED, token_count: this.compactedTokens };
    });
    const prunedTotal = checkedTotal(pruned);
    if (!force && threshold !== null && prunedTotal <= threshold) return this.#result(pruned, prunedCount, before);

    const middle = pruned.slice(bodyStart, recent);
    let summary;
    try {
      summary = this.summarizer(middle);
    } catch {
      // A failed summarization call falls back to truncation (COMP-11).
      return this.#result([...messages.slice(0, bodyStart), ...messages.slice(recent)], middle.length, before);
    }
    const cost = checkCost(summary?.token_count, "summary token_count");
    /** @type {Message} */
    const summaryMessage = { role: SUMMARY_ROLE, content: String(summary.content), token_count: cost, summary: true };
    const out = [...messages.slice(0, bodyStart), summaryMessage, ...messages.slice(recent)];
    return this.#result(out, middle.length, before);
  }

  /**
   * @param {Message[]} messages
   * @param {number} compactedCount
   * @param {number} before
   * @returns {CompactionResult}
   */
  #result(messages, compactedCount, before) {
    const totalTokens = checkedTotal(messages);
    return {
      messages,
      compactedCount,
      tokensSaved: before - totalTokens,
      totalTokens,
      overBudget: this.maxTokens !== null && totalTokens > this.maxTokens,
    };
  }
}
