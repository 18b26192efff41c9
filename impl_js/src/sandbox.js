// Filesystem isolation and container detection (HIP-301 §10,
// docs/domains/sandbox-paths.md). Paths are canonicalized by one walk over the
// real filesystem (SBX-4), not fs.realpathSync, which fails on missing names.
import { closeSync, lstatSync, openSync, readSync, readlinkSync, statSync } from "node:fs";
import { join } from "node:path";

import { HanzoError } from "./errors.js";

/** SBX-5: links followed in one canonicalization (Linux MAXSYMLINKS). */
export const MAX_SYMLINKS = 40;

/** @typedef {"off" | "workspace" | "allowlist"} IsolationMode */
/** @typedef {"isolation_off" | "invalid_path" | "symlink_loop" | "in_workspace" | "in_allowed_path" | "outside"} CheckReason */
/** @typedef {{allowed: boolean, reason: CheckReason, resolved: string | null}} PathCheck */
/** @typedef {"docker" | "podman" | "k8s"} ContainerRuntime */

/** @type {readonly IsolationMode[]} */
const MODES = ["off", "workspace", "allowlist"];

/** More than MAX_SYMLINKS links on the way (SBX-5); not a contract error of its own. */
export class SymlinkLoopError extends Error {}

/**
 * @param {string} path
 * @returns {string[]}
 */
function components(path) {
  return path.split("/").filter((part) => part !== "" && part !== ".");
}

/**
 * @param {string} path
 * @returns {string}
 */
function parent(path) {
  const slash = path.lastIndexOf("/");
  return slash <= 0 ? "/" : path.slice(0, slash);
}

/**
 * The SBX-4 walk; a relative `path` starts at `base` (itself canonical).
 * @param {string} path
 * @param {string} base
 * @returns {string}
 * @throws {SymlinkLoopError} when a 41st link would be followed
 */
export function canonicalize(path, base) {
  let current = path.startsWith("/") ? "/" : base;
  const pending = components(path).reverse(); // a stack: the next component is last
  let followed = 0;
  for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
    if (name === "..") {
      current = parent(current);
      continue;
    }
    const candidate = current === "/" ? `/${name}` : `${current}/${name}`;
    let isLink = false;
    try {
      isLink = lstatSync(candidate).isSymbolicLink();
    } catch {
      // missing, under a file, unreadable: taken literally
    }
    if (!isLink) {
      current = candidate;
      continue;
    }
    followed += 1;
    if (followed > MAX_SYMLINKS) {
      throw new SymlinkLoopError(`more than ${MAX_SYMLINKS} symbolic links in ${JSON.stringify(path)}`);
    }
    const target = readlinkSync(candidate);
    if (target.startsWith("/")) current = "/";
    pending.push(...components(target).reverse());
  }
  return current;
}

/**
 * SBX-11: whole-component prefix test on canonical paths.
 * @param {string} path
 * @param {string} directory
 */
export function isInside(path, directory) {
  return directory === "/" || path === directory || path.startsWith(`${directory}/`);
}

/** @param {string} path */
function isValid(path) {
  return path !== "" && !path.includes("\0");
}

/**
 * @param {string} path
 * @param {string} base
 * @param {string} code
 */
function canonicalOrThrow(path, base, code) {
  try {
    return canonicalize(path, base);
  } catch (err) {
    if (err instanceof SymlinkLoopError) throw new HanzoError(code, err.message);
    throw err;
  }
}

/** Filesystem isolation for one workspace (HIP-301 §10). */
export class Sandbox {
  /**
   * @param {{mode: string, allowedPaths?: readonly string[]}} config
   * @param {string} workspace
   */
  constructor(config, workspace) {
    if (!MODES.includes(/** @type {IsolationMode} */ (config.mode))) {
      throw new HanzoError("invalid_mode", `invalid isolation mode ${JSON.stringify(config.mode)}`);
    }
    /** @type {IsolationMode} */
    this.mode = /** @type {IsolationMode} */ (config.mode);
    if (!isValid(workspace) || !workspace.startsWith("/")) {
      throw new HanzoError("invalid_workspace", `workspace must be absolute: ${JSON.stringify(workspace)}`);
    }
    /** @type {string} */
    this.workspace = canonicalOrThrow(workspace, "/", "invalid_workspace");
    let isDir = false;
    try {
      isDir = statSync(this.workspace).isDirectory();
    } catch {
      // missing: not a directory
    }
    if (!isDir) {
      throw new HanzoError("invalid_workspace", `workspace is not a directory: ${JSON.stringify(workspace)}`);
    }
    /** @type {readonly string[]} */
    this.allowedPaths = (config.allowedPaths ?? []).map((entry) => {
      if (!isValid(entry)) {
        throw new HanzoError("invalid_allowed_path", `invalid allowed path ${JSON.stringify(entry)}`);
      }
      return canonicalOrThrow(entry, this.workspace, "invalid_allowed_path");
    });
  }

  /**
   * Decide `path` (SBX-9..SBX-13); never throws.
   * @param {string} path
   * @returns {PathCheck}
   */
  check(path) {
    if (this.mode === "off") return { allowed: true, reason: "isolation_off", resolved: null };
    if (!isValid(path)) return { allowed: false, reason: "invalid_path", resolved: null };
    let resolved;
    try {
      resolved = canonicalize(path, this.workspace);
    } catch (err) {
      if (err instanceof SymlinkLoopError) return { allowed: false, reason: "symlink_loop", resolved: null };
      throw err;
    }
    const inside =
      this.mode === "workspace"
        ? isInside(resolved, this.workspace)
        : this.allowedPaths.some((entry) => isInside(resolved, entry));
    if (!inside) return { allowed: false, reason: "outside", resolved };
    return { allowed: true, reason: this.mode === "workspace" ? "in_workspace" : "in_allowed_path", resolved };
  }

  /**
   * HIP-301: true if the path is allowed under the current isolation mode.
   * @param {string} path
   */
  checkPath(path) {
    return this.check(path).allowed;
  }
}

/** @param {string} path */
function lexists(path) {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/** SBX-14: the bytes of proc/1/cgroup read at most (a real one is a few hundred; a link to /dev/zero must not be read without end). */
export const CGROUP_READ_LIMIT = 65536;

/**
 * The first `limit` bytes of a file (fewer at its end).
 * @param {string} path @param {number} limit
 */
function readAtMost(path, limit) {
  const buffer = Buffer.alloc(limit);
  const fd = openSync(path, "r");
  try {
    let filled = 0;
    while (filled < limit) {
      const n = readSync(fd, buffer, filled, limit - filled, null);
      if (n === 0) break;
      filled += n;
    }
    return buffer.subarray(0, filled);
  } finally {
    closeSync(fd);
  }
}

/**
 * SBX-14: proc/1/cgroup, .dockerenv, run/.containerenv, then KUBERNETES_SERVICE_HOST.
 * @param {string} [root]
 * @param {Record<string, string | undefined>} [env]
 * @returns {ContainerRuntime | null}
 */
export function detectContainer(root = "/", env = process.env) {
  let cgroup = "";
  try {
    cgroup = new TextDecoder().decode(readAtMost(join(root, "proc/1/cgroup"), CGROUP_READ_LIMIT));
  } catch {
    // unreadable: says nothing
  }
  const paths = cgroup
    .split("\n")
    .map((line) => line.split(":"))
    .filter((fields) => fields.length >= 3)
    .map((fields) => fields.slice(2).join(":"));
  /** @type {[string, ContainerRuntime][]} */
  const needles = [
    ["kubepods", "k8s"],
    ["docker", "docker"],
    ["libpod", "podman"],
  ];
  for (const [needle, runtime] of needles) {
    if (paths.some((p) => p.includes(needle))) return runtime;
  }
  if (lexists(join(root, ".dockerenv"))) return "docker";
  if (lexists(join(root, "run/.containerenv"))) return "podman";
  if (env.KUBERNETES_SERVICE_HOST) return "k8s";
  return null;
}

/**
 * SBX-15: off inside a container, workspace otherwise.
 * @param {ContainerRuntime | null} container
 * @returns {IsolationMode}
 */
export function defaultMode(container) {
  return container === null ? "workspace" : "off";
}
