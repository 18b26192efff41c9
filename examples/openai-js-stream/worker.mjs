// A docs/protocol.md worker around the published openai SDK for JS (npm, 7.59.0), for the
// stream-assembly domain:
//
//     npm ci --prefix examples/openai-js-stream
//     hanzo-conformance run --worker openai-js='node examples/openai-js-stream/worker.mjs' \
//         --platform openai-js --domain stream-assembly \
//         --expectations examples/openai-js-stream/expectations.json
//
// Each case's frames, written back as an SSE body, are the response of a custom `fetch`
// (the SDK's own transport option) and are read through its public stream helper,
// `client.chat.completions.stream(...)`: `content.delta` events are the text deltas; the
// final completion's `choices[0].message.tool_calls` the tool calls (their `arguments`
// through `JSON.parse`, as OpenAI's function-calling guide does); its `finish_reason`
// (named in the contract's vocabulary, STREAM-8c) and `usage` the stop and usage; an
// `OpenAI.APIError` the error. Nothing is corrected: the differences are the SDK's, and
// the ledger next to this file records them. Only openai-chat cases apply.
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";

import OpenAI from "openai";

const installed = new URL("./node_modules/openai/package.json", import.meta.url);
const { version } = JSON.parse(readFileSync(installed, "utf8"));

const STOP_REASONS = new Map([
  ["stop", "end_turn"],
  ["tool_calls", "tool_use"],
  ["function_call", "tool_use"],
  ["length", "max_tokens"],
]);

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

/** @param {string} text */
function toolInput(text) {
  let value;
  try {
    value = JSON.parse(text);
  } catch {
    return [null, "invalid_json"];
  }
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? [value, null]
    : [null, "not_object"];
}

/** @param {{frames: {event: string | null, data: string}[]}} input */
async function streamAssembly(input) {
  const body = sseBody(input.frames);
  const client = new OpenAI({
    apiKey: "test",
    baseURL: "http://sdk.test/v1",
    maxRetries: 0,
    fetch: async () =>
      new Response(body, { status: 200, headers: { "content-type": "text/event-stream" } }),
  });
  /** @type {any[]} */
  const events = [];
  let final;
  /** @type {any} */
  let stream = null;
  try {
    stream = client.chat.completions.stream({
      model: "m",
      messages: [{ role: "user", content: "hi" }],
    });
    stream.on("content.delta", ({ delta }) => {
      if (delta) events.push({ type: "content_delta", text: delta });
    });
    final = await stream.finalChatCompletion();
  } catch (e) {
    if (!(e instanceof OpenAI.APIError)) throw e;
    const error = /** @type {any} */ (e).error ?? {};
    const kind = error.type || error.code || "unknown";
    events.push({ type: "error", error_type: kind, message: error.message ?? e.message });
    // The usage the helper holds when the error came, if it had a snapshot yet.
    const seen = stream?.currentChatCompletionSnapshot?.usage;
    const usage = seen ? { input_tokens: seen.prompt_tokens, output_tokens: seen.completion_tokens } : null;
    return { events, usage };
  }
  const choice = final.choices[0];
  for (const call of choice?.message?.tool_calls ?? []) {
    const [value, error] = toolInput(call.function.arguments);
    events.push({
      type: "tool_use",
      id: call.id,
      name: call.function.name,
      input: value,
      input_json: call.function.arguments,
      input_error: error,
    });
  }
  const finish = choice?.finish_reason ?? null;
  events.push({
    type: "message_stop",
    stop_reason: finish === null ? null : (STOP_REASONS.get(finish) ?? finish),
    provider_stop_reason: finish,
  });
  const usage = final.usage
    ? { input_tokens: final.usage.prompt_tokens, output_tokens: final.usage.completion_tokens }
    : null;
  return { events, usage };
}

/** @param {any} request */
async function answer(request) {
  if (request.cmd === "start") {
    const language = `javascript (node ${process.versions.node})`;
    const implementation = { name: "openai", version, language, domains: ["stream-assembly"] };
    return { ok: true, implementation };
  }
  const id = typeof request.id === "string" ? request.id : "";
  if (request.domain !== "stream-assembly" || typeof request.input !== "object") {
    return { id, crash: { message: "not a stream-assembly run request", detail: "" } };
  }
  if (request.input.dialect !== "openai-chat") {
    return { id, skip: { reason: "the OpenAI SDK reads only the openai-chat dialect" } };
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
