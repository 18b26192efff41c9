// The JS half of bench/stream_assembly.py: our SseFrameBuffer + StreamAssembler beside the
// openai (7.59.0) and @anthropic-ai/sdk (1.15.0) stream helpers, on the bodies it wrote.
//     node bench/stream-assembly-js.mjs DIR REPEAT   (prints {workload: {"js-ours", "js-sdk"}} in seconds)
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

import { SseFrameBuffer } from "../impl_js/src/sse.js";
import { StreamAssembler } from "../impl_js/src/stream-assembly.js";

const root = new URL("..", import.meta.url).pathname;
const sdk = (example, pkg) =>
  import(pathToFileURL(join(root, "examples", example, "node_modules", pkg, "index.mjs")).href);
const { default: OpenAI } = await sdk("openai-js-stream", "openai");
const { default: Anthropic } = await sdk("anthropic-js-stream", "@anthropic-ai/sdk");

const CHUNK = 16384;
const [dir, repeatText] = process.argv.slice(2);
const repeat = Number(repeatText);

/** @param {string} dialect @param {Uint8Array} body */
function ours(dialect, body) {
  const frames = new SseFrameBuffer();
  const assembler = new StreamAssembler(dialect);
  const events = [];
  for (let at = 0; at < body.length; at += CHUNK) {
    for (const frame of frames.feed(body.subarray(at, at + CHUNK))) events.push(...assembler.feed(frame));
  }
  events.push(...assembler.end());
  const text = events.filter((e) => e.type === "content_delta").map((e) => e.text).join("");
  const calls = events.filter((e) => e.type === "tool_use").map((e) => [e.id, e.name, e.input]);
  return { text, calls };
}

/** @param {Uint8Array} body */
const fetchOf = (body) => async () =>
  new Response(body, { status: 200, headers: { "content-type": "text/event-stream" } });

/** @param {string} _dialect @param {Uint8Array} body */
async function openaiSdk(_dialect, body) {
  const client = new OpenAI({ apiKey: "x", baseURL: "http://b.test/v1", maxRetries: 0, fetch: fetchOf(body) });
  const stream = client.chat.completions.stream({ model: "m", messages: [{ role: "user", content: "x" }] });
  const final = await stream.finalChatCompletion();
  const message = final.choices[0].message;
  const calls = (message.tool_calls ?? []).map((c) => [c.id, c.function.name, JSON.parse(c.function.arguments)]);
  return { text: message.content ?? "", calls };
}

/** @param {string} _dialect @param {Uint8Array} body */
async function anthropicSdk(_dialect, body) {
  const client = new Anthropic({ apiKey: "x", baseURL: "http://b.test", maxRetries: 0, fetch: fetchOf(body) });
  const stream = client.messages.stream({ model: "m", max_tokens: 10, messages: [{ role: "user", content: "x" }] });
  const final = await stream.finalMessage();
  const text = final.content.filter((b) => b.type === "text").map((b) => b.text).join("");
  const calls = final.content.filter((b) => b.type === "tool_use").map((b) => [b.id, b.name, b.input]);
  return { text, calls };
}

const workloads = {
  "openai-text": ["openai-chat", openaiSdk],
  "openai-tools": ["openai-chat", openaiSdk],
  "anthropic-text": ["anthropic", anthropicSdk],
  "anthropic-tools": ["anthropic", anthropicSdk],
};
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const out = {};
for (const [name, [dialect, run]] of Object.entries(workloads)) {
  const body = new Uint8Array(readFileSync(join(dir, `${name}.sse`)));
  if (JSON.stringify(await run(dialect, body)) !== JSON.stringify(ours(dialect, body))) {
    throw new Error(`${name}: the SDK assembled something else`);
  }
  const mine = [];
  const theirs = [];
  for (let i = 0; i < repeat; i++) {
    let start = performance.now();
    ours(dialect, body);
    mine.push((performance.now() - start) / 1e3);
    start = performance.now();
    await run(dialect, body);
    theirs.push((performance.now() - start) / 1e3);
  }
  out[name] = { "js-ours": median(mine), "js-sdk": median(theirs) };
}
process.stdout.write(`${JSON.stringify(out)}\n`);
