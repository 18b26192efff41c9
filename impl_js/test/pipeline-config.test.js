// ToolCallPipeline.fromConfig (PIPE-6): the merged settings' policy and hooks, not
// rules handed in; the vectors reach it only through the JSON layer.
import assert from "node:assert/strict";
import { test } from "node:test";

import { mergeTiers } from "../src/config.js";
import { ToolCallPipeline } from "../src/pipeline.js";
import { Sandbox } from "../src/sandbox.js";

/** @param {string} settings @param {string} toolName */
async function runWithSettings(settings, toolName) {
  /** @type {import("../src/config.js").TierSource} */
  const absent = { kind: "absent" };
  const user = { kind: /** @type {const} */ ("bytes"), bytes: new TextEncoder().encode(settings) };
  const { config } = mergeTiers([user, absent, absent], {});
  const pipeline = ToolCallPipeline.fromConfig(config, {
    prompter: { requestPermission: async () => ({ kind: "allow" }) },
    sandbox: new Sandbox({ mode: "off", allowedPaths: [] }, "/"),
    executor: { execute: async () => ({ output: "done", error: null, isError: false }) },
    sessionId: "s",
    hookEnv: { PATH: "/usr/bin:/bin" },
  });
  return pipeline.run({ toolName, input: {}, origin: "agent", paths: [] });
}

test("a hook from the config denies a tool the config allows", async () => {
  const settings = JSON.stringify({
    permissions: { "fs.*": "allow" },
    hooks: [{ event: "pre_tool_use", command: "printf nope >&2; exit 2", tool_pattern: "fs.*" }],
  });
  const outcome = await runWithSettings(settings, "fs.write");
  assert.equal(outcome.ran, false);
  assert.equal(outcome.audit.refusedBy, "pre_hooks");
  assert.equal(outcome.toolResult.error, "blocked by hook: nope");
});

test("config deny rules come before allow rules whatever the key order", async () => {
  const settings = JSON.stringify({ permissions: { "*": "allow", "fs.*": "deny" } });
  const denied = await runWithSettings(settings, "fs.rm");
  assert.equal(denied.toolResult.error, "permission denied: denied by permission policy");
  assert.equal((await runWithSettings(settings, "net.get")).ran, true);
});
