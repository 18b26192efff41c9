// token-estimation JSON layer: a bare text's cost, or a message list's counts.
import { estimateText, fillTokenCounts, utf8Length } from "../src/tokens.js";

/**
 * @param {{text: string} | {messages: import("../src/tokens.js").MessageText[]}} input
 * @returns {{utf8_bytes: number, tokens: number} |
 *           {token_counts: number[], estimated: boolean[], total_tokens: number}}
 */
export function run(input) {
  if ("text" in input) {
    return { utf8_bytes: utf8Length(input.text), tokens: estimateText(input.text) };
  }
  const counts = fillTokenCounts(input.messages);
  return {
    token_counts: counts.tokenCounts,
    estimated: counts.estimated,
    total_tokens: counts.totalTokens,
  };
}
