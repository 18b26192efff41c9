// Library-level check of the stream assembler that the JSON vectors cannot express:
// STREAM-6e's -0 is 0 in a tool input, but the JSON layer's output goes through
// JSON.stringify, which writes -0 as 0, so no vector sees the sign.
import { test } from "node:test";
import assert from "node:assert/strict";
import { StreamAssembler } from "../src/stream-assembly.js";

/** @param {object} payload */
const frame = (payload) => ({ event: null, data: JSON.stringify(payload) });

test("-0 in tool arguments is 0 (STREAM-6e), at the top and nested", () => {
  const assembler = new StreamAssembler("openai-chat");
  const call = { index: 0, id: "call_1", function: { name: "f", arguments: '{"a": -0, "b": [-0.0]}' } };
  const [tool] = assembler.feed(
    frame({ choices: [{ index: 0, delta: { tool_calls: [call] }, finish_reason: "tool_calls" }] }),
  );
  assert.equal(tool.type, "tool_use");
  const input = /** @type {{a: number, b: number[]}} */ (tool.type === "tool_use" ? tool.input : null);
  assert.ok(Object.is(input.a, 0), "a is +0");
  assert.ok(Object.is(input.b[0], 0), "b[0] is +0");
});
