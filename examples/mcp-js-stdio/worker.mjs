// A docs/protocol.md worker around @modelcontextprotocol/sdk 1.32.2 (the official MCP
// TypeScript SDK) for the mcp-stdio domain:
//
//     npm ci --prefix examples/mcp-js-stdio
//     hanzo-conformance run --worker mcp-js='node examples/mcp-js-stdio/worker.mjs' \
//         --platform mcp-js --domain mcp-stdio \
//         --expectations examples/mcp-js-stdio/expectations.json
//
// It drives the SDK's StdioClientTransport without a child process:
// - decode: each chunk goes through the transport's own ReadBuffer and
//   processReadBuffer(), exactly the two calls its stdout 'data' handler makes (an
//   append that throws is reported through onerror and, as that handler does, closes
//   the transport: nothing more is read). Each onmessage is a message; each onerror an
//   invalid line, reported as parse_error (the SDK's one form for every bad line).
//   The SDK has no end-of-stream step, so `eof` changes nothing.
// - encode: the transport's send(), its stdin replaced by a recorder.
// - spawn-env: getDefaultEnvironment() with the case's parent environment as
//   process.env, merged with env as start() merges them; Node's spawn refuses a NUL in
//   an argument or in the environment (ERR_INVALID_ARG_VALUE), checked here by hand, as
//   the worker does not spawn the case's command.
// - session: skip (the lifecycle is the Client class's, not driven here).
// Nothing is corrected: the ledger next to this file records the differences.
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";

import { StdioClientTransport, getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";

const installed = new URL("./node_modules/@modelcontextprotocol/sdk/package.json", import.meta.url);
const { version } = JSON.parse(readFileSync(installed, "utf8"));

/** @param {{chunks: string[], encoding?: string}} input */
function byteChunks(input) {
  if (input.encoding !== "bytes") return input.chunks.map((c) => Buffer.from(c, "utf8"));
  return input.chunks.map((c) => Buffer.from(Uint8Array.from(c, (ch) => ch.charCodeAt(0))));
}

/** @param {Record<string, any>} m */
function message(m) {
  if ("method" in m) {
    const out = "id" in m ? { type: "request", id: m.id, method: m.method } : { type: "notification", method: m.method };
    if ("params" in m) out.params = m.params;
    return out;
  }
  if ("error" in m) {
    const error = { code: m.error.code, message: m.error.message };
    if ("data" in m.error) error.data = m.error.data;
    return { type: "error", id: m.id ?? null, error };
  }
  return { type: "response", id: m.id, result: m.result };
}

/** @param {any} input */
function decode(input) {
  const transport = new StdioClientTransport({ command: "replay" });
  const messages = [];
  let closed = false;
  transport.onmessage = (m) => messages.push(message(m));
  transport.onerror = () => messages.push({ type: "invalid", reason: "parse_error" });
  for (const chunk of byteChunks(input)) {
    if (closed) break;
    try {
      transport._readBuffer.append(chunk);
      transport.processReadBuffer();
    } catch (error) {
      transport.onerror(error);
      closed = true; // the 'data' handler closes the transport here
    }
  }
  return { messages, writes: [] };
}

/** @param {any} input */
async function encode(input) {
  const transport = new StdioClientTransport({ command: "replay" });
  let line = "";
  transport._process = { stdin: { write: (/** @type {string} */ s) => ((line += s), true) } };
  const m = { jsonrpc: "2.0", ...input.message };
  if (input.params_json !== undefined) m.params = JSON.parse(input.params_json);
  await transport.send(m);
  return { line };
}

/** @param {any} input */
function spawnEnv(input) {
  const { command, args = [], env } = input.config;
  const saved = process.env;
  process.env = { ...input.parent_env };
  let merged;
  try {
    merged = { ...getDefaultEnvironment(), ...env };
  } finally {
    process.env = saved;
  }
  const argv = [command[0] ?? "", ...command.slice(1), ...args];
  if (argv.some((a) => a.includes("\0")) || Object.entries(merged).some(([k, v]) => (k + v).includes("\0"))) {
    return { error: { code: "nul_byte", message: "ERR_INVALID_ARG_VALUE: must be a string without null bytes" } };
  }
  return { output: { argv, env: merged } };
}

/** @param {Record<string, any>} request */
async function answer(request) {
  if (request.cmd === "start") {
    const language = `javascript (node ${process.versions.node})`;
    return { ok: true, implementation: { name: "@modelcontextprotocol/sdk", version, language, domains: ["mcp-stdio"] } };
  }
  const id = typeof request.id === "string" ? request.id : "";
  if (request.domain !== "mcp-stdio" || typeof request.input !== "object") {
    return { id, crash: { message: "not an mcp-stdio run request", detail: "" } };
  }
  const input = request.input;
  try {
    if (input.op === "decode") return { id, output: decode(input) };
    if (input.op === "encode") return { id, output: await encode(input) };
    if (input.op === "spawn-env") return { id, ...spawnEnv(input) };
    return { id, skip: { reason: "the lifecycle is the Client class's; this worker drives StdioClientTransport" } };
  } catch (e) {
    const error = /** @type {Error} */ (e);
    return { id, crash: { message: String(error), detail: error.stack ?? "" } };
  }
}

for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  let request;
  try {
    request = JSON.parse(line);
  } catch (e) {
    process.stdout.write(`${JSON.stringify({ id: "", crash: { message: String(e), detail: "" } })}\n`);
    continue;
  }
  if (request.cmd === "stop") break;
  process.stdout.write(`${JSON.stringify(await answer(request))}\n`);
}
