// A docs/protocol.md worker around the SSE parser of the published
// @microsoft/fetch-event-source (the fetch-based EventSource many LLM chat front ends
// use), for the sse-frames domain:
//
//     npm ci --prefix examples/fetch-event-source
//     hanzo-conformance run --worker fes='node examples/fetch-event-source/worker.mjs' \
//         --platform fes --domain sse-frames \
//         --expectations examples/fetch-event-source/expectations.json
//
// `fetchEventSource` reads a response body with its own parser, `getLines` then
// `getMessages` (lib/esm/parse.js, not re-exported by the package index, so imported
// by path). Each case's chunks are fed as bytes to the same pipeline, and each message
// it hands `onmessage` becomes a frame. The package marks a field it did not see with
// '' (event, id) or undefined (retry); those become null, the sse-frames spelling of
// "not set". Nothing else is corrected: the ledger next to this file records the rest.
// Self-contained, like every example worker, so it can be copied elsewhere.
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";

import { getLines, getMessages } from "@microsoft/fetch-event-source/lib/esm/parse.js";

const installed = new URL("./node_modules/@microsoft/fetch-event-source/package.json", import.meta.url);
const { version } = JSON.parse(readFileSync(installed, "utf8"));

/** A case's chunks as bytes: text as its UTF-8; a `bytes` case's code points one byte each.
 * @param {{chunks: string[], encoding?: string}} input */
function byteChunks(input) {
  if (input.encoding !== "bytes") return input.chunks.map((c) => new TextEncoder().encode(c));
  return input.chunks.map((c) => Uint8Array.from(c, (ch) => ch.charCodeAt(0)));
}

/** @param {{chunks: string[], encoding?: string}} input */
function sseFrames(input) {
  /** @type {{event: string | null, data: string, id: string | null, retry: number | null}[]} */
  const frames = [];
  const onChunk = getLines(
    getMessages(
      () => {},
      () => {},
      (message) => {
        frames.push({
          event: message.event === "" ? null : message.event,
          data: message.data,
          id: message.id === "" ? null : message.id,
          retry: message.retry ?? null,
        });
      },
    ),
  );
  for (const bytes of byteChunks(input)) onChunk(bytes);
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
    const name = "@microsoft/fetch-event-source";
    return { ok: true, implementation: { name, version, language, domains: ["sse-frames"] } };
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
