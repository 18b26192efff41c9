// mcp-stdio JSON layer: decode, session, encode and spawn-env (docs/domains/mcp-stdio.md).
import {
  DEFAULT_MAX_LINE_BYTES,
  McpClientSession,
  StdioMessageDecoder,
  encodeMessage,
  replyFor,
  serverProcess,
} from "../src/mcp-stdio.js";

const utf8 = new TextEncoder();

/**
 * The bytes of each chunk: UTF-8, or with `"encoding": "bytes"` one byte per code point.
 * @param {{chunks: string[], encoding?: "bytes"}} input
 * @returns {Uint8Array[]}
 */
function chunkBytes(input) {
  return input.chunks.map((chunk) => {
    if (input.encoding !== "bytes") return utf8.encode(chunk);
    const bytes = new Uint8Array(chunk.length);
    for (let i = 0; i < chunk.length; i++) bytes[i] = chunk.charCodeAt(i);
    return bytes;
  });
}

/** @param {any} input */
function decode(input) {
  const decoder = new StdioMessageDecoder({ maxLineBytes: input.max_line_bytes ?? DEFAULT_MAX_LINE_BYTES });
  const messages = [];
  for (const chunk of chunkBytes(input)) messages.push(...decoder.feed(chunk));
  if (input.eof === true) messages.push(...decoder.close());
  const writes = [];
  for (const m of messages) {
    const reply = replyFor(m);
    if (reply !== null) writes.push(reply);
  }
  return { messages, writes };
}

/** @param {any} input */
function session(input) {
  const session = new McpClientSession({
    maxLineBytes: input.max_line_bytes ?? DEFAULT_MAX_LINE_BYTES,
    listToolsServer: input.list_tools?.server ?? null,
  });
  const handles = (input.calls ?? []).map((/** @type {any} */ c) => session.request(c.method, c.params));
  for (const chunk of chunkBytes(input)) session.feed(chunk);
  if (input.eof === true) session.close();
  /** @type {Record<string, unknown>} */
  const out = {
    writes: session.writes,
    initialize: session.outcome(0),
    calls: handles.map((/** @type {number} */ h) => session.outcome(h)),
    events: session.events,
  };
  if (input.list_tools !== undefined) out.tables = session.tables;
  return out;
}

/** @param {any} input */
function encode(input) {
  const message = { ...input.message };
  if (input.params_json !== undefined) message.params = JSON.parse(input.params_json);
  return { line: encodeMessage(message) };
}

/** @param {any} input */
function spawnEnv(input) {
  return serverProcess(input.config, input.parent_env);
}

/** @type {Record<string, (input: any) => unknown>} */
const OPS = { decode, session, encode, "spawn-env": spawnEnv };

/** @param {any} input */
export function run(input) {
  return OPS[input.op](input);
}
