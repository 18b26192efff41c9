// SSE-10: a line longer than the pending rope's piece limit, fed in tiny chunks,
// comes out whole (the flattened blocks are joined in order, and no line is lost
// or dispatched early while only blocks are pending).
import { test } from "node:test";
import assert from "node:assert/strict";
import { SseFrameBuffer } from "../src/sse.js";

const encoder = new TextEncoder();

/**
 * @param {Uint8Array[]} chunks
 * @returns {import("../src/sse.js").SseFrame[]}
 */
function feedAll(chunks) {
  const buffer = new SseFrameBuffer();
  return chunks.flatMap((chunk) => buffer.feed(chunk));
}

/** A value of `n` characters that differ along the line, with a few non-ASCII ones. */
function value(n) {
  let text = "";
  for (let i = 0; i < n; i += 1) text += i % 1000 === 999 ? "\u20ac" : String.fromCharCode(97 + (i % 26));
  return text;
}

test("a very long line in one-byte chunks, ended by a one-byte or a longer chunk", () => {
  for (const n of [4095, 4096, 4097, 20_000]) {
    const bytes = encoder.encode(`data: ${value(n)}`);
    const ones = Array.from(bytes, (b) => Uint8Array.of(b));
    const want = [{ event: null, data: value(n), id: null, retry: null }];
    assert.deepEqual(feedAll([...ones, encoder.encode("\n"), encoder.encode("\n")]), want, `n=${n}, LF alone`);
    assert.deepEqual(feedAll([...ones, encoder.encode("\r\n\r\n")]), want, `n=${n}, CRLF in a longer chunk`);
    // Exactly the blocks pending, then an empty line: the line is not empty.
    assert.deepEqual(feedAll([...ones, encoder.encode("\r"), encoder.encode("\r")]), want, `n=${n}, CR alone`);
  }
});

test("a very long line in two-byte chunks keeps its order", () => {
  const bytes = encoder.encode(`event: ${value(30_001)}\ndata: x\n\n`);
  const chunks = [];
  for (let i = 0; i < bytes.length; i += 2) chunks.push(bytes.subarray(i, i + 2));
  assert.deepEqual(feedAll(chunks), [{ event: value(30_001), data: "x", id: null, retry: null }]);
});
