// A docs/protocol.md worker around the published eventsource-parser (the SSE parser
// most JS clients of streamed APIs use), for the sse-frames domain:
//
//     npm ci --prefix examples/eventsource-parser
//     hanzo-conformance run --worker esp='node examples/eventsource-parser/worker.mjs' \
//         --platform esp --domain sse-frames \
//         --expectations examples/eventsource-parser/expectations.json
//
// Each case's chunks go through the pipeline the package's README shows for a response
// body (`TextDecoderStream`, then the parser), done synchronously: one streaming
// `TextDecoder("utf-8")` with its defaults, whose text is fed to `createParser`. Each
// event the parser emits becomes a frame, field for field, without correcting anything:
// the differences are the package's, and the ledger next to this file records them.
// The parser reports `retry` through `onRetry`, never as part of an event, so a frame's
// `retry` is always null here (one recorded cluster). A worker touches no harness
// internals: it reads requests on stdin and writes one answer per line, in order.
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";

import { createParser } from "eventsource-parser";

// The package's exports do not include its package.json: read it where npm put it.
const installed = new URL("./node_modules/eventsource-parser/package.json", import.meta.url);
const { version } = JSON.parse(readFileSync(installed, "utf8"));

/** A case's chunks as bytes: text as its UTF-8; a `bytes` case's code points one byte each.
 * @param {{chunks: string[], encoding?: string}} input */
function byteChunks(input) {
  if (input.encoding !== "bytes") return input.chunks.map((c) => new TextEncoder().encode(c));
  return input.chunks.map((c) => Uint8Array.from(c, (ch) => ch.charCodeAt(0)));
}

/** @param {{chunks: string[], encoding?: string}} input */
function sseFrames(input) {
  /** @type {{event: string | null, data: string, id: string | null, retry: null}[]} */
  const frames = [];
  const parser = createParser({
    onEvent(event) {
      frames.push({ event: event.event ?? null, data: event.data, id: event.id ?? null, retry: null });
    },
  });
  const decoder = new TextDecoder("utf-8");
  for (const bytes of byteChunks(input)) parser.feed(decoder.decode(bytes, { stream: true }));
  return { frames };
}

/** @param {Record<string, any>} request */
function answer(request) {
  if (request.cmd === "start") {
    if (request.version !== 1) {
      const error = { code: "unsupported_version", message: "protocol 1 only" };
      return { ok: false, error, versions: [1] };
    }
    const language = `javascript (node ${process.versions.node})`;
    return {
      ok: true,
      implementation: { name: "eventsource-parser", version, language, domains: ["sse-frames"] },
    };
  }
  const id = typeof request.id === "string" ? request.id : "";
  if (request.domain !== "sse-frames" || typeof request.input !== "object") {
    return { id, crash: { message: "not an sse-frames run request", detail: "" } };
  }
  try {
    return { id, output: sseFrames(request.input) };
  } catch (e) {
    const error = /** @type {Error} */ (e);
    return { id, crash: { message: String(error), detail: error.stack ?? "" } };
  }
}

for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  let request;
  try {
    request = JSON.parse(line);
  } catch (e) {
    process.stdout.write(`${JSON.stringify({ id: "", crash: { message: String(e), detail: "" } })}\n`);
    continue;
  }
  if (request.cmd === "stop") break;
  // One answer at a time, in request order; written at once (stdout is a pipe).
  process.stdout.write(`${JSON.stringify(answer(request))}\n`);
}
