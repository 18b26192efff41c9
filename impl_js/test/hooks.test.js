// Unit tests of the pieces of src/hooks.js the vectors reach only through a process.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
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

test("canonicalJson refuses a value JSON cannot write, even nested", () => {
  assert.throws(() => canonicalJson(undefined), TypeError);
  assert.throws(() => canonicalJson({ a: () => 1 }), TypeError);
});

test("unpassable names the least bad variable, not the last one seen", () => {
  assert.equal(unpassable({ A: "a\0", B: "b\0" }), "A");
  assert.equal(unpassable({ B: "b\0", A: "a\0" }), "A");
});

test("reasonText drops a lone lead byte at each edge of the 2-, 3- and 4-byte ranges", () => {
  for (const lead of [0xc0, 0xdf, 0xe0, 0xef, 0xf0, 0xf7]) {
    assert.equal(reasonText(Buffer.from([0x61, lead])), "a", `lead 0x${lead.toString(16)}`);
  }
  for (const invalid of [0xf8, 0xff]) {
    assert.equal(reasonText(Buffer.from([0x61, invalid])), "a\ufffd", `byte 0x${invalid.toString(16)}`);
  }
});

test("a pre-hook without a session id sees HANZO_SESSION_ID empty", async () => {
  const runner = new HookRunner([{ event: "pre_tool_use", command: 'printf "[%s]" "$HANZO_SESSION_ID" >&2; exit 2', toolPattern: "*" }], {
    env: { PATH: "/usr/bin:/bin" },
  });
  const result = await runner.runPre("t", {});
  assert.equal(result.decision, "deny");
  assert.equal(result.reason, "[]");
});

test("an unset (undefined) variable of the runner's env is left out", async () => {
  const runner = new HookRunner([{ event: "pre_tool_use", command: 'test -z "${GONE+set}"', toolPattern: "*" }], {
    env: { PATH: "/usr/bin:/bin", GONE: undefined },
  });
  assert.equal((await runner.runPre("t", {})).decision, "allow");
});

test("the group kill at a hook's end is SIGKILL: a child ignoring SIGTERM dies too", async () => {
  const dir = await mkdtemp(join(tmpdir(), "hooks-kill-"));
  const mark = join(dir, "survived");
  const runner = new HookRunner(
    [{ event: "pre_tool_use", command: `(trap '' TERM; sleep 1; echo x > "${mark}") & sleep 0.2`, toolPattern: "*" }],
    { env: { PATH: "/usr/bin:/bin" } },
  );
  assert.equal((await runner.runPre("t", {})).decision, "allow");
  await new Promise((done) => setTimeout(done, 1500));
  assert.equal(existsSync(mark), false);
  await rm(dir, { recursive: true, force: true });
});
