// A fresh temporary directory per case (canonical path), and the tree builder
// that the filesystem domains share. Removal never follows links.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";


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

/**
 * Creates the `tree` entries ({path, kind, target?, content?}) under `root`, in order.
 * @param {string} root
 * @param {unknown} tree
 */
export function buildTree(root, tree) {
  if (!Array.isArray(tree)) throw new TypeError("input.tree must be a list");
  for (const entry of tree) {
    const rel = str(entry?.path, "tree[].path");
    if (rel === "" || rel.startsWith("/") || rel.includes("\0") || rel.split("/").includes("..")) {
      throw new TypeError(`tree path must be relative without '..': ${JSON.stringify(rel)}`);
    }
    const path = join(root, rel);
    mkdirSync(dirname(path), { recursive: true });
    switch (entry.kind) {
      case "dir":
        mkdirSync(path, { recursive: true });
        break;
      case "file":
        writeFileSync(path, entry.content === undefined ? "" : str(entry.content, "tree[].content"));
        break;
      case "symlink":
        symlinkSync(str(entry.target, "tree[].target").replaceAll(PLACEHOLDER, root), path);
        break;
      default:
        throw new TypeError(`unknown tree kind ${JSON.stringify(entry.kind)}`);
    }
  }
}
