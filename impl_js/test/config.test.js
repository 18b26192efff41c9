// Unit tests of config.js for what the config-merge vectors cannot reach: the
// defaults of the library's options (the vectors pass `trusted` explicitly through
// the JSON layer), loadConfig's warning callback, and the exported helpers'
// contracts for inputs the harness layout never builds.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";

import { loadConfig, loadConfigWithWarnings, mergeTiers, parseTierText, tierPaths } from "../src/config.js";

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

test("loadConfig reports each warning to onWarning and works without one", () => {
  withProject((root, env) => {
    /** @type {unknown[]} */
    const seen = [];
    const config = loadConfig(root, { env, onWarning: (w) => seen.push(w) });
    assert.equal(config.hooks.length, 1);
    assert.deepEqual(seen, [
      { code: "untrusted_ignored", tier: "project", key: "/hooks/0" },
      { code: "untrusted_ignored", tier: "project", key: "/mcp_servers/repo" },
    ]);
    assert.equal(loadConfig(root, { env }).model, "m-repo");
  });
});

test("mergeTiers is untrusted by default too", () => {
  const bytes = new TextEncoder().encode(JSON.stringify({ hooks: [HOOK] }));
  const { config, warnings } = mergeTiers([{ kind: "absent" }, { kind: "bytes", bytes }, { kind: "absent" }], {});
  assert.deepEqual(config.hooks, []);
  assert.deepEqual(warnings, [{ code: "untrusted_ignored", tier: "project", key: "/hooks/0" }]);
});

test("mergeTiers treats missing sources as absent tiers", () => {
  const { config, warnings } = mergeTiers(/** @type {any} */ ([{ kind: "absent" }]), { HANZO_MODEL: "m" });
  assert.equal(config.model, "m");
  assert.deepEqual(warnings, []);
});

test("tierPaths reads no user tier without HOME or with an empty HOME (CFG-1)", () => {
  assert.deepEqual(tierPaths(null, {}), [null, null, null]);
  assert.deepEqual(tierPaths(null, { HOME: "" }), [null, null, null]);
  assert.deepEqual(tierPaths(null, { HOME: "", XDG_CONFIG_HOME: "" }), [null, null, null]);
});

test("tierPaths reads only the user tier without a project root", () => {
  const user = join("/h", ".config", "hanzo", "settings.json");
  assert.deepEqual(tierPaths(undefined, { HOME: "/h" }), [user, null, null]);
  assert.deepEqual(tierPaths(null, { HOME: "/h" }), [user, null, null]);
});

test("parseTierText's error carries the invalid_json code", () => {
  assert.throws(() => parseTierText("{"), { code: "invalid_json" });
  assert.throws(() => parseTierText('{"a": 1e400}'), { code: "invalid_json" });
});
