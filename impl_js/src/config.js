// Hierarchical configuration (HIP-301 §4): user < project < local < environment.
// Contract: docs/domains/config-merge.md (clauses CFG-*). Loading never fails
// because of a file's content: each problem becomes a warning {code, tier, key?}
// (never a value) and the offending file, key or server entry is skipped.

import { readFileSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { HanzoError } from "./errors.js";
import { PermissionPolicy } from "./permissions.js";

/** `model` when nothing sets it (CFG-9). */
export const DEFAULT_MODEL = "claude-sonnet-4-20250514";
/** Deepest allowed nesting of arrays/objects in a settings file (CFG-4). */
export const MAX_DEPTH = 64;
/** Tiers in merge order (CFG-7). */
export const TIERS = /** @type {const} */ (["user", "project", "local"]);

/** @typedef {"user" | "project" | "local"} Tier */
/** @typedef {import("./permissions.js").PermissionMode} Mode the permission modes, as permissions.js defines them */
/**
 * @typedef {"unreadable_file" | "invalid_json" | "not_an_object" | "unknown_key" |
 *   "invalid_type" | "invalid_value" | "missing_key" | "sensitive_key_ignored" |
 *   "invalid_mode_denied" | "untrusted_ignored"} WarningCode
 */
/** @typedef {"vim" | "emacs" | "default"} InputMode */
/**
 * One entry of HanzoConfig.hooks (CFG-24): hooks.js's own HookConfig, with the timeout
 * always set, so the merged hooks feed a HookRunner unchanged. A type-only import:
 * hooks.js imports config.js at run time, never the other way round.
 * @typedef {Required<import("./hooks.js").HookConfig>} ConfigHook
 */
/** @typedef {{command: string[], args: string[], env: Record<string, string>}} McpServerConfig */
/**
 * @typedef {object} HanzoConfig
 * @property {string | null} api_key
 * @property {string} model
 * @property {Record<string, McpServerConfig>} mcp_servers
 * @property {Record<string, Mode>} permissions
 * @property {string} custom_instructions
 * @property {Record<string, unknown> | null} oauth_credentials
 * @property {ConfigHook[]} hooks
 * @property {InputMode} input_mode
 */
/** @typedef {{code: WarningCode, tier: Tier, key?: string}} ConfigWarning */
/** @typedef {{config: HanzoConfig, warnings: ConfigWarning[]}} LoadedConfig */
/** @typedef {Record<string, string | undefined>} EnvMap */
/** @typedef {{kind: "absent"} | {kind: "unreadable"} | {kind: "bytes", bytes: Uint8Array}} TierSource */

const MODES = new Set(["allow", "deny", "prompt"]);
/** Config-built rules run every deny, then every prompt, then every allow (CFG-22). */
const MODE_RANK = { deny: 0, prompt: 1, allow: 2 };
const INPUT_MODES = new Set(["vim", "emacs", "default"]);
const HOOK_EVENTS = new Set(["pre_tool_use", "post_tool_use"]);
const HOOK_REQUIRED = ["event", "command", "tool_pattern"];
/** `timeout_ms` of a hook that does not set it (HIP-301 §9). */
export const DEFAULT_HOOK_TIMEOUT_MS = 5000;
/** The largest delay a JS timer honours; larger ones fire at once (CFG-24). */
export const MAX_HOOK_TIMEOUT_MS = 2 ** 31 - 1;
const SENSITIVE = new Set(["api_key", "oauth_credentials"]);

/** A settings file is not a JSON text this contract accepts (code `invalid_json`). */
export class ConfigParseError extends HanzoError {
  /** @param {string} message */
  constructor(message) {
    super("invalid_json", message);
  }
}

// ------------------------------------------------------------------ paths

/**
 * The file each tier is read from, in tier order (CFG-1, CFG-2); null = not read.
 * @param {string | null | undefined} projectRoot
 * @param {EnvMap} env
 * @returns {[string | null, string | null, string | null]}
 */
export function tierPaths(projectRoot, env) {
  const xdg = env.XDG_CONFIG_HOME ?? "";
  const home = env.HOME ?? "";
  let user = null;
  if (xdg !== "" && isAbsolute(xdg)) user = join(xdg, "hanzo", "settings.json");
  else if (home !== "") user = join(home, ".config", "hanzo", "settings.json");
  if (projectRoot === null || projectRoot === undefined) return [user, null, null];
  return [
    user,
    join(projectRoot, ".hanzo", "settings.json"),
    join(projectRoot, ".hanzo", "settings.local.json"),
  ];
}

/**
 * @param {string | null} path
 * @returns {TierSource}
 */
function readTier(path) {
  if (path === null) return { kind: "absent" };
  try {
    return { kind: "bytes", bytes: readFileSync(path) };
  } catch (err) {
    if (/** @type {{code?: string}} */ (err).code === "ENOENT") return { kind: "absent" };
    return { kind: "unreadable" };
  }
}

// ------------------------------------------------------------------ parsing

/**
 * Decode one settings file (CFG-4): null for an empty tier (blank or BOM only).
 * Node's "utf8" decoding replaces bad bytes silently, so decode fatally here.
 * @param {Uint8Array} bytes
 * @returns {string | null}
 */
export function decodeTierText(bytes) {
  let text;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new ConfigParseError("settings file is not UTF-8");
  }
  if (text.startsWith("\uFEFF")) text = text.slice(1);
  if (/^[ \t\n\r]*$/.test(text)) return null;
  return text;
}

const HEX4 = /^[0-9a-fA-F]{4}$/;
const NUMBER_CHARS = /[0-9+\-.eE]/;

/**
 * Lexical checks on the raw text (CFG-4): the reason it is rejected, or null.
 * Nesting deeper than MAX_DEPTH (brackets inside strings do not count), `\u`
 * escapes of surrogates that are not part of a pair, and number literals that
 * round to ±Infinity. These are properties of the text, so they are checked
 * before JSON.parse: a duplicate key (CFG-5) must not hide a bad value that a
 * later occurrence replaces. Anything else malformed is left to JSON.parse.
 * Only ASCII characters matter, so iterating code units is exact.
 * @param {string} text
 * @returns {string | null}
 */
function scan(text) {
  let depth = 0;
  let inString = false;
  let high = false; // the previous string element was a \uD800-\uDBFF escape
  let i = 0;
  const n = text.length;
  while (i < n) {
    const ch = text[i];
    i += 1;
    if (inString) {
      if (ch === "\\" && i < n) {
        const esc = text[i];
        i += 1;
        const digits = text.slice(i, i + 4);
        if (esc === "u" && HEX4.test(digits)) {
          i += 4;
          const unit = parseInt(digits, 16);
          if (unit >= 0xdc00 && unit <= 0xdfff) {
            if (!high) return "lone surrogate";
            high = false;
            continue;
          }
          if (high) return "lone surrogate";
          high = unit >= 0xd800 && unit <= 0xdbff;
          continue;
        }
      } else if (ch === '"') inString = false;
      if (high) return "lone surrogate";
    } else if (ch === '"') {
      inString = true;
      high = false;
    } else if (ch === "[" || ch === "{") {
      depth += 1;
      if (depth > MAX_DEPTH) return `nested deeper than ${MAX_DEPTH} levels`;
    } else if (ch === "]" || ch === "}") depth -= 1;
    else if (ch === "-" || (ch >= "0" && ch <= "9")) {
      const start = i - 1;
      while (i < n && NUMBER_CHARS.test(/** @type {string} */ (text[i]))) i += 1;
      const value = Number(text.slice(start, i));
      if (value === Infinity || value === -Infinity) return "number out of range";
    }
  }
  return null;
}

/**
 * Parse one decoded settings file as strict RFC 8259 JSON (CFG-4, CFG-5).
 * @param {string} text
 * @returns {unknown}
 * @throws {ConfigParseError}
 */
export function parseTierText(text) {
  const problem = scan(text);
  if (problem !== null) throw new ConfigParseError(problem);
  try {
    return JSON.parse(text);
  } catch {
    throw new ConfigParseError("settings file is not JSON");
  }
}

// ------------------------------------------------------------------ merging

/**
 * @param {unknown} v
 * @returns {v is Record<string, unknown>}
 */
function isObject(v) {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/**
 * @param {unknown} v
 * @returns {v is string[]}
 */
function isStringList(v) {
  return Array.isArray(v) && v.every((x) => typeof x === "string");
}

/** @param {string[]} segments */
function pointer(segments) {
  return segments.map((s) => "/" + s.replaceAll("~", "~0").replaceAll("/", "~1")).join("");
}

/**
 * Compare strings by Unicode code point (not UTF-16 code unit) order.
 * @param {string} a
 * @param {string} b
 */
export function compareCodePoints(a, b) {
  const ia = a[Symbol.iterator]();
  const ib = b[Symbol.iterator]();
  for (;;) {
    const na = ia.next();
    const nb = ib.next();
    if (na.done || nb.done) return (na.done ? 0 : 1) - (nb.done ? 0 : 1);
    const ca = /** @type {number} */ (na.value.codePointAt(0));
    const cb = /** @type {number} */ (nb.value.codePointAt(0));
    if (ca !== cb) return ca - cb;
  }
}

/** @param {ConfigWarning} a @param {ConfigWarning} b */
function compareWarnings(a, b) {
  return (
    TIERS.indexOf(a.tier) - TIERS.indexOf(b.tier) ||
    compareCodePoints(a.key ?? "", b.key ?? "") ||
    compareCodePoints(a.code, b.code)
  );
}

class Merger {
  /** @param {boolean} trusted */
  constructor(trusted) {
    this.trusted = trusted;
    /** @type {HanzoConfig} */
    this.config = {
      api_key: null,
      model: DEFAULT_MODEL,
      mcp_servers: Object.create(null),
      permissions: Object.create(null),
      custom_instructions: "",
      oauth_credentials: null,
      hooks: [],
      input_mode: "default",
    };
    /** @type {ConfigWarning[]} */
    this.warnings = [];
  }

  /** @param {WarningCode} code @param {Tier} tier @param {string[]} [segments] */
  warn(code, tier, segments = []) {
    /** @type {ConfigWarning} */
    const w = { code, tier };
    if (segments.length > 0) w.key = pointer(segments);
    this.warnings.push(w);
  }

  /** @param {Tier} tier @param {Record<string, unknown>} doc */
  apply(tier, doc) {
    for (const [key, value] of Object.entries(doc)) {
      if (SENSITIVE.has(key) && tier !== "user") {
        this.warn("sensitive_key_ignored", tier, [key]);
      } else if (key === "api_key" || key === "model") {
        if (typeof value !== "string") this.warn("invalid_type", tier, [key]);
        else if (value === "") this.warn("invalid_value", tier, [key]);
        else if (key === "api_key") this.config.api_key = value;
        else this.config.model = value;
      } else if (key === "oauth_credentials") {
        if (isObject(value)) this.config.oauth_credentials = value;
        else this.warn("invalid_type", tier, [key]);
      } else if (key === "custom_instructions") {
        if (typeof value === "string") this.config.custom_instructions = value;
        else this.warn("invalid_type", tier, [key]);
      } else if (key === "permissions") {
        this.permissions(tier, value);
      } else if (key === "mcp_servers") {
        this.servers(tier, value);
      } else if (key === "hooks") {
        this.hooks(tier, value);
      } else if (key === "input_mode") {
        if (typeof value !== "string") this.warn("invalid_type", tier, [key]);
        else if (!INPUT_MODES.has(value)) this.warn("invalid_value", tier, [key]);
        else this.config.input_mode = /** @type {InputMode} */ (value);
      } else {
        this.warn("unknown_key", tier, [key]);
      }
    }
  }

  /** @param {Tier} tier @param {unknown} value */
  permissions(tier, value) {
    if (!isObject(value)) {
      this.warn("invalid_type", tier, ["permissions"]);
      return;
    }
    for (const [pattern, mode] of Object.entries(value)) {
      if (pattern === "") this.warn("invalid_value", tier, ["permissions", pattern]);
      else if (typeof mode === "string" && MODES.has(mode)) {
        this.config.permissions[pattern] = /** @type {Mode} */ (mode);
      } else {
        // Fail closed (CFG-15): a typo such as "Deny" must not let a broader allow apply.
        this.warn("invalid_mode_denied", tier, ["permissions", pattern]);
        this.config.permissions[pattern] = "deny";
      }
    }
  }

  /**
   * CFG-25: untrusted, the project and local tiers cannot make the agent run a process.
   * @param {Tier} tier
   */
  runsNothingFrom(tier) {
    return !this.trusted && tier !== "user";
  }

  /** @param {Tier} tier @param {unknown} value */
  hooks(tier, value) {
    if (!Array.isArray(value)) {
      this.warn("invalid_type", tier, ["hooks"]);
      return;
    }
    value.forEach((entry, i) => {
      if (!isObject(entry)) this.warn("invalid_type", tier, ["hooks", String(i)]);
      else {
        const hook = this.hook(tier, String(i), entry);
        if (hook === null) return;
        // CFG-25: a cloned repository runs no command
        if (this.runsNothingFrom(tier)) this.warn("untrusted_ignored", tier, ["hooks", String(i)]);
        else this.config.hooks.push(hook);
      }
    });
  }

  /**
   * @param {Tier} tier @param {string} index @param {Record<string, unknown>} entry
   * @returns {ConfigHook | null}
   */
  hook(tier, index, entry) {
    let ok = true;
    for (const [field, value] of Object.entries(entry)) {
      /** @type {WarningCode | null} */
      let bad = null;
      if (field === "event") {
        if (typeof value !== "string") bad = "invalid_type";
        else if (!HOOK_EVENTS.has(value)) bad = "invalid_value";
      } else if (field === "command" || field === "tool_pattern") {
        if (typeof value !== "string") bad = "invalid_type";
        else if (value === "") bad = "invalid_value";
      } else if (field === "timeout_ms") {
        if (typeof value !== "number") bad = "invalid_type";
        else if (!Number.isInteger(value) || value < 1 || value > MAX_HOOK_TIMEOUT_MS) {
          bad = "invalid_value";
        }
      } else {
        this.warn("unknown_key", tier, ["hooks", index, field]);
      }
      if (bad !== null) {
        ok = false;
        this.warn(bad, tier, ["hooks", index, field]);
      }
    }
    for (const field of HOOK_REQUIRED) {
      if (!Object.hasOwn(entry, field)) {
        ok = false;
        this.warn("missing_key", tier, ["hooks", index, field]);
      }
    }
    if (!ok) return null;
    return {
      event: /** @type {string} */ (entry.event),
      command: /** @type {string} */ (entry.command),
      toolPattern: /** @type {string} */ (entry.tool_pattern),
      timeoutMs: Object.hasOwn(entry, "timeout_ms")
        ? /** @type {number} */ (entry.timeout_ms)
        : DEFAULT_HOOK_TIMEOUT_MS,
    };
  }

  /** @param {Tier} tier @param {unknown} value */
  servers(tier, value) {
    if (!isObject(value)) {
      this.warn("invalid_type", tier, ["mcp_servers"]);
      return;
    }
    for (const [name, entry] of Object.entries(value)) {
      if (!isObject(entry)) this.warn("invalid_type", tier, ["mcp_servers", name]);
      else if (name === "") this.warn("invalid_value", tier, ["mcp_servers", name]);
      else if (Object.hasOwn(entry, "disabled") && entry.disabled === true) {
        delete this.config.mcp_servers[name];
      } else {
        const server = this.server(tier, name, entry);
        if (server === null) continue;
        // CFG-25: nor starts a server process
        if (this.runsNothingFrom(tier)) this.warn("untrusted_ignored", tier, ["mcp_servers", name]);
        else this.config.mcp_servers[name] = server;
      }
    }
  }

  /**
   * @param {Tier} tier @param {string} name @param {Record<string, unknown>} entry
   * @returns {McpServerConfig | null}
   */
  server(tier, name, entry) {
    /** @type {McpServerConfig} */
    const server = { command: [], args: [], env: Object.create(null) };
    let ok = true;
    for (const [field, value] of Object.entries(entry)) {
      /** @type {WarningCode | null} */
      let bad = null;
      if (field === "command") {
        if (!isStringList(value)) bad = "invalid_type";
        else if (value.length === 0) bad = "invalid_value";
        else server.command = [...value];
      } else if (field === "args") {
        if (isStringList(value)) server.args = [...value];
        else bad = "invalid_type";
      } else if (field === "env") {
        if (isObject(value) && Object.values(value).every((v) => typeof v === "string")) {
          for (const [k, v] of Object.entries(value)) server.env[k] = /** @type {string} */ (v);
        } else bad = "invalid_type";
      } else if (field === "disabled") {
        if (typeof value !== "boolean") bad = "invalid_type";
      } else {
        this.warn("unknown_key", tier, ["mcp_servers", name, field]);
      }
      if (bad !== null) {
        ok = false;
        this.warn(bad, tier, ["mcp_servers", name, field]);
      }
    }
    if (!Object.hasOwn(entry, "command")) {
      ok = false;
      this.warn("missing_key", tier, ["mcp_servers", name, "command"]);
    }
    return ok ? server : null;
  }
}

/**
 * Merge already-read tier files (user, project, local) with the environment
 * (CFG-6 .. CFG-19). Warnings come back sorted (CFG-21). `trusted` (CFG-25, default
 * false): whether the project and local tiers may define hooks and MCP servers.
 * @param {[TierSource, TierSource, TierSource]} sources
 * @param {EnvMap} env
 * @param {{trusted?: boolean}} [options]
 * @returns {LoadedConfig}
 */
export function mergeTiers(sources, env, { trusted = false } = {}) {
  const m = new Merger(trusted);
  TIERS.forEach((tier, i) => {
    const source = sources[i];
    if (source === undefined || source.kind === "absent") return;
    if (source.kind === "unreadable") {
      m.warn("unreadable_file", tier);
      return;
    }
    let doc;
    try {
      const text = decodeTierText(source.bytes);
      if (text === null) return;
      doc = parseTierText(text);
    } catch (err) {
      if (err instanceof ConfigParseError) {
        m.warn("invalid_json", tier);
        return;
      }
      throw err;
    }
    if (isObject(doc)) m.apply(tier, doc);
    else m.warn("not_an_object", tier);
  });
  const key = env.HANZO_API_KEY ?? "";
  if (key !== "") m.config.api_key = key;
  const model = env.HANZO_MODEL ?? "";
  if (model !== "") m.config.model = model;
  m.warnings.sort(compareWarnings);
  return { config: m.config, warnings: m.warnings };
}

/**
 * Read the three tier files and merge them. `env` defaults to `process.env`;
 * without `projectRoot` only the user tier is read. Untrusted (the default, CFG-25),
 * the project and local tiers' hooks and MCP servers are dropped with a warning.
 * @param {string | null} [projectRoot]
 * @param {{env?: EnvMap, trusted?: boolean}} [options]
 * @returns {LoadedConfig}
 */
export function loadConfigWithWarnings(projectRoot, { env = process.env, trusted = false } = {}) {
  const [user, project, local] = tierPaths(projectRoot, env);
  return mergeTiers([readTier(user), readTier(project), readTier(local)], env, { trusted });
}

/**
 * Load and merge configs: user < project < local < environment (HIP-301 §4).
 * Warnings (code, tier and key only) are written to `options.onWarning`, or
 * dropped when it is not given.
 * @param {string | null} [projectRoot]
 * @param {{env?: EnvMap, trusted?: boolean, onWarning?: (w: ConfigWarning) => void}} [options]
 * @returns {HanzoConfig}
 */
export function loadConfig(projectRoot, { env = process.env, trusted = false, onWarning } = {}) {
  const loaded = loadConfigWithWarnings(projectRoot, { env, trusted });
  if (onWarning) loaded.warnings.forEach((w) => onWarning(w));
  return loaded.config;
}

// ------------------------------------------------------------------ policy

/**
 * The rules a policy built from `config` checks, in order (CFG-22): every deny,
 * then every prompt, then every allow; within one mode by pattern in code-point
 * order. Never the files' key order (JS objects iterate integer-like keys first).
 * @param {HanzoConfig} config
 * @returns {{toolPattern: string, mode: Mode}[]}
 */
export function permissionRules(config) {
  return Object.entries(config.permissions)
    .map(([toolPattern, mode]) => ({ toolPattern, mode }))
    .sort((a, b) => MODE_RANK[a.mode] - MODE_RANK[b.mode] || compareCodePoints(a.toolPattern, b.toolPattern));
}

/**
 * HIP-301 §7's PermissionPolicy built from `config.permissions` (CFG-22).
 * @param {HanzoConfig} config
 * @returns {PermissionPolicy}
 */
export function policyFromConfig(config) {
  return new PermissionPolicy(permissionRules(config));
}
