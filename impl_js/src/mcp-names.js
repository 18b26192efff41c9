// Model-facing MCP tool names: mcp__<server>__<tool> (HIP-301 §1,
// docs/domains/mcp-normalization.md). Code-point based: an emoji is one `_`.

import { createHash } from "node:crypto";

import { HanzoError } from "./errors.js";

/** Every normalized MCP tool name starts with this (MCP-3). */
export const PREFIX = "mcp__";
/** Between the normalized server and the normalized tool (MCP-3). */
export const SEPARATOR = "__";
/** The model APIs' tool-name limit, ^[a-zA-Z0-9_-]{1,64}$ (MCP-4). */
export const MAX_TOOL_NAME_LEN = 64;
/** Lowercase hex digits of SHA-256 kept in a shortened name (MCP-4). */
export const HASH_HEX_LEN = 8;

const KEEP_LEN = MAX_TOOL_NAME_LEN - 1 - HASH_HEX_LEN;

/** Base of the mcp-normalization contract errors. */
export class McpNameError extends HanzoError {}

/** The server or the tool name is empty (MCP-2). */
export class EmptyNameError extends McpNameError {
  /** @param {string} message */
  constructor(message) {
    super("empty_name", message);
  }
}

/** Not a name normalizeToolName could have produced the shape of (MCP-5). */
export class NotMcpNameError extends McpNameError {
  /** @param {string} message */
  constructor(message) {
    super("not_mcp_name", message);
  }
}

/**
 * @param {string} ch one code point
 * @returns {boolean}
 */
function isAllowed(ch) {
  return (
    (ch >= "A" && ch <= "Z") ||
    (ch >= "a" && ch <= "z") ||
    (ch >= "0" && ch <= "9") ||
    ch === "_" ||
    ch === "-"
  );
}

/**
 * Replace every code point outside [A-Za-z0-9_-] with one `_` (MCP-1).
 * Iterates code points, so a surrogate pair is one `_`; no case folding, no normalization.
 * @param {string} part
 * @returns {string}
 */
export function normalizeNamePart(part) {
  let out = "";
  for (const ch of part) {
    out += isAllowed(ch) ? ch : "_";
  }
  return out;
}

/**
 * The model-facing name of `tool` on MCP server `server` (MCP-2..MCP-4).
 * @param {string} server
 * @param {string} tool
 * @returns {string}
 * @throws {EmptyNameError} if either argument is empty
 */
export function normalizeToolName(server, tool) {
  if (server === "") throw new EmptyNameError("MCP server name is empty");
  if (tool === "") throw new EmptyNameError("MCP tool name is empty");
  const full = PREFIX + normalizeNamePart(server) + SEPARATOR + normalizeNamePart(tool);
  // `full` is ASCII: its UTF-16 length is its length in code points.
  if (full.length <= MAX_TOOL_NAME_LEN) return full;
  const digest = createHash("sha256").update(full, "utf8").digest("hex");
  return full.slice(0, KEEP_LEN) + "_" + digest.slice(0, HASH_HEX_LEN);
}

/**
 * @typedef {object} McpToolRef
 * @property {string} server the normalized server (possibly a prefix of it, MCP-7)
 * @property {string} tool the normalized tool (possibly shortened, MCP-7)
 */

/**
 * Split `mcp__<server>__<tool>` at the first `__` after a non-empty server (MCP-6).
 * @param {string} name
 * @returns {McpToolRef}
 * @throws {NotMcpNameError} for anything normalizeToolName cannot produce the shape of (MCP-5)
 */
export function parseToolName(name) {
  let count = 0;
  for (const ch of name) {
    if (!isAllowed(ch)) {
      throw new NotMcpNameError("contains a character outside [A-Za-z0-9_-]");
    }
    count += 1;
  }
  // All ASCII from here on, so UTF-16 indices are code-point indices.
  if (count === 0 || count > MAX_TOOL_NAME_LEN) {
    throw new NotMcpNameError(`not 1..${MAX_TOOL_NAME_LEN} characters long`);
  }
  if (!name.startsWith(PREFIX)) throw new NotMcpNameError(`does not start with ${PREFIX}`);
  const rest = name.slice(PREFIX.length);
  const cut = rest.indexOf(SEPARATOR, 1); // the server is at least one character
  if (cut < 0) throw new NotMcpNameError(`no ${SEPARATOR} between a server and a tool`);
  const tool = rest.slice(cut + SEPARATOR.length);
  if (tool === "") throw new NotMcpNameError("empty tool");
  return { server: rest.slice(0, cut), tool };
}
