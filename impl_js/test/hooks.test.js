// Unit tests of the pieces of src/hooks.js the vectors reach only through a process.
import assert from "node:assert/strict";
import { test } from "node:test";

import { HookRunner, canonicalJson, reasonText, unpassable } from "../src/hooks.js";

test("canonicalJson sorts keys by code point, not UTF-16 unit", () => {
  assert.equal(canonicalJson({ "😀": 1, "\uffff": 2, b: 3, B: 4 }), '{"B":4,"b":3,"\uffff":2,"😀":1}');
});

test("canonicalJson writes numbers as ECMAScript does and -0 as 0", () => {
  assert.equal(canonicalJson([1.0, -0, 1.5e-7, 1e21, 0.1]), "[1,0,1.5e-7,1e+21,0.1]");
  assert.throws(() => canonicalJson(Number.NaN), TypeError);
});

test("reasonText drops a cut sequence, keeps an invalid byte as U+FFFD", () => {
  assert.equal(reasonText(Buffer.from([0x61, 0x62, 0xe2, 0x82])), "ab");
  assert.equal(reasonText(Buffer.from("a€ \n\r\t")), "a€");
  assert.equal(reasonText(Buffer.from([0x62, 0xff, 0x63])), "b\ufffdc");
});

test("unpassable counts UTF-8 bytes of NAME=value", () => {
  const name = "HANZO_TOOL_INPUT";
  assert.equal(unpassable({ [name]: "x".repeat(131071 - name.length - 1) }), null);
  assert.equal(unpassable({ [name]: "x".repeat(131072 - name.length - 1) }), name);
  assert.equal(unpassable({ [name]: "é".repeat(65530) }), name);
  assert.equal(unpassable({ A: "a\0b" }), "A");
});

test("a pre-hook past its timeout is an error, its background child no obstacle", async () => {
  const runner = new HookRunner([{ event: "pre_tool_use", command: "sleep 5 & sleep 5", toolPattern: "*", timeoutMs: 100 }], {
    env: { PATH: "/usr/bin:/bin" },
  });
  const result = await runner.runPre("t", {});
  assert.equal(result.decision, "error");
  assert.equal(result.reason, "hook timed out after 100 ms");
});
