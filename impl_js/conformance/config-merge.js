// config-merge: lay the case's files out in a fresh temporary directory, call the
// real loadConfigWithWarnings with an explicit env (process.env is never touched),
// remove the directory. Layout: docs/domains/config-merge.md, "Harness input".

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { loadConfigWithWarnings, permissionRules, policyFromConfig } from "../src/config.js";

/**
 * @param {string} path
 * @param {unknown} spec
 */
function place(path, spec) {
  if (spec === null || spec === undefined) return;
  mkdirSync(dirname(path), { recursive: true });
  if (typeof spec === "string") writeFileSync(path, spec, "utf8");
  else if (typeof spec === "object" && "bytes" in spec && typeof spec.bytes === "string") {
    // One byte per code point U+0000..U+00FF (the schema's pattern): not necessarily UTF-8.
    writeFileSync(path, Buffer.from(spec.bytes, "latin1"));
  } else mkdirSync(path); // {directory: true}
}

/**
 * @param {Record<string, unknown>} m
 * @param {(v: any) => unknown} f
 */
function mapValues(m, f) {
  /** @type {Record<string, unknown>} */
  const out = Object.create(null);
  for (const [k, v] of Object.entries(m)) out[k] = f(v);
  return out;
}

/** @param {any} input */
export function run(input) {
  const files = input.files;
  const xdgMode = input.xdg_config_home ?? "absent";
  const base = mkdtempSync(join(tmpdir(), "hanzo-cfg-"));
  try {
    const home = join(base, "home");
    const xdg = join(base, "xdg");
    const root = join(base, "project");
    for (const d of [home, xdg, root]) mkdirSync(d);
    /** @type {Record<string, string>} */
    const env = { ...(input.env ?? {}), HOME: home };
    if (input.home_env === "unset") delete env.HOME;
    else if (input.home_env === "empty") env.HOME = "";
    const homeFile = join(home, ".config", "hanzo", "settings.json");
    if (xdgMode === "temp") {
      env.XDG_CONFIG_HOME = xdg;
      place(join(xdg, "hanzo", "settings.json"), files.user);
      place(homeFile, files.home);
    } else {
      if (xdgMode === "empty") env.XDG_CONFIG_HOME = "";
      else if (xdgMode === "relative") env.XDG_CONFIG_HOME = "xdg";
      // "absent": no XDG_CONFIG_HOME at all.
      place(homeFile, files.user);
    }
    place(join(root, ".hanzo", "settings.json"), files.project);
    place(join(root, ".hanzo", "settings.local.json"), files.local);
    const projectRoot = input.project_root === false ? null : root;
    const { config, warnings } = loadConfigWithWarnings(projectRoot, { env, trusted: input.trusted ?? false });
    /** @type {Record<string, unknown>} */
    const out = {
      config: {
        api_key: config.api_key,
        model: config.model,
        mcp_servers: mapValues(config.mcp_servers, (s) => ({
          command: [...s.command],
          args: [...s.args],
          env: mapValues(s.env, (v) => v),
        })),
        permissions: mapValues(config.permissions, (v) => v),
        custom_instructions: config.custom_instructions,
        oauth_credentials: config.oauth_credentials,
        hooks: config.hooks.map((h) => ({
          event: h.event,
          command: h.command,
          tool_pattern: h.toolPattern,
          timeout_ms: h.timeoutMs,
        })),
        input_mode: config.input_mode,
      },
      policy: permissionRules(config).map((r) => ({ tool_pattern: r.toolPattern, mode: r.mode })),
      warnings: warnings.map((w) => (w.key === undefined ? { code: w.code, tier: w.tier } : { code: w.code, tier: w.tier, key: w.key })),
    };
    if (input.evaluate !== undefined) {
      const policy = policyFromConfig(config);
      out.evaluations = input.evaluate.map((/** @type {string} */ n) => ({
        tool_name: n,
        mode: policy.evaluate(n).mode,
      }));
    }
    return out;
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}
