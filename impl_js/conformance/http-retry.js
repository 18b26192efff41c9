// http-retry JSON layer: one decision, or the decisions of a sequence (RETRY-10).
import { RetryPolicy, decide } from "../src/retry.js";

/**
 * @typedef {import("../src/retry.js").Failure} Failure
 * @typedef {{response: Failure, now_ms: number, sample: number}} Step
 * @param {{response?: Failure, method: string, attempt?: number, max_retries: number,
 *          now_ms?: number, sample?: number, idempotency_key?: boolean, steps?: Step[]}} input
 */
export function run(input) {
  const idempotencyKey = input.idempotency_key ?? false;
  if (input.steps === undefined) {
    return decide(/** @type {Failure} */ (input.response), {
      method: input.method,
      attempt: /** @type {number} */ (input.attempt),
      maxRetries: input.max_retries,
      nowMs: /** @type {number} */ (input.now_ms),
      sample: /** @type {number} */ (input.sample),
      idempotencyKey,
    });
  }
  const policy = new RetryPolicy({ method: input.method, maxRetries: input.max_retries, idempotencyKey });
  const decisions = [];
  for (const step of input.steps) {
    const decision = policy.decide(step.response, { nowMs: step.now_ms, sample: step.sample });
    decisions.push(decision);
    if (!decision.retry) break;
  }
  return { decisions };
}
