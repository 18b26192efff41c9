import { HanzoError } from "./errors.js";

/** Every normalized MCP tool name starts with this (MCP-3). */
export declare const PREFIX: "mcp__";
/** Between the normalized server and the normalized tool (MCP-3). */
export declare const SEPARATOR: "__";
/** The model APIs' tool-name limit (MCP-4). */
export declare const MAX_TOOL_NAME_LEN: 64;
/** Lowercase hex digits of SHA-256 kept in a shortened name (MCP-4). */
export declare const HASH_HEX_LEN: 8;

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

/** The two normalized pieces of an MCP tool name (MCP-6, MCP-7). */
export interface McpToolRef {
  server: string;
  tool: string;
}

/** Replace every code point outside [A-Za-z0-9_-] with one `_` (MCP-1). */
export declare function normalizeNamePart(part: string): string;

/** `mcp__<server>__<tool>`, shortened with a SHA-256 suffix past 64 characters (MCP-2..MCP-4). Throws EmptyNameError. */
export declare function normalizeToolName(server: string, tool: string): string;

/** Split at the first `__` after a non-empty server (MCP-5..MCP-7). Throws NotMcpNameError. */
export declare function parseToolName(name: string): McpToolRef;
