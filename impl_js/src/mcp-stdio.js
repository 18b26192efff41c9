// The MCP client's stdio transport (HIP-301 §1; contract: docs/domains/mcp-stdio.md).
// StdioMessageDecoder: stdout bytes to messages (STDIO-1..9); replyFor: what the
// client writes back (STDIO-10); encodeMessage: one message, one line (STDIO-11);
// McpClientSession: lifecycle, id matching, tool table (STDIO-12..15); serverProcess:
// the server's argv and environment (STDIO-16, 17).
import { HanzoError } from "./errors.js";
import { buildToolTable, McpNameError } from "./mcp-names.js";

export const DEFAULT_MAX_LINE_BYTES = 16 * 1024 * 1024;
export const PROTOCOL_VERSION = "2025-06-18";
export const SUPPORTED_PROTOCOL_VERSIONS = ["2025-06-18", "2025-03-26", "2024-11-05"];
export const INHERITED_ENV_VARS = ["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"];
const MAX_DEPTH = 100;

/** A message that cannot be one line of UTF-8 JSON (STDIO-11d, 11e). */
export class EncodeError extends HanzoError {}
/** A configuration that cannot start a process (STDIO-16, 17c). */
export class SpawnError extends HanzoError {}

/** @typedef {Record<string, any>} McpMessage */

const LONE_SURROGATE = /\p{Cs}/u;
/** @param {string} s */
const isWellFormed = (s) => !LONE_SURROGATE.test(s);

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
// What could be a lone surrogate escape (then every string is checked).
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

/**
 * The id `value` is (Terms), or undefined.
 * @param {unknown} value
 * @returns {string | number | undefined}
 */
export function asId(value) {
  if (typeof value === "string") return value;
  if (typeof value === "number" && Number.isSafeInteger(value)) return value === 0 ? 0 : value;
  return undefined;
}

/**
 * No lone surrogate in any string or key. A decoded value meets it only after
 * outOfRange passed it: the depth limit (which bounds this walk too) and infinite numbers
 * are outOfRange's. encodeMessage asks it of the whole message before writing.
 * @param {unknown} value
 * @returns {boolean}
 */
function wellFormed(value) {
  if (typeof value === "string") return isWellFormed(value);
  if (value === null || typeof value !== "object") return true;
  if (Array.isArray(value)) return value.every(wellFormed);
  for (const [k, v] of Object.entries(value)) {
    if (!isWellFormed(k) || !wellFormed(v)) return false;
  }
  return true;
}

/**
 * Whether a parsed value nests arrays and objects more than MAX_DEPTH deep or holds a
 * number past binary64 (JSON.parse turns 1e400 into Infinity).
 * @param {unknown} value
 * @param {number} depth
 * @returns {boolean}
 */
function outOfRange(value, depth) {
  if (typeof value === "number") return value === Infinity || value === -Infinity;
  if (value === null || typeof value !== "object") return false;
  if (depth >= MAX_DEPTH) return true;
  if (Array.isArray(value)) {
    for (const item of value) if (outOfRange(item, depth + 1)) return true;
    return false;
  }
  const o = /** @type {Record<string, unknown>} */ (value);
  for (const key in o) if (outOfRange(o[key], depth + 1)) return true;
  return false;
}

/** @param {string} reason */
const invalid = (reason) => ({ type: "invalid", reason });

/**
 * @param {any} o
 * @param {string} k
 */
const has = (o, k) => Object.prototype.hasOwnProperty.call(o, k);

/**
 * STDIO-7c..8: one parsed JSON text to a message.
 * @param {unknown} value
 * @returns {McpMessage}
 */
function classify(value) {
  if (Array.isArray(value)) return invalid("batch");
  if (value === null || typeof value !== "object") return invalid("not_an_object");
  /** @type {Record<string, any>} */
  const o = /** @type {any} */ (value);
  const jsonrpcOk = o.jsonrpc === "2.0" && has(o, "jsonrpc");
  if (has(o, "method")) {
    const id = has(o, "id") ? asId(o.id) : undefined;
    const withId = (/** @type {McpMessage} */ m) => {
      if (typeof o.method === "string" && id !== undefined) m.id = id;
      return m;
    };
    if (!jsonrpcOk) return withId(invalid("bad_jsonrpc"));
    if (typeof o.method !== "string") return invalid("bad_method");
    const params = o.params;
    if (has(o, "params") && (params === null || typeof params !== "object" || Array.isArray(params))) {
      return withId(invalid("bad_params"));
    }
    /** @type {McpMessage} */
    let message;
    if (!has(o, "id")) message = { type: "notification", method: o.method };
    else if (id === undefined) return invalid("bad_id");
    else message = { type: "request", id, method: o.method };
    if (has(o, "params")) message.params = params;
    return message;
  }
  if (!jsonrpcOk) return invalid("bad_jsonrpc");
  if (!has(o, "id")) return invalid("bad_id");
  const hasResult = has(o, "result");
  const hasError = has(o, "error");
  if (hasResult && hasError) return invalid("result_and_error");
  if (!hasResult && !hasError) return invalid("no_result_or_error");
  const id = asId(o.id);
  if (hasError) {
    const error = o.error;
    if (error === null || typeof error !== "object" || Array.isArray(error)) return invalid("bad_error");
    if (!Number.isSafeInteger(error.code) || typeof error.message !== "string") return invalid("bad_error");
    if (id === undefined && o.id !== null) return invalid("bad_id");
    /** @type {McpMessage} */
    const reported = { code: error.code === 0 ? 0 : error.code, message: error.message };
    if (has(error, "data")) reported.data = error.data;
    return { type: "error", id: id === undefined ? null : id, error: reported };
  }
  if (id === undefined) return invalid("bad_id");
  return { type: "response", id, result: o.result };
}

/**
 * One line's bytes (no LF; BOM already dropped) to its message; null when blank.
 * @param {Uint8Array} line
 * @returns {McpMessage | null}
 */
export function decodeLine(line) {
  let blank = true;
  for (let i = 0; i < line.length; i++) {
    const b = line[i];
    if (b !== 0x20 && b !== 0x09 && b !== 0x0d && b !== 0x0a) {
      blank = false;
      break;
    }
  }
  if (blank) return null;
  let text;
  try {
    text = utf8.decode(line);
  } catch {
    return invalid("invalid_utf8");
  }
  let value;
  try {
    value = JSON.parse(text);
  } catch {
    return invalid("parse_error");
  }
  if (outOfRange(value, 0)) return invalid("parse_error");
  if (SURROGATE_ESCAPE.test(text) && !wellFormed(value)) return invalid("parse_error");
  return classify(value);
}

/** Stdout bytes in, messages out; lines end at LF only (STDIO-2). */
export class StdioMessageDecoder {
  /** @param {{maxLineBytes?: number}} [options] */
  constructor({ maxLineBytes = DEFAULT_MAX_LINE_BYTES } = {}) {
    this.maxLineBytes = maxLineBytes;
    /** @type {Uint8Array[]} */
    this.parts = [];
    this.held = 0;
    this.overlong = false;
    this.firstLine = true;
  }

  /** @param {Uint8Array} piece */
  hold(piece) {
    if (this.overlong || piece.length === 0) return;
    if (this.held + piece.length > this.maxLineBytes) {
      this.overlong = true; // STDIO-6: stop keeping this line's bytes
      this.parts = [];
      this.held = 0;
      return;
    }
    this.parts.push(piece);
    this.held += piece.length;
  }

  /** @returns {McpMessage | null} */
  endLine() {
    const { overlong, parts } = this;
    this.overlong = false;
    this.parts = [];
    this.held = 0;
    const first = this.firstLine;
    this.firstLine = false;
    if (overlong) return invalid("line_too_long");
    let line;
    if (parts.length === 1) line = parts[0];
    else {
      let size = 0;
      for (const p of parts) size += p.length;
      line = new Uint8Array(size);
      let at = 0;
      for (const p of parts) {
        line.set(p, at);
        at += p.length;
      }
    }
    if (first && line.length >= 3 && line[0] === 0xef && line[1] === 0xbb && line[2] === 0xbf) {
      line = line.subarray(3); // STDIO-3
    }
    return decodeLine(line);
  }

  /**
   * The messages whose line ended in `chunk`.
   * @param {Uint8Array} chunk
   * @returns {McpMessage[]}
   */
  feed(chunk) {
    /** @type {McpMessage[]} */
    const out = [];
    let start = 0;
    for (;;) {
      const end = chunk.indexOf(0x0a, start);
      if (end < 0) {
        this.hold(chunk.subarray(start));
        return out;
      }
      this.hold(chunk.subarray(start, end));
      const message = this.endLine();
      if (message !== null) out.push(message);
      start = end + 1;
    }
  }

  /**
   * The end of the stream: held bytes are a final line (STDIO-5b).
   * @returns {McpMessage[]}
   */
  close() {
    if (!this.overlong && this.parts.length === 0) return [];
    const message = this.endLine();
    return message === null ? [] : [message];
  }
}

/**
 * What the client writes back for one decoded message (STDIO-10), or null.
 * @param {McpMessage} message
 * @returns {McpMessage | null}
 */
export function replyFor(message) {
  if (message.type === "request") {
    if (message.method === "ping") return { jsonrpc: "2.0", id: message.id, result: {} };
    return { jsonrpc: "2.0", id: message.id, error: { code: -32601, message: "Method not found" } };
  }
  if (message.type === "invalid" && message.id !== undefined) {
    return { jsonrpc: "2.0", id: message.id, error: { code: -32600, message: "Invalid Request" } };
  }
  return null;
}

// --- encoding ---------------------------------------------------------------------

/** @type {Record<string, string>} */
const ESCAPES = { '"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r" };
// eslint-disable-next-line no-control-regex
const NEEDS_ESCAPE = /["\\\u0000-\u001f\u2028\u2029]/g;

/** @param {string} text well-formed: encodeMessage checked the whole message first */
function writeString(text) {
  return (
    '"' +
    text.replace(NEEDS_ESCAPE, (c) => ESCAPES[c] ?? "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0")) +
    '"'
  );
}

/**
 * Code point order (UTF-16 order differs for astral against U+E000..U+FFFF).
 * @param {string} a
 * @param {string} b
 */
function compareCodePoints(a, b) {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = /** @type {number} */ (a.codePointAt(i));
    const y = /** @type {number} */ (b.codePointAt(j));
    if (x !== y) return x < y ? -1 : 1;
    i += x > 0xffff ? 2 : 1;
    j += y > 0xffff ? 2 : 1;
  }
  const restA = a.length - i;
  const restB = b.length - j;
  return restA === restB ? 0 : restA < restB ? -1 : 1;
}

/**
 * @param {unknown} value
 * @returns {string}
 */
function writeValue(value) {
  if (value === null) return "null";
  if (value === true) return "true";
  if (value === false) return "false";
  if (typeof value === "string") return writeString(value);
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new EncodeError("invalid_number", "a number past binary64");
    return String(value); // Number::toString; -0 is "0" (STDIO-11e)
  }
  if (Array.isArray(value)) return "[" + value.map(writeValue).join(",") + "]";
  if (typeof value === "object") {
    const keys = Object.keys(value).sort(compareCodePoints);
    const obj = /** @type {Record<string, unknown>} */ (value);
    return "{" + keys.map((k) => writeString(k) + ":" + writeValue(obj[k])).join(",") + "}";
  }
  throw new TypeError(`not a JSON value: ${typeof value}`);
}

/**
 * One request (`id` given) or notification as one line, LF included (STDIO-11).
 * @param {{id?: string | number, method: string, params?: object}} message
 * @returns {string}
 */
export function encodeMessage(message) {
  // STDIO-11d before 11e: a lone surrogate anywhere in the message, before any number.
  if (!wellFormed(message)) throw new EncodeError("invalid_string", "a lone surrogate cannot be UTF-8");
  let out = '{"jsonrpc":"2.0"';
  if (message.id !== undefined) out += ',"id":' + writeValue(message.id);
  out += ',"method":' + writeString(message.method);
  if (message.params !== undefined) out += ',"params":' + writeValue(message.params);
  return out + "}\n";
}

// --- the session ------------------------------------------------------------------

/** Lifecycle, id matching and the tool table, without I/O (STDIO-12..15). */
export class McpClientSession {
  /** @param {{maxLineBytes?: number, listToolsServer?: string | null}} [options] */
  constructor({ maxLineBytes = DEFAULT_MAX_LINE_BYTES, listToolsServer = null } = {}) {
    this.decoder = new StdioMessageDecoder({ maxLineBytes });
    this.server = listToolsServer;
    /** @type {McpMessage[]} */
    this.writes = [];
    this.taken = 0;
    /** @type {McpMessage[]} */
    this.events = [];
    /** @type {{name: string, tool: string}[][]} */
    this.tables = [];
    /** @type {"initializing" | "ready" | "failed" | "closed"} */
    this.state = "initializing";
    this.nextId = 1;
    /** @type {Map<number, number>} written id -> handle */
    this.pending = new Map();
    /** @type {Set<number>} */
    this.answered = new Set();
    /** @type {(McpMessage | null)[]} */
    this.outcomes = [];
    /** @type {[string, object | undefined][]} */
    this.calls = [];
    /** @type {number[]} */
    this.queued = [];
    /** @type {{pending: number, seen: Set<string>, names: string[], stale: boolean} | null} */
    this.listing = null;
    const init = this.newHandle("initialize", {
      capabilities: {},
      clientInfo: { name: "hanzo-mcp-stdio", version: "1.0.0" },
      protocolVersion: PROTOCOL_VERSION,
    });
    this.send(init);
  }

  /**
   * @param {string} method
   * @param {object | undefined} params
   */
  newHandle(method, params) {
    this.outcomes.push(null);
    this.calls.push([method, params]);
    return this.outcomes.length - 1;
  }

  /** @param {number} handle */
  send(handle) {
    const id = this.nextId++;
    const [method, params] = this.calls[handle];
    /** @type {McpMessage} */
    const write = { jsonrpc: "2.0", id, method };
    if (params !== undefined) write.params = params;
    this.writes.push(write);
    this.pending.set(id, handle);
  }

  /**
   * Make a request; returns its handle for outcome(). Queued until ready.
   * @param {string} method
   * @param {object} [params]
   */
  request(method, params) {
    const handle = this.newHandle(method, params);
    if (this.state === "ready") this.send(handle);
    else if (this.state === "initializing") this.queued.push(handle);
    return handle;
  }

  /**
   * STDIO-13e's outcome; handle 0 is initialize.
   * @param {number} handle
   * @returns {McpMessage}
   */
  outcome(handle) {
    const done = this.outcomes[handle];
    if (done !== null) return done;
    for (const h of this.pending.values()) if (h === handle) return { unanswered: true };
    return { not_sent: true };
  }

  /** The writes made since the last call. */
  takeWrites() {
    const out = this.writes.slice(this.taken);
    this.taken = this.writes.length;
    return out;
  }

  /** @param {Uint8Array} chunk */
  feed(chunk) {
    for (const message of this.decoder.feed(chunk)) this.receive(message);
  }

  close() {
    for (const message of this.decoder.close()) this.receive(message);
    if (this.state !== "failed") this.state = "closed";
  }

  /** @param {McpMessage} message */
  receive(message) {
    if ((message.type === "response" || message.type === "error") && message.id !== null) {
      const id = message.id;
      const handle = typeof id === "number" ? this.pending.get(id) : undefined;
      if (handle === undefined) {
        const reason = typeof id === "number" && this.answered.has(id) ? "already_answered" : "unknown_id";
        this.events.push({ type: "unmatched", id, reason });
        return;
      }
      this.pending.delete(id);
      this.answered.add(id);
      this.answer(handle, message);
      return;
    }
    this.events.push(message);
    const reply = replyFor(message);
    if (reply !== null && this.state !== "failed") this.writes.push(reply);
    if (
      message.type === "notification" &&
      message.method === "notifications/tools/list_changed" &&
      this.server !== null &&
      this.state === "ready"
    ) {
      if (this.listing !== null) this.listing.stale = true;
      else this.startListing();
    }
  }

  /**
   * @param {number} handle
   * @param {McpMessage} message
   */
  answer(handle, message) {
    if (this.listing !== null && this.listing.pending === handle) {
      this.page(message);
      return;
    }
    /** @type {McpMessage} */
    let outcome = message.type === "response" ? { result: message.result } : { error: message.error };
    if (handle === 0) outcome = this.initialized(outcome);
    this.outcomes[handle] = outcome;
  }

  /**
   * @param {McpMessage} outcome
   * @returns {McpMessage}
   */
  initialized(outcome) {
    if ("error" in outcome) {
      this.state = "failed";
      return outcome;
    }
    const result = outcome.result;
    const version =
      result !== null && typeof result === "object" && !Array.isArray(result) ? result.protocolVersion : undefined;
    if (!SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
      this.state = "failed";
      return { failed: "unsupported_protocol_version" };
    }
    this.state = "ready";
    this.writes.push({ jsonrpc: "2.0", method: "notifications/initialized" });
    if (this.server !== null) this.startListing();
    const queued = this.queued;
    this.queued = [];
    for (const handle of queued) this.send(handle);
    return outcome;
  }

  startListing() {
    const handle = this.newHandle("tools/list", undefined);
    this.send(handle);
    this.listing = { pending: handle, seen: new Set(), names: [], stale: false };
  }

  /** @param {string} reason */
  failListing(reason) {
    this.listing = null;
    this.events.push({ type: "listing_failed", reason });
  }

  /** @param {McpMessage} message */
  page(message) {
    const listing = /** @type {NonNullable<McpClientSession["listing"]>} */ (this.listing);
    if (listing.stale) {
      this.startListing(); // STDIO-15e: stale pages are discarded
      return;
    }
    if (message.type === "error") return this.failListing("tools_list_error");
    const result = message.result;
    const isObject = result !== null && typeof result === "object" && !Array.isArray(result);
    const tools = isObject ? result.tools : undefined;
    if (
      !Array.isArray(tools) ||
      !tools.every((t) => t !== null && typeof t === "object" && !Array.isArray(t) && typeof t.name === "string")
    ) {
      return this.failListing("bad_tools_page");
    }
    const cursor = has(result, "nextCursor") ? result.nextCursor : null;
    if (cursor !== null && typeof cursor !== "string") return this.failListing("bad_tools_page");
    for (const t of tools) listing.names.push(t.name);
    if (cursor === null) {
      this.listing = null;
      this.publish(listing.names);
    } else if (listing.seen.has(cursor)) {
      this.failListing("cursor_loop");
    } else {
      listing.seen.add(cursor);
      const handle = this.newHandle("tools/list", { cursor });
      this.send(handle);
      listing.pending = handle;
    }
  }

  /** @param {string[]} names */
  publish(names) {
    let table;
    try {
      table = buildToolTable([[/** @type {string} */ (this.server), names]]);
    } catch (e) {
      if (!(e instanceof McpNameError)) throw e;
      this.events.push({ type: "listing_failed", reason: e.code });
      return;
    }
    const entries = [...table.entries].sort((a, b) => compareCodePoints(a.tool, b.tool));
    this.tables.push(entries.map((e) => ({ name: e.name, tool: e.tool })));
  }
}

// --- the server's process ---------------------------------------------------------

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The server's argv and exact environment (STDIO-16, 17).
 * @param {{command: string[], args?: string[], env?: Record<string, string>}} config
 * @param {Record<string, string>} parentEnv
 * @returns {{argv: string[], env: Record<string, string>}}
 * @throws {SpawnError}
 */
export function serverProcess(config, parentEnv) {
  const argv = [...config.command, ...(config.args ?? [])];
  if (config.command.length === 0 || config.command[0] === "") {
    throw new SpawnError("empty_command", "no program to start");
  }
  if (argv.some((a) => a.includes("\0"))) throw new SpawnError("nul_byte", "a NUL in an argument");
  /** @type {Record<string, string>} */
  const env = {};
  for (const name of INHERITED_ENV_VARS) {
    if (Object.prototype.hasOwnProperty.call(parentEnv, name) && !parentEnv[name].startsWith("()")) {
      env[name] = parentEnv[name];
    }
  }
  for (const [name, value] of Object.entries(config.env ?? {})) {
    if (!ENV_NAME.test(name)) throw new SpawnError("invalid_env_name", `not an environment name: ${name}`);
    if (value.includes("\0")) throw new SpawnError("nul_byte", `a NUL in the value of ${name}`);
    env[name] = value;
  }
  return { argv, env };
}
