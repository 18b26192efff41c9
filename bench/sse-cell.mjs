// One cell of bench/sse_cells.py in this fresh process: one parser on one
// workload and chunking of the shared SSE workloads, one warm-up run, then RUNS
// timed runs; prints one JSON line {bytes, seconds, frames, data_chars}.
//
//   node bench/sse-cell.mjs DATA_DIR PARSER WORKLOAD CHUNKING RUNS [wall|cpu]
//
// PARSER is `hanzo` (impl_js SseFrameBuffer.feed on the byte chunks),
// `eventsource-parser` (4.1.3, each chunk through one streaming TextDecoder
// first, `decode(chunk, {stream: true})`, inside the timed region, as a
// fetch-based client does), or `scan`: the line-scan limit, `indexOf("\n")`
// resumed after each LF over the chunks' text, decoded before the timing (the
// least a parser of decoded text must do to find its lines). The driver checks
// frames and data lengths against manifest.json.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createParser } from "eventsource-parser";

import { SseFrameBuffer } from "../impl_js/src/sse.js";

const [DATA, PARSER, WORKLOAD, CHUNKING, RUNS_ARG, CLOCK = "wall"] = process.argv.slice(2);
if (DATA === undefined || PARSER === undefined || WORKLOAD === undefined || CHUNKING === undefined) {
  throw new Error("usage: sse-cell.mjs DATA_DIR PARSER WORKLOAD CHUNKING RUNS [wall|cpu]");
}
const RUNS = Number(RUNS_ARG ?? 3);
/** Seconds since some fixed point: wall, or this process's CPU time (all threads). */
const now =
  CLOCK === "cpu"
    ? () => {
        const { user, system } = process.cpuUsage();
        return (user + system) / 1e6;
      }
    : () => Number(process.hrtime.bigint()) / 1e9;

/** @returns {Uint8Array[]} */
function load() {
  const file = readFileSync(join(DATA ?? "", `${WORKLOAD}.sse`));
  let bytes = new Uint8Array(file.buffer, file.byteOffset, file.length);
  /** @type {number[]} */
  const sizes = [];
  if (CHUNKING === "c64k") {
    for (let at = 0; at < bytes.length; at += 65536) sizes.push(Math.min(65536, bytes.length - at));
  } else if (CHUNKING === "c1") {
    bytes = bytes.subarray(0, 262144);
    for (let at = 0; at < bytes.length; at += 1) sizes.push(1);
  } else if (CHUNKING === "rand512") {
    const plan = readFileSync(join(DATA ?? "", `${WORKLOAD}.sse.rand512.u32`));
    for (let at = 0; at < plan.length; at += 4) sizes.push(plan.readUInt32LE(at));
  } else {
    throw new Error(`unknown chunking ${CHUNKING}`);
  }
  const chunks = [];
  let at = 0;
  for (const size of sizes) {
    chunks.push(bytes.subarray(at, at + size));
    at += size;
  }
  if (at !== bytes.length) throw new Error("chunk plan does not cover the data");
  return chunks;
}

/** @typedef {{frames: number, dataChars: number}} Counts */

// Each frame's data is read (its last character), as a caller would: a length alone
// never flattens a rope, and eventsource-parser's data is one (its lines joined lazily).
let touched = 0;

/**
 * @param {Uint8Array[]} chunks
 * @returns {Counts}
 */
function runHanzo(chunks) {
  const buffer = new SseFrameBuffer();
  let frames = 0;
  let dataChars = 0;
  for (const chunk of chunks) {
    for (const frame of buffer.feed(chunk)) {
      frames += 1;
      dataChars += frame.data.length; // BMP-only workloads: UTF-16 units = code points
      touched ^= frame.data.charCodeAt(frame.data.length - 1) | 0;
    }
  }
  return { frames, dataChars };
}

/**
 * @param {Uint8Array[]} chunks
 * @returns {Counts}
 */
function runEventsourceParser(chunks) {
  let frames = 0;
  let dataChars = 0;
  const parser = createParser({
    onEvent(event) {
      frames += 1;
      dataChars += event.data.length;
      touched ^= event.data.charCodeAt(event.data.length - 1) | 0;
    },
  });
  const decoder = new TextDecoder();
  for (const chunk of chunks) {
    const text = decoder.decode(chunk, { stream: true });
    if (text !== "") parser.feed(text);
  }
  return { frames, dataChars };
}

/**
 * @param {string[]} texts
 * @returns {Counts}
 */
function runScan(texts) {
  let endings = 0;
  for (const text of texts) {
    let at = text.indexOf("\n");
    while (at >= 0) {
      endings += 1;
      at = text.indexOf("\n", at + 1);
    }
  }
  return { frames: endings, dataChars: 0 };
}

const chunks = load();
const bytes = chunks.reduce((sum, chunk) => sum + chunk.length, 0);
/** @type {() => Counts} */
let run;
if (PARSER === "hanzo") run = () => runHanzo(chunks);
else if (PARSER === "eventsource-parser") run = () => runEventsourceParser(chunks);
else if (PARSER === "scan") {
  const decoder = new TextDecoder();
  const texts = chunks.map((chunk) => decoder.decode(chunk, { stream: true }));
  run = () => runScan(texts);
} else throw new Error(`unknown parser ${PARSER}`);

const checked = run(); // the warm-up
const seconds = [];
for (let i = 0; i < RUNS; i += 1) {
  const began = now();
  const got = run();
  seconds.push(now() - began);
  if (got.frames !== checked.frames || got.dataChars !== checked.dataChars) throw new Error("counts differ between runs");
}
console.log(
  JSON.stringify({ bytes, seconds, frames: checked.frames, data_chars: checked.dataChars, touched }),
);
