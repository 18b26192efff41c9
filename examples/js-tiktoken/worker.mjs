// A docs/protocol.md worker around the published js-tiktoken (the pure-JS port of
// tiktoken, which ships its rank files, so it needs no network), for token-encoding:
//
//     npm ci --prefix examples/js-tiktoken
//     hanzo-conformance run --worker js-tiktoken='node examples/js-tiktoken/worker.mjs' \
//         --platform js-tiktoken --domain token-encoding \
//         --expectations examples/js-tiktoken/expectations.json \
//         --no-default-vectors --vectors examples/token-encoding/token-encoding.json --schemas examples/token-encoding
//
// Each case is `getEncoding("o200k_base").encode(text, [], [])`: no special token
// allowed, none disallowed, so a special-token string is ordinary text (TENC-2); the
// package's default `encode(text)` throws on such text instead. `--default-encode`
// makes the worker call `encode(text)` as it comes, to show that difference.
// Nothing is corrected: the ledger next to this file records any divergence.
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";

import { getEncoding } from "js-tiktoken";

// The package's exports do not include its package.json: read it where npm put it.
const installed = new URL("./node_modules/js-tiktoken/package.json", import.meta.url);
const { version } = JSON.parse(readFileSync(installed, "utf8"));
const defaultEncode = process.argv.includes("--default-encode");
const o200k = getEncoding("o200k_base");

/** @param {{encoding: string, text: string}} input */
function tokenEncoding(input) {
  if (input.encoding !== "o200k_base") throw new Error(`not carried: ${input.encoding}`);
  const tokens = defaultEncode ? o200k.encode(input.text) : o200k.encode(input.text, [], []);
  return { tokens, count: tokens.length };
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
      implementation: { name: "js-tiktoken", version, language, domains: ["token-encoding"] },
    };
  }
  const id = typeof request.id === "string" ? request.id : "";
  if (request.domain !== "token-encoding" || typeof request.input !== "object") {
    return { id, crash: { message: "not a token-encoding run request", detail: "" } };
  }
  try {
    return { id, output: tokenEncoding(request.input) };
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
