// Library-level checks of Backoff that the JSON vectors cannot express.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Backoff, MAX_SAFE_MS, capMs, sampleSequence } from "../src/backoff.js";

test("caps are exact and never overflow", () => {
  assert.equal(capMs(1, MAX_SAFE_MS, 52), 2 ** 52);
  for (const attempt of [53, 60, 63, 64, 1024, 2000, 1e9]) {
    assert.equal(capMs(1, MAX_SAFE_MS, attempt), MAX_SAFE_MS);
    assert.equal(capMs(0, MAX_SAFE_MS, attempt), 0);
  }
  assert.equal(capMs(MAX_SAFE_MS, MAX_SAFE_MS, 1), MAX_SAFE_MS);
});

test("invalid samples throw without advancing", () => {
  for (const bad of [1, -0.1, NaN, Infinity, "0.5", undefined]) {
    const b = new Backoff({ baseMs: 100, maxMs: 1000, random: () => /** @type {any} */ (bad) });
    assert.throws(() => b.nextDelay(), (e) => e.code === "invalid_sample");
    assert.equal(b.attempt, 0);
  }
});

test("negative zero sample gives +0", () => {
  const b = new Backoff({ baseMs: 100, maxMs: 1000, random: () => -0 });
  assert.ok(Object.is(b.nextDelay(), 0));
});

test("default jitter is full and uses Math.random within caps", () => {
  const b = new Backoff({ baseMs: 1, maxMs: MAX_SAFE_MS });
  assert.equal(b.jitter, "full");
  for (let k = 0; k < 100; k += 1) {
    const cap = capMs(1, MAX_SAFE_MS, k);
    const d = b.nextDelay();
    assert.ok(Number.isSafeInteger(d) && d >= 0 && d <= cap, `${d} > ${cap}`);
  }
});

test("parameters are checked in order", () => {
  const code = (o) => {
    try {
      new Backoff(o);
    } catch (e) {
      return e.code;
    }
    return null;
  };
  assert.equal(code({ baseMs: 1.5, maxMs: -1, jitter: "x" }), "invalid_base_ms");
  assert.equal(code({ baseMs: 2 ** 53, maxMs: 2 ** 53 }), "invalid_base_ms");
  assert.equal(code({ baseMs: 0, maxMs: 2 ** 53 }), "invalid_max_ms");
  assert.equal(code({ baseMs: 2, maxMs: 1, jitter: "x" }), "invalid_jitter");
  assert.equal(code({ baseMs: 2, maxMs: 1, jitter: "none" }), null);
  assert.equal(code({ baseMs: 1, maxMs: 2, jitter: "Full" }), "invalid_jitter");
  assert.equal(code({ baseMs: 0, maxMs: 0, jitter: "none" }), null);
});

test("sampleSequence replays and then runs out", () => {
  const next = sampleSequence([0.25, 0.5]);
  assert.equal(next(), 0.25);
  assert.equal(next(), 0.5);
  assert.throws(next, (e) => e.code === "samples_exhausted");
});
