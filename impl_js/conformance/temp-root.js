// A fresh temporary directory per case (canonical path), and the tree builder
// that the filesystem domains share. Removal never follows links.
//
// Confinement (docs/protocol.md, "Case roots: what an OS-domain case writes"): every
// path a case creates or writes is a plain relative path under the root, reached
// one directory at a time without following a symlink, and a file is never opened
// for writing through one (O_NOFOLLOW). A symlink may point anywhere (sandbox-paths'
// test material); nothing is created or written through it.
import {
  closeSync,
  constants,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";


export const PLACEHOLDER = "{root}";

/**
 * Runs `body(root)` in a fresh canonical temporary directory, removed afterwards.
 * @template T
 * @param {string} prefix
 * @param {(root: string) => T} body
 * @returns {T}
 */
export function withTempRoot(prefix, body) {
  const root = realpathSync(mkdtempSync(join(tmpdir(), `hanzo-${prefix}-`)));
  try {
    return body(root);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/**
 * @param {unknown} value
 * @param {string} what
 * @returns {string}
 */
export function str(value, what) {
  if (typeof value !== "string") throw new TypeError(`${what} must be a string`);
  return value;
}

/** A case would create or write outside its root: the case is malformed (answered
 * as a crash naming the entry), never a contract error. */
export class EscapeRefused extends Error {
  /**
   * @param {string} what
   * @param {string} problem
   */
  constructor(what, problem) {
    super(
      `${what}: ${problem}; a case creates and writes only inside its case root, never through a symlink (the case is malformed)`,
    );
    this.name = "EscapeRefused";
  }
}

/**
 * `rel`'s components; an absolute path, NUL, or an empty, `.` or `..` component is refused.
 * @param {string} rel
 * @param {string} what
 * @returns {string[]}
 */
export function relativeParts(rel, what) {
  if (rel.startsWith("/")) throw new EscapeRefused(what, `${JSON.stringify(rel)} is absolute`);
  const parts = rel.split("/");
  if (rel.includes("\0") || parts.some((p) => p === "" || p === "." || p === "..")) {
    throw new EscapeRefused(
      what,
      `${JSON.stringify(rel)} is not a plain relative path (empty, '.' or '..' component)`,
    );
  }
  return parts;
}

/**
 * `root/parts...`, each missing directory made; a component that is a symlink or not a
 * directory is refused. Nothing else runs in the root while a case's paths are made,
 * so what `lstatSync` saw is what is used.
 * @param {string} root
 * @param {string[]} parts
 * @param {string} what
 * @returns {string}
 */
export function directory(root, parts, what) {
  let dir = root;
  parts.forEach((name, depth) => {
    dir = join(dir, name);
    const stat = lstatSync(dir, { throwIfNoEntry: false });
    const shown = JSON.stringify(parts.slice(0, depth + 1).join("/"));
    if (stat === undefined) mkdirSync(dir);
    else if (stat.isSymbolicLink()) throw new EscapeRefused(what, `${shown} is a symlink`);
    else if (!stat.isDirectory()) throw new EscapeRefused(what, `${shown} is not a directory`);
  });
  return dir;
}

/**
 * `dir/name` created or truncated with `data`, never through a symlink.
 * @param {string} dir
 * @param {string} name
 * @param {string} data
 * @param {string} what
 */
export function writeFile(dir, name, data, what) {
  const path = join(dir, name);
  if (lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink()) {
    throw new EscapeRefused(what, `${JSON.stringify(name)} is a symlink, and a file is never written through one`);
  }
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW;
  let fd;
  try {
    fd = openSync(path, flags, 0o666);
  } catch (err) {
    if (/** @type {NodeJS.ErrnoException} */ (err).code === "ELOOP") {
      throw new EscapeRefused(what, `${JSON.stringify(name)} is a symlink`);
    }
    throw err;
  }
  try {
    writeSync(fd, data);
  } finally {
    closeSync(fd);
  }
}

/**
 * `path` (placeholders substituted) relative to `root`, "" for the root itself;
 * refused unless it is the root or a plain path under it.
 * @param {string} path
 * @param {string} root
 * @param {string} what
 * @returns {string}
 */
export function underRoot(path, root, what) {
  if (path === root) return "";
  if (!path.startsWith(`${root}/`)) {
    throw new EscapeRefused(what, `${JSON.stringify(path)} is not under ${PLACEHOLDER}`);
  }
  const rel = path.slice(root.length + 1);
  relativeParts(rel, what);
  return rel;
}

/**
 * Creates the `tree` entries ({path, kind, target?, content?}) under `root`, in order,
 * each confined to the root (`directory`: an entry under or on a symlink is refused).
 * @param {string} root
 * @param {unknown} tree
 */
export function buildTree(root, tree) {
  if (!Array.isArray(tree)) throw new TypeError("input.tree must be a list");
  tree.forEach((entry, index) => {
    const rel = str(entry?.path, "tree[].path");
    const what = `tree[${index}] ${JSON.stringify(rel)}`;
    const parts = relativeParts(rel, what);
    if (entry.kind === "dir") {
      directory(root, parts, what);
      return;
    }
    const name = /** @type {string} */ (parts.pop());
    const parent = directory(root, parts, what);
    switch (entry.kind) {
      case "file":
        writeFile(parent, name, entry.content === undefined ? "" : str(entry.content, "tree[].content"), what);
        break;
      case "symlink":
        symlinkSync(str(entry.target, "tree[].target").replaceAll(PLACEHOLDER, root), join(parent, name));
        break;
      default:
        throw new TypeError(`unknown tree kind ${JSON.stringify(entry.kind)}`);
    }
  });
}
