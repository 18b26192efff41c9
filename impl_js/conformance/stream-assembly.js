// stream-assembly JSON layer: feed input.frames to one fresh StreamAssembler, then end().
import { StreamAssembler } from "../src/stream-assembly.js";

/**
 * @param {{dialect: string, frames: {event: string | null, data: string}[]}} input
 * @returns {{events: import("../src/stream-assembly.js").StreamEvent[],
 *   usage: import("../src/stream-assembly.js").Usage | null}}
 */
export function run(input) {
  const assembler = new StreamAssembler(input.dialect);
  const events = [];
  for (const frame of input.frames) {
    for (const event of assembler.feed(frame)) events.push(event);
  }
  for (const event of assembler.end()) events.push(event);
  return { events, usage: assembler.usage };
}
