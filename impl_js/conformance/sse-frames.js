// sse-frames JSON layer: feed the bytes of input.chunks to one fresh SseFrameBuffer.
import { SseFrameBuffer } from "../src/sse.js";

const utf8 = new TextEncoder();

/**
 * The bytes a chunk stands for (SSE-11): its UTF-8 encoding for text cases, or
 * with `"encoding": "bytes"` one byte per code point (U+0000..U+00FF, which the
 * schema guarantees).
 * @param {string} chunk
 * @param {boolean} asBytes
 * @returns {Uint8Array}
 */
function chunkBytes(chunk, asBytes) {
  if (!asBytes) return utf8.encode(chunk);
  const bytes = new Uint8Array(chunk.length);
  for (let i = 0; i < chunk.length; i++) bytes[i] = chunk.charCodeAt(i);
  return bytes;
}

/**
 * @param {{chunks: string[], encoding?: "bytes"}} input
 * @returns {{frames: import("../src/sse.js").SseFrame[]}}
 */
export function run(input) {
  const asBytes = input.encoding === "bytes";
  const buffer = new SseFrameBuffer();
  const frames = [];
  for (const chunk of input.chunks) {
    for (const frame of buffer.feed(chunkBytes(chunk, asBytes))) frames.push(frame);
  }
  return { frames };
}
