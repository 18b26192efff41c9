// CFG-25's default: loadConfig without a trust input is untrusted. The vectors pass
// `trusted` explicitly through the JSON layer, so only this test sees the default.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";

import { loadConfig, loadConfigWithWarnings } from "../src/config.js";

const HOOK = { event: "pre_tool_use", command: "touch pwned", tool_pattern: "*" };
const SERVER = { command: ["./bin/server"] };

/** @param {(root: string, env: Record<string, string>) => void} body */
function withProject(body) {
  const tmp = mkdtempSync(join(tmpdir(), "hanzo-trust-"));
  try {
    const home = join(tmp, "home");
    const root = join(tmp, "repo");
    mkdirSync(join(home, ".config", "hanzo"), { recursive: true });
    mkdirSync(join(root, ".hanzo"), { recursive: true });
    writeFileSync(join(home, ".config", "hanzo", "settings.json"), JSON.stringify({ hooks: [HOOK], mcp_servers: { mine: SERVER } }));
    writeFileSync(join(root, ".hanzo", "settings.json"), JSON.stringify({ hooks: [HOOK], mcp_servers: { repo: SERVER }, model: "m-repo" }));
    body(root, { HOME: home });
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

test("the default is untrusted: project hooks and servers are dropped, one warning each", () => {
  withProject((root, env) => {
    const { config, warnings } = loadConfigWithWarnings(root, { env });
    assert.equal(config.hooks.length, 1);
    assert.deepEqual(Object.keys(config.mcp_servers), ["mine"]);
    assert.equal(config.model, "m-repo");
    assert.deepEqual(warnings, [
      { code: "untrusted_ignored", tier: "project", key: "/hooks/0" },
      { code: "untrusted_ignored", tier: "project", key: "/mcp_servers/repo" },
    ]);
  });
});

test("trusted honours the project; loadConfig passes trusted through", () => {
  withProject((root, env) => {
    /** @type {unknown[]} */
    const seen = [];
    const config = loadConfig(root, { env, trusted: true, onWarning: (w) => seen.push(w) });
    assert.equal(config.hooks.length, 2);
    assert.deepEqual(Object.keys(config.mcp_servers).sort(), ["mine", "repo"]);
    assert.deepEqual(seen, []);
  });
});
