// sse-frames JSON layer: feed input.chunks to one fresh SseFrameBuffer.
import { SseFrameBuffer } from "../src/sse.js";

/**
 * @param {{chunks: string[]}} input
 * @returns {{frames: import("../src/sse.js").SseFrame[]}}
 */
export function run(input) {
  const chunks = input.chunks;
  const buffer = new SseFrameBuffer();
  const frames = [];
  for (const chunk of chunks) {
    for (const frame of buffer.feed(chunk)) frames.push(frame);
  }
  return { frames };
}
