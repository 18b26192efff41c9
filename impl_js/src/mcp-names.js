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
/** Lowercase hex digits of SHA-256 in a shortened part or a collision suffix (MCP-4, MCP-8). */
export const HASH_HEX_LEN = 8;
/** Longest server part; a longer normalized server is shortened on its own (MCP-4). */
export const MAX_SERVER_PART_LEN = 32;

const SUFFIX_LEN = 1 + HASH_HEX_LEN; // "_" + hash

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

/** The same server name appears twice in a tool table's input (MCP-8). */
export class DuplicateServerError extends McpNameError {
  /** @param {string} message */
  constructor(message) {
    super("duplicate_server", message);
  }
}

/** The same tool name appears twice in one server's tool list (MCP-8). */
export class DuplicateToolError extends McpNameError {
  /** @param {string} message */
  constructor(message) {
    super("duplicate_tool", message);
  }
}

/** Two entries still share a name after the collision suffixes (MCP-8). */
export class NameCollisionError extends McpNameError {
  /** @param {string} message */
  constructor(message) {
    super("name_collision", message);
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
  const s = serverPart(server); // throws EmptyNameError for an empty server (MCP-2)
  if (tool === "") throw new EmptyNameError("MCP tool name is empty");
  return PREFIX + s + SEPARATOR + shorten(normalizeNamePart(tool), toolRoom(s));
}

/**
 * First HASH_HEX_LEN lowercase hex digits of SHA-256 of `data`.
 * @param {string | Uint8Array} data
 */
function hex(data) {
  return createHash("sha256").update(data).digest("hex").slice(0, HASH_HEX_LEN);
}

/**
 * `part` if it fits in `limit`, else its head, `_` and a hash of all of it (MCP-4).
 * `part` is normalized, so ASCII: UTF-16 lengths are code-point lengths.
 * @param {string} part
 * @param {number} limit
 */
function shorten(part, limit) {
  if (part.length <= limit) return part;
  return part.slice(0, limit - SUFFIX_LEN) + "_" + hex(part);
}

/**
 * Code points left for the tool part after `mcp__<s>__` (at least 25).
 * @param {string} s
 */
function toolRoom(s) {
  return MAX_TOOL_NAME_LEN - PREFIX.length - s.length - SEPARATOR.length;
}

/**
 * The `<S>` of every name of `server`: it depends on the server alone (MCP-4).
 * @param {string} server
 * @returns {string}
 * @throws {EmptyNameError} for an empty server
 */
export function serverPart(server) {
  if (server === "") throw new EmptyNameError("MCP server name is empty");
  return shorten(normalizeNamePart(server), MAX_SERVER_PART_LEN);
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

/** @typedef {{name: string, server: string, tool: string}} ToolEntry */

/** Every tool of every server under a unique name; routes a name back (MCP-8). */
export class ToolTable {
  /** @param {ToolEntry[]} entries */
  constructor(entries) {
    /** @type {readonly ToolEntry[]} */
    this.entries = entries;
    /** @type {Map<string, ToolEntry>} */
    this.byName = new Map(entries.map((e) => [e.name, e]));
  }

  /**
   * The entry named `name`, or null: never a guess from the name's shape.
   * @param {string} name
   * @returns {ToolEntry | null}
   */
  resolve(name) {
    return this.byName.get(name) ?? null;
  }
}

const encoder = new TextEncoder();

/**
 * SHA-256 prefix of (server UTF-8, 0xFF, tool UTF-8); 0xFF never occurs in UTF-8.
 * @param {string} server
 * @param {string} tool
 */
function collisionSuffix(server, tool) {
  const s = encoder.encode(server);
  const t = encoder.encode(tool);
  const bytes = new Uint8Array(s.length + 1 + t.length);
  bytes.set(s, 0);
  bytes[s.length] = 0xff;
  bytes.set(t, s.length + 1);
  return hex(bytes);
}

/**
 * Name every tool of every server, in input order, without two entries sharing a
 * name (MCP-8). Entries whose normalized names coincide all get a suffix derived
 * from their raw server and tool; the server part never changes.
 * @param {Iterable<[string, Iterable<string>]>} servers
 * @returns {ToolTable}
 * @throws {DuplicateServerError | DuplicateToolError | EmptyNameError | NameCollisionError}
 */
export function buildToolTable(servers) {
  /** @type {{server: string, tool: string, s: string, base: string}[]} */
  const raw = [];
  const seenServers = new Set();
  for (const [server, tools] of servers) {
    if (seenServers.has(server)) throw new DuplicateServerError(`server listed twice`);
    seenServers.add(server);
    const s = serverPart(server);
    const seenTools = new Set();
    for (const tool of tools) {
      if (seenTools.has(tool)) throw new DuplicateToolError(`tool listed twice for one server`);
      seenTools.add(tool);
      raw.push({ server, tool, s, base: normalizeToolName(server, tool) });
    }
  }
  /** @type {Map<string, number>} */
  const counts = new Map();
  for (const { base } of raw) counts.set(base, (counts.get(base) ?? 0) + 1);
  const entries = raw.map(({ server, tool, s, base }) => {
    let name = base;
    if ((counts.get(base) ?? 0) > 1) {
      const room = toolRoom(s) - SUFFIX_LEN;
      const head = normalizeNamePart(tool).slice(0, room);
      name = PREFIX + s + SEPARATOR + head + "_" + collisionSuffix(server, tool);
    }
    return { name, server, tool };
  });
  if (new Set(entries.map((e) => e.name)).size !== entries.length) {
    throw new NameCollisionError("two tools still share a name after the collision suffixes");
  }
  return new ToolTable(entries);
}
