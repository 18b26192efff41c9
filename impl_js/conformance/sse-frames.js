// sse-frames JSON layer: feed input.chunks to one fresh SseFrameBuffer.
import { HanzoError } from "../src/errors.js";
import { SseFrameBuffer } from "../src/sse.js";

/**
 * @param {{chunks: string[]}} input
 * @returns {{frames: import("../src/sse.js").SseFrame[]}}
 */
export function run(input) {
  const chunks = input?.chunks;
  if (!Array.isArray(chunks) || !chunks.every((c) => typeof c === "string")) {
    throw new HanzoError("bad_input", "input.chunks must be a list of strings");
  }
  const buffer = new SseFrameBuffer();
  const frames = [];
  for (const chunk of chunks) {
    for (const frame of buffer.feed(chunk)) frames.push(frame);
  }
  return { frames };
}
