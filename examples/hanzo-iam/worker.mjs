// A docs/protocol.md worker around the published @hanzo/iam (Hanzo's IAM SDK), for the
// oauth-pkce domain:
//
//     npm ci --prefix examples/hanzo-iam
//     hanzo-conformance run --worker iam='node examples/hanzo-iam/worker.mjs' \
//         --platform iam --domain oauth-pkce
//     hanzo-conformance generate --domain oauth-pkce --platform python \
//         --worker iam='node examples/hanzo-iam/worker.mjs'
//
// @hanzo/iam exports generatePKCEChallenge() and nothing that derives a challenge from
// a given verifier, so the domain's vectors (each a given verifier) do not apply to it:
// the worker answers them `skip`, with that reason. What applies is the property
// `generate` checks on every platform: `{"generate": true}` yields a valid, fresh pair
// (PKCE-4, PKCE-5). A worker touches no harness internals: it reads requests on stdin
// and writes one answer per line, in order.
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";

import { generatePKCEChallenge } from "@hanzo/iam";

// The package's exports do not include its package.json: read it where npm put it.
const installed = new URL("./node_modules/@hanzo/iam/package.json", import.meta.url);
const { version } = JSON.parse(readFileSync(installed, "utf8"));

const NOT_APPLICABLE =
  "@hanzo/iam exports no function deriving a challenge from a given verifier " +
  "(only generatePKCEChallenge(), checked by `hanzo-conformance generate`)";

/** @param {Record<string, any>} request */
async function answer(request) {
  if (request.cmd === "start") {
    if (request.version !== 1) {
      const error = { code: "unsupported_version", message: "protocol 1 only" };
      return { ok: false, error, versions: [1] };
    }
    const language = "javascript";
    return {
      ok: true,
      implementation: { name: "@hanzo/iam", version, language, domains: ["oauth-pkce"] },
    };
  }
  const id = typeof request.id === "string" ? request.id : "";
  if (request.domain !== "oauth-pkce" || typeof request.input !== "object") {
    return { id, crash: { message: "not an oauth-pkce run request", detail: "" } };
  }
  if (!request.input.generate) return { id, skip: { reason: NOT_APPLICABLE } };
  try {
    const pair = await generatePKCEChallenge();
    return { id, output: { verifier: pair.codeVerifier, challenge: pair.codeChallenge } };
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
  process.stdout.write(`${JSON.stringify(await answer(request))}\n`);
}
