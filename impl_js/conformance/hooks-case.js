// The hooks case, asynchronously: run the case's hooks for real with HookRunner
// in a temporary root; report what the `record` fixtures saw and which processes the
// case left alive (in the platform's PID namespace, or working in the case root). conformance/hooks.js runs it to
// completion synchronously (the JSON layer is synchronous).
import { readFileSync, readdirSync, readlinkSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { setTimeout as sleep } from "node:timers/promises";

import { DEFAULT_TIMEOUT_MS, HookRunner } from "../src/hooks.js";
import { PLACEHOLDER, directory, relativeParts, str, underRoot } from "./temp-root.js";

export const FIXTURES = process.env.HANZO_HOOK_FIXTURES ?? fileURLToPath(new URL("../../fixtures/hooks", import.meta.url));
const LEFTOVER_WAIT_MS = 1000;
// How the harness confined this process (set by adapters/isolation.py, which owns it).
const ISOLATION_ENV = "HANZO_CONFORMANCE_ISOLATION";

/**
 * Files under `dir` (recursively) whose name ends with `suffix`, sorted.
 * @param {string} dir
 * @param {string} suffix
 * @returns {string[]}
 */
function filesEnding(dir, suffix) {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(suffix))
    .map((name) => join(dir, name))
    .sort();
}

/** @param {number} pid Running and not a zombie (Linux /proc). */
function alive(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const state = stat.slice(stat.lastIndexOf(")") + 1).trim()[0];
    return state !== "Z" && state !== "X";
  } catch {
    return false;
  }
}

/**
 * This platform's other processes that the case left. As the init of the PID namespace
 * the harness made for it (adapters/isolation.py owns HANZO_CONFORMANCE_ISOLATION):
 * every process of that namespace. Else (no namespaces, or the native vector runner):
 * every process whose working directory is in the case root (hooks start in their own
 * sessions, so no session of ours holds them). Never a list a hook could write (a
 * forged one would have this kill any pid); a process that changes its directory away
 * escapes the count where there is no namespace.
 * @param {string} root
 * @returns {number[]}
 */
function others(root) {
  const me = process.pid;
  const everything = process.env[ISOLATION_ENV] === "namespace" && me === 1;
  return readdirSync("/proc")
    .filter((name) => /^[0-9]+$/.test(name) && Number(name) !== me)
    .filter((name) => {
      if (everything) return true;
      try {
        const cwd = readlinkSync(`/proc/${name}/cwd`);
        return cwd === root || cwd.startsWith(`${root}/`);
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** @param {string} root */
async function leftovers(root) {
  const pids = others(root);
  const deadline = Date.now() + LEFTOVER_WAIT_MS;
  let living = pids.filter(alive);
  while (living.length > 0 && Date.now() < deadline) {
    await sleep(10);
    living = living.filter(alive);
  }
  for (const pid of living) {
    try {
      process.kill(pid, "SIGKILL"); // a failing implementation must not leak processes into the run
    } catch {
      // gone meanwhile
    }
  }
  return living.length;
}

/**
 * @param {string} root
 * @param {string[]} observe
 */
function saw(root, observe) {
  /** @type {Record<string, unknown>} */
  const out = {};
  const decoder = new TextDecoder("utf-8");
  for (const envFile of filesEnding(root, ".env")) {
    /** @type {Map<string, string>} */
    const vars = new Map();
    const bytes = readFileSync(envFile);
    let start = 0;
    while (start < bytes.length) {
      let end = bytes.indexOf(0, start);
      if (end < 0) end = bytes.length;
      const entry = bytes.subarray(start, end);
      const eq = entry.indexOf(0x3d);
      if (eq >= 0) vars.set(decoder.decode(entry.subarray(0, eq)), decoder.decode(entry.subarray(eq + 1)));
      start = end + 1;
    }
    const base = envFile.slice(0, -".env".length);
    const cwd = readFileSync(`${base}.cwd`, "utf8").replace(/\n$/, "");
    const name = base.slice(base.lastIndexOf("/") + 1);
    out[name] = {
      env: Object.fromEntries(observe.map((v) => [v, vars.get(v) ?? null])),
      cwd: cwd === root || cwd.startsWith(`${root}/`) ? PLACEHOLDER + cwd.slice(root.length) : cwd,
      stdin: readFileSync(`${base}.stdin`, "utf8"),
    };
  }
  return out;
}

/**
 * `path` as one /bin/sh word, as Python's shlex.quote writes it: as it is when every
 * character is safe, else in single quotes (each ' as '"'"').
 * @param {string} path
 */
function shWord(path) {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(path)) return path;
  return `'${path.replaceAll("'", `'"'"'`)}'`;
}

/**
 * `{root}` and `{fixtures}` replaced (HOOK-4); in a command each path is one /bin/sh
 * word, so a checkout or temp dir with a space, quote or `$` runs the same hook.
 * @param {string} text @param {string} root @param {boolean} [command]
 */
export function substitute(text, root, command = false) {
  const word = command ? shWord : (/** @type {string} */ p) => p;
  return text.replaceAll(PLACEHOLDER, word(root)).replaceAll("{fixtures}", word(FIXTURES));
}

/**
 * @param {any} input
 * @param {string} root
 */
export async function runCase(input, root) {
  /** @param {unknown} value */
  const sub = (value) => substitute(str(value, "hook commands, cwd and env values"), root);
  /** @param {unknown} value */
  const subCommand = (value) => substitute(str(value, "hook commands, cwd and env values"), root, true);
  if (!Array.isArray(input?.hooks) || typeof input.env !== "object" || !Array.isArray(input.observe)) {
    throw new TypeError("input.hooks, input.env and input.observe are required");
  }
  const cwd = sub(input.cwd);
  const what = `input.cwd ${JSON.stringify(input.cwd)}`;
  const cwdRel = underRoot(cwd, root, what);
  // create_cwd false: a vector of HOOK-4's missing working directory
  if (input.create_cwd !== false) directory(root, cwdRel === "" ? [] : relativeParts(cwdRel, what), what);
  const runner = new HookRunner(
    input.hooks.map((/** @type {any} */ h) => ({
      event: h.event,
      command: subCommand(h.command),
      toolPattern: h.tool_pattern,
      timeoutMs: h.timeout_ms ?? DEFAULT_TIMEOUT_MS,
    })),
    {
      sessionId: input.session_id,
      cwd,
      env: Object.fromEntries(Object.entries(input.env).map(([k, v]) => [k, sub(v)])),
    },
  );
  const toolInput = { ...input.tool_input };
  const fill = input.tool_input_fill;
  if (fill !== undefined) toolInput[fill.key] = fill.text.repeat(fill.count);
  const result =
    input.event === "post_tool_use"
      ? await runner.runPost(input.tool_name, toolInput, {
          output: input.tool_result.output,
          error: input.tool_result.error,
          isError: input.tool_result.is_error,
        })
      : await runner.runPre(input.tool_name, toolInput);
  return {
    decision: result.decision,
    reason: result.reason,
    ran: result.ran,
    log: result.log.map((r) => ({ code: r.code, hook: r.hook, exit_code: r.exitCode, signal: r.signal })),
    saw: saw(root, input.observe),
    leftover_processes: await leftovers(root),
  };
}
