// Library-level checks of the MCP stdio transport that the JSON vectors cannot express:
// members that are absent rather than undefined and -0 against 0 (the JSON layer's output
// is JSON text, which has neither), requests made once the session is ready, take_writes
// (the JSON layer reads every write at the end) and the session's state after close.
import { test } from "node:test";
import assert from "node:assert/strict";
import { McpClientSession, StdioMessageDecoder } from "../src/mcp-stdio.js";

const bytes = (/** @type {string} */ text) => new TextEncoder().encode(text);

/** @param {string} text */
function decode(text) {
  const decoder = new StdioMessageDecoder();
  return [...decoder.feed(bytes(text)), ...decoder.close()];
}

const INITIALIZE_RESULT = '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18"}}\n';
const INITIALIZE_ERROR = '{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"no"}}\n';

test("a message has only the members its line has (STDIO-8a, 8b, 8c)", () => {
  // The strict deepEqual tells an absent member from one set to undefined.
  assert.deepEqual(decode('{"jsonrpc":"2.0","method":"n"}\n'), [{ type: "notification", method: "n" }]);
  assert.deepEqual(decode('{"jsonrpc":"1.0","method":"n"}\n'), [{ type: "invalid", reason: "bad_jsonrpc" }]);
  assert.deepEqual(decode('{"jsonrpc":"2.0","id":3,"error":{"code":7,"message":"m"}}\n'), [
    { type: "error", id: 3, error: { code: 7, message: "m" } },
  ]);
});

test("-0 as an id or an error code is reported as 0 (STDIO-8d)", () => {
  const [response, error] = decode(
    '{"jsonrpc":"2.0","id":-0,"result":1}\n{"jsonrpc":"2.0","id":-0.0,"error":{"code":-0,"message":"m"}}\n',
  );
  assert.ok(Object.is(response.id, 0));
  assert.ok(Object.is(error.id, 0));
  assert.ok(Object.is(error.error.code, 0));
});

test("a request without params is written without a params member (STDIO-12b, 15a)", () => {
  const session = new McpClientSession({ listToolsServer: "fs" });
  session.feed(bytes(INITIALIZE_RESULT));
  assert.deepEqual(session.writes.at(-1), { jsonrpc: "2.0", id: 2, method: "tools/list" });
});

test("a request made once the session is ready is written at once", () => {
  const session = new McpClientSession();
  session.feed(bytes(INITIALIZE_RESULT));
  const handle = session.request("tools/call", { name: "t" });
  assert.deepEqual(session.writes.at(-1), { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "t" } });
  assert.deepEqual(session.outcome(handle), { unanswered: true });
  session.feed(bytes('{"jsonrpc":"2.0","id":2,"result":{"content":[]}}\n'));
  assert.deepEqual(session.outcome(handle), { result: { content: [] } });
});

test("takeWrites returns each write once", () => {
  const session = new McpClientSession();
  const first = session.takeWrites();
  assert.equal(first.length, 1);
  assert.equal(first[0].method, "initialize");
  assert.deepEqual(session.takeWrites(), []);
  session.feed(bytes(INITIALIZE_RESULT));
  assert.deepEqual(session.takeWrites(), [{ jsonrpc: "2.0", method: "notifications/initialized" }]);
  assert.equal(session.writes.length, 2);
});

test("close ends a ready session but keeps a failure", () => {
  const ready = new McpClientSession();
  ready.feed(bytes(INITIALIZE_RESULT));
  assert.equal(ready.state, "ready");
  ready.close();
  assert.equal(ready.state, "closed");
  const handle = ready.request("tools/list");
  assert.deepEqual(ready.outcome(handle), { not_sent: true });
  assert.equal(ready.writes.length, 2);

  const failed = new McpClientSession();
  failed.feed(bytes(INITIALIZE_ERROR));
  assert.equal(failed.state, "failed");
  failed.close();
  assert.equal(failed.state, "failed");
});
