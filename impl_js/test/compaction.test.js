// Library-level checks of SessionCompactor that the JSON vectors cannot express: inputs
// the session-compaction schema refuses (a fractional cost, a message that is not an
// object, content or tool_calls of the wrong type, an empty or non-string tool call id),
// which a JS caller can still pass. Each is a contract error, never a TypeError.
import { test } from "node:test";
import assert from "node:assert/strict";
import { SessionCompactor } from "../src/compaction.js";

/** @param {string} code */
const hasCode = (code) => (/** @type {any} */ e) => e.code === code;

test("a cost that is not a safe integer is invalid_token_count", () => {
  for (const bad of [1.5, 2 ** 53, "2", null]) {
    assert.throws(() => new SessionCompactor(100, 3, { compactedTokens: /** @type {any} */ (bad) }), hasCode("invalid_token_count"));
    const message = { role: "user", content: "q", token_count: /** @type {any} */ (bad) };
    assert.throws(() => new SessionCompactor(100).compact([message]), hasCode("invalid_token_count"));
  }
});

test("a message that is not an object is invalid_token_count (its count is checked first)", () => {
  for (const bad of [null, undefined]) {
    assert.throws(() => new SessionCompactor(100).compact([/** @type {any} */ (bad)]), hasCode("invalid_token_count"));
  }
});

test("content and tool_calls of the wrong type are invalid_messages", () => {
  const compactor = new SessionCompactor(100);
  const bad = [
    { role: "user", content: 5, token_count: 1 },
    { role: "assistant", content: "", token_count: 1, tool_calls: {} },
    { role: "assistant", content: "", token_count: 1, tool_calls: "k1" },
  ];
  for (const message of bad) {
    assert.throws(() => compactor.compact([/** @type {any} */ (message)]), hasCode("invalid_messages"));
  }
});

test("a tool call id that is empty, not a string or missing is invalid_messages", () => {
  const compactor = new SessionCompactor(100);
  for (const call of [{ id: "", name: "x" }, { id: 5, name: "x" }, { name: "x" }, null]) {
    const message = { role: "assistant", content: "", token_count: 1, tool_calls: [call] };
    assert.throws(() => compactor.compact([/** @type {any} */ (message)]), hasCode("invalid_messages"));
  }
});
