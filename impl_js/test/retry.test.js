// Library-level checks of the retry decision that the JSON vectors cannot express: the
// JSON layer always passes idempotency_key, and a sequence stops at its first no-retry.
import { test } from "node:test";
import assert from "node:assert/strict";
import { RetryPolicy, decide } from "../src/retry.js";

const serverError = { status: 500, headers: [] };
const clock = { nowMs: 0, sample: 0.5 };

test("idempotencyKey defaults to false", () => {
  const decision = decide(serverError, { method: "POST", attempt: 0, maxRetries: 2, ...clock });
  assert.equal(decision.reason, "not_idempotent");
  const policy = new RetryPolicy({ method: "POST", maxRetries: 2 });
  assert.equal(policy.decide(serverError, clock).reason, "not_idempotent");
});

test("a policy's attempt advances on a retry only", () => {
  const policy = new RetryPolicy({ method: "GET", maxRetries: 2 });
  assert.equal(policy.attempt, 0);
  assert.equal(policy.decide({ status: 400, headers: [] }, clock).retry, false);
  assert.equal(policy.attempt, 0);
  assert.deepEqual(policy.decide(serverError, clock), {
    retry: true,
    delay_ms: 250,
    reason: "retryable_status",
    delay_source: "backoff",
  });
  assert.equal(policy.attempt, 1);
});
