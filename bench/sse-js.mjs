// SSE parsing throughput: impl_js SseFrameBuffer versus eventsource-parser 4.1.3,
// both starting from the same byte chunks, on the shared workloads
// (/work/shared/bench/README.md).
//
//   python3 /work/shared/bench/gen_sse.py --out /tmp/sse-bench-data
//   cd bench && npm ci && node sse-js.mjs [DATA_DIR] [--runs N] [--workload W] [--chunking C] [--clock cpu]
//
// UTF-8 decoding is timed for both: SseFrameBuffer.feed takes bytes (SSE-11),
// eventsource-parser takes strings, so each chunk goes through one streaming
// TextDecoder first, as a fetch-based client does. MB/s = input bytes / 10^6 / s,
// median of N runs (default 5; parsers alternate so load noise hits both). The
// paired ratio is the median over runs of eventsource-parser's time / SseFrameBuffer's
// time in the same run (the two are back to back, so they share the machine's load).
// --clock cpu times the process's CPU time (process.cpuUsage: user + system, all
// threads, so V8's concurrent GC and compiler threads count) instead of wall time,
// leaving out the time spent waiting for a core on a shared machine.
// Frame counts and data lengths are checked against manifest.json on every run.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createParser } from "eventsource-parser";

import { SseFrameBuffer } from "../impl_js/src/sse.js";

const args = process.argv.slice(2);
const OPTIONS = ["--runs", "--workload", "--chunking", "--clock"];
/** @param {string} name */
const option = (name) => {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : undefined;
};
const RUNS = Number(option("--runs") ?? 5);
const CPU_CLOCK = option("--clock") === "cpu";
if (!["cpu", "wall", undefined].includes(option("--clock"))) throw new Error("--clock needs wall or cpu");
/** Seconds since some fixed point, by the chosen clock. */
const now = CPU_CLOCK
  ? () => {
      const { user, system } = process.cpuUsage();
      return (user + system) / 1e6;
    }
  : () => Number(process.hrtime.bigint()) / 1e9;
const DATA = args.find((a, i) => !a.startsWith("--") && !OPTIONS.includes(args[i - 1] ?? "")) ?? "/tmp/sse-bench-data";
// --workload / --chunking run one cell alone (in a fresh process: no JIT state from other cells).
const WORKLOADS = ["llm-tokens", "big-multiline", "mixed-endings"].filter((w) => [w, undefined].includes(option("--workload")));
const CHUNKINGS = ["c64k", "rand512", "c1"].filter((c) => [c, undefined].includes(option("--chunking")));

const manifest = JSON.parse(readFileSync(join(DATA, "manifest.json"), "utf8"));

/**
 * @param {Uint8Array} bytes
 * @param {number[]} sizes
 * @returns {Uint8Array[]}
 */
function splitChunks(bytes, sizes) {
  const out = [];
  let at = 0;
  for (const size of sizes) {
    out.push(bytes.subarray(at, at + size));
    at += size;
  }
  return out;
}

/**
 * @param {string} name
 * @param {string} chunking
 * @returns {{chunks: Uint8Array[], bytes: number, reference: any}}
 */
function load(name, chunking) {
  const spec = manifest.workloads[name];
  const file = readFileSync(join(DATA, spec.file));
  if (file.length !== spec.bytes) throw new Error(`${spec.file}: ${file.length} bytes, manifest says ${spec.bytes}`);
  let bytes = new Uint8Array(file.buffer, file.byteOffset, file.length);
  /** @type {number[]} */
  let sizes = [];
  let reference = spec.reference_full;
  if (chunking === "c64k") {
    for (let at = 0; at < bytes.length; at += 65536) sizes.push(Math.min(65536, bytes.length - at));
  } else if (chunking === "c1") {
    bytes = bytes.subarray(0, manifest.chunkings.c1.prefix);
    sizes = new Array(bytes.length).fill(1);
    reference = spec.reference_c1_prefix;
  } else {
    const plan = readFileSync(join(DATA, `${spec.file}.rand512.u32`));
    for (let at = 0; at < plan.length; at += 4) sizes.push(plan.readUInt32LE(at));
  }
  return { chunks: splitChunks(bytes, sizes), bytes: bytes.length, reference };
}

/** @param {Uint8Array[]} chunks */
function runHanzo(chunks) {
  const buffer = new SseFrameBuffer();
  let frames = 0;
  let dataChars = 0;
  for (const chunk of chunks) {
    for (const frame of buffer.feed(chunk)) {
      frames += 1;
      dataChars += frame.data.length; // BMP-only workloads: UTF-16 units = code points
    }
  }
  return { frames, dataChars };
}

/** @param {Uint8Array[]} chunks */
function runEventsourceParser(chunks) {
  let frames = 0;
  let dataChars = 0;
  const parser = createParser({
    onEvent(event) {
      frames += 1;
      dataChars += event.data.length;
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
 * Frame counts per parser. eventsource-parser follows WHATWG (an event needs a
 * data line): spec_events. SseFrameBuffer also emits blocks with only event/id/retry
 * (SSE-8a), whose data is "": same data total, and a count between spec_events and
 * any_field_events (which also counts WHATWG's carried-over id); on workloads where
 * the two reference counts agree, it must equal them.
 * @param {"hanzo" | "eventsource-parser"} parser
 * @param {{frames: number, dataChars: number}} got
 * @param {any} ref
 */
function checkCounts(parser, got, ref) {
  const problems = [];
  if (got.dataChars !== ref.spec_data_chars) problems.push(`data chars ${got.dataChars} != ${ref.spec_data_chars}`);
  if (parser === "eventsource-parser" || ref.spec_events === ref.any_field_events) {
    if (got.frames !== ref.spec_events) problems.push(`frames ${got.frames} != ${ref.spec_events}`);
  } else if (got.frames < ref.spec_events || got.frames > ref.any_field_events) {
    problems.push(`frames ${got.frames} outside [${ref.spec_events}, ${ref.any_field_events}]`);
  }
  if (problems.length > 0) throw new Error(`${parser}: ${problems.join("; ")}`);
}

/** @param {number[]} xs */
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1; // small array length, far below 2^31
  return s.length % 2 ? /** @type {number} */ (s[mid]) : (/** @type {number} */ (s[mid - 1]) + /** @type {number} */ (s[mid])) / 2;
};

const PARSERS = /** @type {const} */ ([
  ["hanzo", runHanzo],
  ["eventsource-parser", runEventsourceParser],
]);

console.log(`node ${process.version}, ${RUNS} runs, ${CPU_CLOCK ? "cpu" : "wall"} clock, data ${DATA}`);
console.log("workload       chunking  hanzo MB/s  eventsource-parser MB/s  ratio  paired (lowest)  hanzo frames");
/** @type {any[]} */
const results = [];
for (const name of WORKLOADS) {
  for (const chunking of CHUNKINGS) {
    const { chunks, bytes, reference } = load(name, chunking);
    /** @type {Record<string, number[]>} */
    const times = { hanzo: [], "eventsource-parser": [] };
    let hanzoFrames = 0;
    for (let run = 0; run < RUNS + 1; run += 1) {
      for (const [parser, fn] of run % 2 ? [...PARSERS].reverse() : PARSERS) {
        const began = now();
        const got = fn(chunks);
        const seconds = now() - began;
        checkCounts(parser, got, reference);
        if (parser === "hanzo") hanzoFrames = got.frames;
        if (run > 0) times[parser]?.push(seconds); // run 0 warms the JIT
      }
    }
    const mbps = (/** @type {string} */ p) => bytes / 1e6 / median(times[p] ?? []);
    const hanzoTimes = times.hanzo ?? [];
    const paired = (times["eventsource-parser"] ?? []).map((t, i) => t / (hanzoTimes[i] ?? NaN));
    const row = {
      workload: name,
      chunking,
      hanzo: mbps("hanzo"),
      esp: mbps("eventsource-parser"),
      paired: median(paired),
      pairedLowest: Math.min(...paired),
      hanzoFrames,
    };
    results.push(row);
    console.log(
      `${name.padEnd(14)} ${chunking.padEnd(9)} ${row.hanzo.toFixed(1).padStart(10)}  ${row.esp.toFixed(1).padStart(23)}  ${(row.hanzo / row.esp).toFixed(2).padStart(5)}  ${row.paired.toFixed(2).padStart(6)} (${row.pairedLowest.toFixed(2)})  ${hanzoFrames}`,
    );
  }
}
if (args.includes("--json")) console.log(JSON.stringify(results));
