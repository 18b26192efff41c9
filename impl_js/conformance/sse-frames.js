// sse-frames JSON layer: feed the bytes of input.chunks to one fresh SseFrameBuffer.
import { HanzoError } from "../src/errors.js";
import { SseFrameBuffer } from "../src/sse.js";

const utf8 = new TextEncoder();

/**
 * The bytes a chunk stands for (SSE-11): its UTF-8 encoding for text cases, or
 * with `"encoding": "bytes"` one byte per code point (U+0000..U+00FF).
 * @param {string} chunk
 * @param {boolean} asBytes
 * @returns {Uint8Array}
 */
function chunkBytes(chunk, asBytes) {
  if (!asBytes) return utf8.encode(chunk);
  const bytes = new Uint8Array(chunk.length);
  for (let i = 0; i < chunk.length; i++) {
    const code = chunk.charCodeAt(i);
    if (code > 0xff) throw new HanzoError("bad_input", "a bytes chunk holds a code point above U+00FF");
    bytes[i] = code;
  }
  return bytes;
}

/**
 * @param {{chunks: string[], encoding?: "bytes"}} input
 * @returns {{frames: import("../src/sse.js").SseFrame[]}}
 */
export function run(input) {
  const chunks = input?.chunks;
  if (!Array.isArray(chunks) || !chunks.every((c) => typeof c === "string")) {
    throw new HanzoError("bad_input", "input.chunks must be a list of strings");
  }
  const asBytes = input.encoding === "bytes";
  const buffer = new SseFrameBuffer();
  const frames = [];
  for (const chunk of chunks) {
    for (const frame of buffer.feed(chunkBytes(chunk, asBytes))) frames.push(frame);
  }
  return { frames };
}
