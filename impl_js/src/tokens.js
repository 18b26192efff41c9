// Token estimation: the token_count of a message that has none (contract:
// docs/domains/token-estimation.md, clauses TOK-1..TOK-5).
//
// Strings are measured in UTF-8 bytes, not in UTF-16 code units (JS's .length)
// nor code points (TOK-1); a part of b bytes costs floor(b / 4) + 1 (TOK-2); a
// message is one text part (its content, and a tool result's tool_call_id) plus
// one part per tool call (id, name and arguments as given, TOK-3, TOK-4); a given
// token_count is kept (TOK-5).

import { HanzoError } from "./errors.js";

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/** A given token_count is negative, or the total exceeds 2^53-1 (TOK-5). */
export class TokenCountError extends HanzoError {
  /** @param {string} message */
  constructor(message) {
    super("invalid_token_count", message);
  }
}

/**
 * bytes(s) of TOK-1: the UTF-8 length, counted from the UTF-16 units without
 * encoding. A surrogate pair is one 4-byte scalar; a lone surrogate counts 3, the
 * length of the U+FFFD an encoder writes for it.
 * @param {string} text
 * @returns {number}
 */
export function utf8Length(text) {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) continue;
    if (unit < 0x800) {
      bytes += 1;
    } else {
      bytes += 2;
      // A surrogate pair is one 4-byte scalar in two units: its second unit adds nothing.
      if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
        const next = text.charCodeAt(i + 1);
        if (next >= 0xdc00 && next <= 0xdfff) i++;
      }
    }
  }
  return bytes;
}

/**
 * TOK-2: a part of `bytes` bytes costs floor(bytes / 4) + 1.
 * @param {number} bytes
 * @returns {number}
 */
export function partCost(bytes) {
  return Math.floor(bytes / 4) + 1;
}

/**
 * The cost of `text` as one part (TOK-2).
 * @param {string} text
 * @returns {number}
 */
export function estimateText(text) {
  return partCost(utf8Length(text));
}

/**
 * @typedef {{id: string, name: string, arguments?: string}} ToolCallText
 *   A tool call's strings; absent arguments count as empty (TOK-3.2).
 */

/**
 * TOK-3: the text part (content, plus toolCallId) and one part per tool call.
 * @param {string} content
 * @param {{toolCalls?: readonly ToolCallText[], toolCallId?: string}} [options]
 * @returns {number}
 */
export function estimateMessage(content, { toolCalls = [], toolCallId } = {}) {
  let total = partCost(utf8Length(content) + (toolCallId === undefined ? 0 : utf8Length(toolCallId)));
  for (const call of toolCalls) {
    total += partCost(utf8Length(call.id) + utf8Length(call.name) + utf8Length(call.arguments ?? ""));
  }
  return total;
}

/**
 * @typedef {{content: string, token_count?: number, tool_calls?: readonly ToolCallText[],
 *            tool_call_id?: string}} MessageText
 *   A wire-shaped message (other keys, e.g. role and summary, are not counted).
 */

/**
 * Keep given counts, estimate missing ones, and sum them (TOK-5). Throws
 * TokenCountError for a negative given count (the first, front to back) or a total
 * above 2^53-1.
 * @param {readonly MessageText[]} messages
 * @returns {{tokenCounts: number[], estimated: boolean[], totalTokens: number}}
 */
export function fillTokenCounts(messages) {
  messages.forEach((message, index) => {
    const given = message.token_count;
    if (given !== undefined && given < 0) {
      throw new TokenCountError(`message ${index}: token_count ${given} is negative`);
    }
  });
  /** @type {number[]} */
  const tokenCounts = [];
  /** @type {boolean[]} */
  const estimated = [];
  let totalTokens = 0;
  for (const message of messages) {
    const given = message.token_count;
    const count =
      given ??
      estimateMessage(message.content, {
        ...(message.tool_calls === undefined ? {} : { toolCalls: message.tool_calls }),
        ...(message.tool_call_id === undefined ? {} : { toolCallId: message.tool_call_id }),
      });
    tokenCounts.push(count);
    estimated.push(given === undefined);
    // Both addends are at most 2^53-1, so a sum past it stays past it when rounded.
    totalTokens += count;
    if (totalTokens > MAX_SAFE) throw new TokenCountError("total token count exceeds 2^53-1");
  }
  return { tokenCounts, estimated, totalTokens };
}
