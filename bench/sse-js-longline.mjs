// One very long SSE line fed one byte per chunk: impl_js SseFrameBuffer beside
// eventsource-parser 4.1.3, per character cost and peak RSS, each parser and
// line length in a fresh Node process (issue 13: linear, with memory a small
// multiple of the line).
//
//   cd bench && npm ci && node sse-js-longline.mjs [--sizes 262144,16777216] [--repeat 3]
//
// The line is `data: ` and N ASCII letters, then `\n\n`; the frame's data length
// is checked. As in sse-js.mjs, eventsource-parser gets each chunk through one
// streaming TextDecoder (timed), SseFrameBuffer takes the bytes. The one-byte
// chunks are 26 preallocated Uint8Arrays fed in turn, so the loop allocates
// nothing itself. Each child first parses a 64 Ki-character line (JIT warm-up,
// not timed). Peak RSS is the child's `maxRSS`; "above start" subtracts the
// RSS measured just before feeding.

import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { createParser } from "eventsource-parser";

import { SseFrameBuffer } from "../impl_js/src/sse.js";

const args = process.argv.slice(2);
/** @param {string} name */
const option = (name) => {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : undefined;
};

const LETTERS = Array.from({ length: 26 }, (_, i) => Uint8Array.of(97 + i));
const encoder = new TextEncoder();

/**
 * Feed the line to one parser; returns the frame's data length.
 * @param {string} parser
 * @param {number} n
 * @returns {number}
 */
function feedLine(parser, n) {
  const head = encoder.encode("data: ");
  const end = encoder.encode("\n\n");
  let length = -1;
  if (parser === "hanzo") {
    const buffer = new SseFrameBuffer();
    buffer.feed(head);
    for (let i = 0; i < n; i += 1) buffer.feed(/** @type {Uint8Array} */ (LETTERS[i % 26]));
    for (const frame of buffer.feed(end)) length = frame.data.length;
  } else {
    const parser = createParser({
      onEvent(event) {
        length = event.data.length;
      },
    });
    const decoder = new TextDecoder();
    parser.feed(decoder.decode(head, { stream: true }));
    for (let i = 0; i < n; i += 1) {
      const text = decoder.decode(LETTERS[i % 26], { stream: true });
      if (text !== "") parser.feed(text);
    }
    parser.feed(decoder.decode(end, { stream: true }));
  }
  return length;
}

if (option("--child") !== undefined) {
  const parser = /** @type {string} */ (option("--child"));
  const n = Number(option("--n"));
  // Warm the JIT on a short line first, so that the per-character cost of a
  // short line is not mostly compilation.
  feedLine(parser, 1 << 16);
  const rssBefore = process.memoryUsage().rss;
  const began = process.hrtime.bigint();
  const length = feedLine(parser, n);
  const seconds = Number(process.hrtime.bigint() - began) / 1e9;
  if (length !== n) throw new Error(`${parser}: data length ${length}, expected ${n}`);
  const peak = process.resourceUsage().maxRSS * 1024;
  console.log(JSON.stringify({ nsPerChar: (seconds * 1e9) / n, peak, aboveStart: peak - rssBefore }));
} else {
  const sizes = (option("--sizes") ?? "262144,16777216").split(",").map(Number);
  const repeat = Number(option("--repeat") ?? 3);
  const script = fileURLToPath(import.meta.url);
  /** @param {number[]} xs */
  const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1] ?? NaN;
  const MiB = 1024 * 1024;
  console.log(`node ${process.version}; median of ${repeat} fresh processes per cell, parsers alternating`);
  console.log("| characters | parser | ns per character | peak RSS MiB | above start MiB | above start / line |");
  console.log("|---|---|---|---|---|---|");
  for (const n of sizes) {
    /** @type {Record<string, {nsPerChar: number, peak: number, aboveStart: number}[]>} */
    const runs = { hanzo: [], "eventsource-parser": [] };
    for (let r = 0; r < repeat; r += 1) {
      for (const parser of r % 2 ? ["eventsource-parser", "hanzo"] : ["hanzo", "eventsource-parser"]) {
        const child = spawnSync(process.execPath, [script, "--child", parser, "--n", String(n)], { encoding: "utf8" });
        if (child.status !== 0) throw new Error(`${parser} n=${n}: ${child.stderr}`);
        runs[parser]?.push(JSON.parse(child.stdout));
      }
    }
    for (const [parser, got] of Object.entries(runs)) {
      const ns = median(got.map((g) => g.nsPerChar));
      const peak = median(got.map((g) => g.peak)) / MiB;
      const above = median(got.map((g) => g.aboveStart)) / MiB;
      // The line is ASCII: one byte per character in a V8 one-byte string.
      console.log(`| ${n} | ${parser} | ${ns.toFixed(1)} | ${peak.toFixed(0)} | ${above.toFixed(1)} | ${(above / (n / MiB)).toFixed(2)} |`);
    }
  }
}
