// Pre/post tool-use hooks run as real processes (HIP-301 §9, docs/domains/hooks.md).
// Each hook is `/bin/sh -c command` in its own process group (detached), so a
// timeout, or the end of the hook, kills everything it started (HOOK-9, HOOK-10).
import { spawn } from "node:child_process";
import { constants } from "node:os";

import { compareCodePoints } from "./config.js";
import { HanzoError } from "./errors.js";
import { Glob } from "./permissions.js";

export const DEFAULT_TIMEOUT_MS = 5000;
export const MAX_TIMEOUT_MS = 2147483647;
/** HOOK-7: the longest `NAME=value` (Linux MAX_ARG_STRLEN is 131072 with the NUL). */
export const MAX_ENV_ENTRY_BYTES = 131071;
/** HOOK-11: stderr bytes kept for the deny reason. */
export const REASON_LIMIT_BYTES = 4096;
export const DEFAULT_DENY_REASON = "blocked by pre_tool_use hook";

/** @typedef {"pre_tool_use" | "post_tool_use"} HookEvent */
/** @typedef {{event: string, command: string, toolPattern: string, timeoutMs?: number}} HookConfig */
/** @typedef {{output: string, error: string | null, isError: boolean}} ToolResult */
/** @typedef {"hook_allow" | "hook_deny" | "hook_exit_error" | "hook_signal" | "hook_timeout" | "hook_env_unpassable"} LogCode */
/** @typedef {{code: LogCode, hook: number, exitCode: number | null, signal: number | null}} HookLogRecord */
/** @typedef {{decision: "allow" | "deny" | "error", reason: string | null, ran: number[], log: HookLogRecord[]}} HookResult */

// --- canonical JSON (HOOK-6) ---------------------------------------------------------

/**
 * HOOK-6: JSON.stringify with object keys sorted by code point.
 * @param {unknown} value
 * @returns {string}
 */
export function canonicalJson(value) {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const keys = Object.keys(value).sort(compareCodePoints);
    const record = /** @type {Record<string, unknown>} */ (value);
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(record[k])}`).join(",")}}`;
  }
  if (typeof value === "number" && !Number.isFinite(value)) throw new TypeError("JSON has no NaN or Infinity");
  const text = JSON.stringify(value);
  if (text === undefined) throw new TypeError(`not JSON: ${typeof value}`);
  return text;
}

// --- one hook process ------------------------------------------------------------------

/**
 * HOOK-7: of the variables that cannot be passed, the least name by code point, if any.
 * @param {Record<string, string>} env
 * @returns {string | null}
 */
export function unpassable(env) {
  /** @type {string | null} */
  let least = null;
  for (const [name, value] of Object.entries(env)) {
    const badName = name === "" || name.includes("=") || name.includes("\0");
    if (badName || value.includes("\0") || Buffer.byteLength(name) + 1 + Buffer.byteLength(value) > MAX_ENV_ENTRY_BYTES) {
      if (least === null || compareCodePoints(name, least) < 0) least = name;
    }
  }
  return least;
}

/**
 * HOOK-11: drop a UTF-8 sequence cut at the end, decode, strip trailing ASCII whitespace.
 * @param {Uint8Array} kept
 */
export function reasonText(kept) {
  let end = kept.length;
  for (let back = 1; back <= Math.min(4, kept.length); back++) {
    const lead = kept[kept.length - back];
    if ((lead & 0xc0) !== 0x80) {
      const length = lead >= 0xf0 && lead <= 0xf7 ? 4 : lead >= 0xe0 && lead <= 0xef ? 3 : lead >= 0xc0 && lead <= 0xdf ? 2 : 1;
      if (length > back) end = kept.length - back;
      break;
    }
  }
  return new TextDecoder("utf-8").decode(kept.subarray(0, end)).replace(/[ \t\n\r]+$/, "");
}

/** @param {number} pid */
function killGroup(pid) {
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // ESRCH: the group is already empty
  }
}

/**
 * @typedef {{kind: "unpassable", name: string} | {kind: "timeout"} | {kind: "exit", code: number, stderr: Uint8Array}
 *   | {kind: "signal", signal: number}} Ending
 */

/**
 * Runs `/bin/sh -c command` in a new process group (HOOK-4, HOOK-9, HOOK-10).
 * HOOK-14 needs nothing here: libuv's child setup resets signals 1..31 to their default
 * disposition and empties the signal mask before exec, whatever Node inherited.
 * @param {string} command
 * @param {Record<string, string>} env
 * @param {string | undefined} cwd
 * @param {number} timeoutMs
 * @returns {Promise<Ending>}
 */
export function runHookProcess(command, env, cwd, timeoutMs) {
  const bad = unpassable(env);
  if (bad !== null) return Promise.resolve({ kind: "unpassable", name: bad });
  return new Promise((resolve) => {
    const child = spawn("/bin/sh", ["-c", command], { cwd, env, stdio: ["ignore", "ignore", "pipe"], detached: true });
    /** @type {Buffer[]} */
    const kept = [];
    let keptBytes = 0;
    let timedOut = false;
    /** @type {Ending | null} */
    let ending = null;
    child.stderr?.on("data", (/** @type {Buffer} */ chunk) => {
      if (keptBytes < REASON_LIMIT_BYTES) {
        const part = chunk.subarray(0, REASON_LIMIT_BYTES - keptBytes);
        kept.push(part);
        keptBytes += part.length;
      }
    });
    const timer = setTimeout(() => {
      timedOut = true;
      if (child.pid !== undefined) killGroup(child.pid);
    }, timeoutMs);
    child.on("error", () => {
      // could not start (no /bin/sh, bad cwd): as the shell reports a missing program
      clearTimeout(timer);
      resolve({ kind: "exit", code: 127, stderr: new Uint8Array() });
    });
    // "exit" is the process itself (waitpid); "close" also waits for stderr, which
    // HOOK-10's group kill makes immediate.
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      if (child.pid !== undefined) killGroup(child.pid);
      if (timedOut) ending = { kind: "timeout" };
      else if (code !== null) ending = { kind: "exit", code, stderr: new Uint8Array() };
      else ending = { kind: "signal", signal: signal === null ? 0 : constants.signals[signal] };
    });
    child.on("close", () => {
      if (ending?.kind === "exit") ending.stderr = Buffer.concat(kept);
      if (ending !== null) resolve(ending);
    });
  });
}

// --- the runner ----------------------------------------------------------------------------

/** Runs the hooks matching a tool call (HIP-301 §9). */
export class HookRunner {
  /**
   * @param {readonly HookConfig[]} hooks
   * @param {{sessionId?: string, cwd?: string, env?: Record<string, string | undefined>}} [options]
   */
  constructor(hooks, options = {}) {
    /** @type {{hook: Required<HookConfig>, glob: Glob}[]} */
    this.hooks = hooks.map((hook) => {
      if (hook.event !== "pre_tool_use" && hook.event !== "post_tool_use") {
        throw new HanzoError("invalid_event", `invalid hook event ${JSON.stringify(hook.event)}`);
      }
      const timeoutMs = hook.timeoutMs ?? DEFAULT_TIMEOUT_MS;
      if (!Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > MAX_TIMEOUT_MS) {
        throw new HanzoError("invalid_timeout", `invalid hook timeout ${JSON.stringify(timeoutMs)}`);
      }
      return { hook: { ...hook, timeoutMs }, glob: new Glob(hook.toolPattern) };
    });
    this.sessionId = options.sessionId ?? "";
    this.cwd = options.cwd;
    /** @type {Record<string, string>} */
    this.env = {};
    for (const [k, v] of Object.entries(options.env ?? process.env)) if (v !== undefined) this.env[k] = v;
  }

  /**
   * @param {string} toolName
   * @param {unknown} input
   * @param {ToolResult | null} result
   */
  environment(toolName, input, result) {
    const env = { ...this.env };
    delete env.HANZO_TOOL_OUTPUT;
    env.HANZO_TOOL_NAME = toolName;
    env.HANZO_TOOL_INPUT = canonicalJson(input);
    env.HANZO_SESSION_ID = this.sessionId;
    if (result !== null) {
      env.HANZO_TOOL_OUTPUT = canonicalJson({ output: result.output, error: result.error, is_error: result.isError });
    }
    return env;
  }

  /**
   * @param {HookEvent} event
   * @param {string} toolName
   * @returns {number[]}
   */
  matching(event, toolName) {
    return this.hooks.flatMap(({ hook, glob }, i) => (hook.event === event && glob.matches(toolName) ? [i] : []));
  }

  /**
   * @param {number} index
   * @param {Record<string, string>} env
   * @returns {Promise<{record: HookLogRecord, decision: "allow" | "deny" | "error", reason: string | null}>}
   */
  async runOne(index, env) {
    const { command, timeoutMs } = this.hooks[index].hook;
    const ending = await runHookProcess(command, env, this.cwd, timeoutMs);
    /** @type {(code: LogCode, exitCode: number | null, signal: number | null) => HookLogRecord} */
    const record = (code, exitCode, signal) => ({ code, hook: index, exitCode, signal });
    switch (ending.kind) {
      case "unpassable":
        return {
          record: record("hook_env_unpassable", null, null),
          decision: "error",
          reason: `hook environment variable ${ending.name} cannot be passed`,
        };
      case "timeout":
        return { record: record("hook_timeout", null, null), decision: "error", reason: `hook timed out after ${timeoutMs} ms` };
      case "signal":
        return {
          record: record("hook_signal", null, ending.signal),
          decision: "error",
          reason: `hook killed by signal ${ending.signal}`,
        };
      default:
        if (ending.code === 0) return { record: record("hook_allow", 0, null), decision: "allow", reason: null };
        if (ending.code === 2) {
          const reason = reasonText(ending.stderr);
          return { record: record("hook_deny", 2, null), decision: "deny", reason: reason === "" ? DEFAULT_DENY_REASON : reason };
        }
        return {
          record: record("hook_exit_error", ending.code, null),
          decision: "error",
          reason: `hook exited with code ${ending.code}`,
        };
    }
  }

  /**
   * Runs matching pre-hooks in order; the first deny or error decides (HOOK-3).
   * @param {string} toolName
   * @param {unknown} input
   * @returns {Promise<HookResult>}
   */
  async runPre(toolName, input) {
    const env = this.environment(toolName, input, null);
    /** @type {HookResult} */
    const result = { decision: "allow", reason: null, ran: [], log: [] };
    for (const index of this.matching("pre_tool_use", toolName)) {
      result.ran.push(index);
      const { record, decision, reason } = await this.runOne(index, env);
      result.log.push(record);
      if (decision !== "allow") return { ...result, decision, reason };
    }
    return result;
  }

  /**
   * Runs every matching post-hook; failures are logged, never block (HOOK-12).
   * @param {string} toolName
   * @param {unknown} input
   * @param {ToolResult} toolResult
   * @returns {Promise<HookResult>}
   */
  async runPost(toolName, input, toolResult) {
    const env = this.environment(toolName, input, toolResult);
    /** @type {HookResult} */
    const result = { decision: "allow", reason: null, ran: [], log: [] };
    for (const index of this.matching("post_tool_use", toolName)) {
      result.ran.push(index);
      result.log.push((await this.runOne(index, env)).record);
    }
    return result;
  }
}
