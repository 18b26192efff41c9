// session-compaction JSON layer: build the compactor in the validation order of
// COMP-3, compact input.messages, and return the result with snake_case keys.
import { SessionCompactor, placeholderSummarizer } from "../src/compaction.js";

/**
 * @param {{messages: import("../src/compaction.js").Message[], max_tokens: number | null,
 *   reserve_recent?: number, summary_tokens: number, compacted_tokens: number}} input
 */
export function run(input) {
  const compactor = new SessionCompactor(input.max_tokens, input.reserve_recent ?? 3, {
    compactedTokens: input.compacted_tokens,
  }).withSummarizer(placeholderSummarizer(input.summary_tokens));
  const result = compactor.compact(input.messages);
  return {
    messages: result.messages,
    compacted_count: result.compactedCount,
    tokens_saved: result.tokensSaved,
    total_tokens: result.totalTokens,
    over_budget: result.overBudget,
  };
}
