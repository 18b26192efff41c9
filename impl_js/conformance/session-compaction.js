// session-compaction JSON layer: build the compactor in the validation order of
// COMP-3, compact input.messages, and return the result with snake_case keys.
import { SessionCompactor, placeholderSummarizer } from "../src/compaction.js";

/**
 * `summarizer_fails`: every summarization call fails (COMP-11).
 * @param {import("../src/compaction.js").Message[]} middle
 * @returns {never}
 */
function failingSummarizer(middle) {
  throw new Error(`summarizing ${middle.length} messages failed`);
}

/**
 * @param {{messages: import("../src/compaction.js").InputMessage[], max_tokens: number | null,
 *   reserve_recent?: number, summary_tokens: number, compacted_tokens: number,
 *   force?: boolean, summarizer_fails?: boolean}} input
 */
export function run(input) {
  const compactor = new SessionCompactor(input.max_tokens, input.reserve_recent ?? 3, {
    compactedTokens: input.compacted_tokens,
  });
  // The placeholder validates summary_tokens (COMP-3.3) even when the summarizer is to fail.
  const placeholder = placeholderSummarizer(input.summary_tokens);
  const summarizing = compactor.withSummarizer(input.summarizer_fails === true ? failingSummarizer : placeholder);
  const result = summarizing.compact(input.messages, { force: input.force === true });
  return {
    messages: result.messages,
    compacted_count: result.compactedCount,
    tokens_saved: result.tokensSaved,
    total_tokens: result.totalTokens,
    over_budget: result.overBudget,
  };
}
