// A docs/protocol.md worker around the published @anthropic-ai/sdk (npm, 1.15.0), for the
// stream-assembly domain:
//
//     npm ci --prefix examples/anthropic-js-stream
//     hanzo-conformance run --worker anthropic-js='node examples/anthropic-js-stream/worker.mjs' \
//         --platform anthropic-js --domain stream-assembly \
//         --expectations examples/anthropic-js-stream/expectations.json
//
// Each case's frames, written back as an SSE body, are the response of a custom `fetch`
// (the SDK's own transport option) and are read through its public stream helper,
// `client.messages.stream(...)`: `text` events are the text deltas; each `contentBlock`
// (the SDK's finished block) of type tool_use a tool call (its `input` the SDK's;
// `input_json` that block's input_json_delta fragments joined, from `streamEvent`);
// `message_stop` in `streamEvent` the stop, with the snapshot's stop reason and usage;
// an `Anthropic.APIError` the error. Nothing is corrected: the differences are the SDK's,
// and the ledger next to this file records them. Only anthropic cases apply.
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";

import Anthropic from "@anthropic-ai/sdk";

const installed = new URL("./node_modules/@anthropic-ai/sdk/package.json", import.meta.url);
const { version } = JSON.parse(readFileSync(installed, "utf8"));

/** @param {{event: string | null, data: string}[]} frames */
function sseBody(frames) {
  return frames
    .map((f) => {
      const lines = f.event === null ? [] : [`event: ${f.event}`];
      for (const line of f.data.split("\n")) lines.push(`data: ${line}`);
      return `${lines.join("\n")}\n\n`;
    })
    .join("");
}

/** @param {unknown} value @returns {boolean} */
function hasNonFinite(value) {
  if (typeof value === "number") return !Number.isFinite(value);
  if (typeof value !== "object" || value === null) return false;
  return Object.values(value).some(hasNonFinite);
}

/** @param {{frames: {event: string | null, data: string}[]}} input */
async function streamAssembly(input) {
  const body = sseBody(input.frames);
  const client = new Anthropic({
    apiKey: "test",
    baseURL: "http://sdk.test",
    maxRetries: 0,
    fetch: async () =>
      new Response(body, { status: 200, headers: { "content-type": "text/event-stream" } }),
  });
  /** @type {any[]} */
  const events = [];
  /** @type {any} */
  let usage = null;
  /** @type {Map<number, string[]>} */
  const fragments = new Map();
  let stoppedIndex = -1;
  /** @type {any} */
  let snapshot = null;
  try {
    const stream = client.messages.stream({
      model: "m",
      max_tokens: 1024,
      messages: [{ role: "user", content: "hi" }],
    });
    stream.on("text", (text) => {
      if (text) events.push({ type: "content_delta", text });
    });
    stream.on("streamEvent", (event, message) => {
      snapshot = message;
      if (event.type === "content_block_delta" && event.delta.type === "input_json_delta") {
        const list = fragments.get(event.index) ?? [];
        list.push(event.delta.partial_json);
        fragments.set(event.index, list);
      } else if (event.type === "content_block_stop") {
        stoppedIndex = event.index;
      } else if (event.type === "message_stop") {
        const stop = message.stop_reason ?? null;
        events.push({ type: "message_stop", stop_reason: stop, provider_stop_reason: stop });
        usage = { input_tokens: message.usage.input_tokens, output_tokens: message.usage.output_tokens };
      }
    });
    stream.on("contentBlock", (block) => {
      if (block.type !== "tool_use") return;
      const value = block.input;
      // Its partial-JSON parser takes 1e400 as Infinity: such an input exists but no JSON
      // answer can hold it (JSON.stringify would write null), so the case crashes.
      if (hasNonFinite(value)) throw new Error(`tool input holds a non-finite number: ${block.input}`);
      const isObject = typeof value === "object" && value !== null && !Array.isArray(value);
      events.push({
        type: "tool_use",
        id: block.id,
        name: block.name,
        input: isObject ? value : null,
        input_json: (fragments.get(stoppedIndex) ?? []).join(""),
        input_error: isObject ? null : "not_object",
      });
    });
    await stream.done();
  } catch (e) {
    if (!(e instanceof Anthropic.APIError)) throw e;
    const error = /** @type {any} */ (e).error?.error;
    const kind = (error && typeof error.type === "string" && error.type) || "unknown";
    const message = error && typeof error.message === "string" ? error.message : e.message;
    events.push({ type: "error", error_type: kind, message });
  }
  if (usage === null && snapshot !== null) {
    usage = { input_tokens: snapshot.usage.input_tokens, output_tokens: snapshot.usage.output_tokens };
  }
  return { events, usage };
}

/** @param {any} request */
async function answer(request) {
  if (request.cmd === "start") {
    const language = `javascript (node ${process.versions.node})`;
    const implementation = { name: "@anthropic-ai/sdk", version, language, domains: ["stream-assembly"] };
    return { ok: true, implementation };
  }
  const id = typeof request.id === "string" ? request.id : "";
  if (request.domain !== "stream-assembly" || typeof request.input !== "object") {
    return { id, crash: { message: "not a stream-assembly run request", detail: "" } };
  }
  if (request.input.dialect !== "anthropic") {
    return { id, skip: { reason: "the Anthropic SDK reads only the anthropic dialect" } };
  }
  try {
    return { id, output: await streamAssembly(request.input) };
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
  // One answer at a time, in request order (stdout is a pipe).
  process.stdout.write(`${JSON.stringify(await answer(request))}\n`);
}
