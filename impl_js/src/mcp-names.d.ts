import { HanzoError } from "./errors.js";

/** Every normalized MCP tool name starts with this (MCP-3). */
export declare const PREFIX: "mcp__";
/** Between the normalized server and the normalized tool (MCP-3). */
export declare const SEPARATOR: "__";
/** The model APIs' tool-name limit (MCP-4). */
export declare const MAX_TOOL_NAME_LEN: 64;
/** Lowercase hex digits of SHA-256 in a shortened part or a collision suffix (MCP-4, MCP-8). */
export declare const HASH_HEX_LEN: 8;
/** Longest server part; a longer normalized server is shortened on its own (MCP-4). */
export declare const MAX_SERVER_PART_LEN: 32;

/** Base of the mcp-normalization contract errors. */
export declare class McpNameError extends HanzoError {}

/** The server or the tool name is empty (MCP-2); code `empty_name`. */
export declare class EmptyNameError extends McpNameError {
  constructor(message: string);
  readonly code: "empty_name";
}

/** Not a name normalizeToolName could have produced the shape of (MCP-5); code `not_mcp_name`. */
export declare class NotMcpNameError extends McpNameError {
  constructor(message: string);
  readonly code: "not_mcp_name";
}

/** The same server name appears twice in a tool table's input (MCP-8); code `duplicate_server`. */
export declare class DuplicateServerError extends McpNameError {
  constructor(message: string);
  readonly code: "duplicate_server";
}

/** The same tool appears twice in one server's list (MCP-8); code `duplicate_tool`. */
export declare class DuplicateToolError extends McpNameError {
  constructor(message: string);
  readonly code: "duplicate_tool";
}

/** Two entries still share a name after the collision suffixes (MCP-8); code `name_collision`. */
export declare class NameCollisionError extends McpNameError {
  constructor(message: string);
  readonly code: "name_collision";
}

/** The two normalized pieces of an MCP tool name (MCP-6, MCP-7). */
export interface McpToolRef {
  server: string;
  tool: string;
}

/** Replace every code point outside [A-Za-z0-9_-] with one `_` (MCP-1). */
export declare function normalizeNamePart(part: string): string;

/** The `<S>` of every name of `server`, shortened past 32 characters (MCP-4). Throws EmptyNameError. */
export declare function serverPart(server: string): string;

/** `mcp__<S>__<T>`, each part shortened with a SHA-256 suffix when too long (MCP-2..MCP-4). Throws EmptyNameError. */
export declare function normalizeToolName(server: string, tool: string): string;

/** Split at the first `__` after a non-empty server (MCP-5..MCP-7). Throws NotMcpNameError. */
export declare function parseToolName(name: string): McpToolRef;

/** One row of a tool table: the model-facing name and the raw server and tool (MCP-8). */
export interface ToolEntry {
  name: string;
  server: string;
  tool: string;
}

/** Every tool of every server under a unique name (MCP-8). */
export declare class ToolTable {
  constructor(entries: ToolEntry[]);
  readonly entries: readonly ToolEntry[];
  /** The entry named `name`, or null. */
  resolve(name: string): ToolEntry | null;
}

/** Name every tool of every server without collisions (MCP-8). */
export declare function buildToolTable(servers: Iterable<[string, Iterable<string>]>): ToolTable;
