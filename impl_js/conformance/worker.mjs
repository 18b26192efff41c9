#!/usr/bin/env node
// The JS platform's worker: docs/protocol.md (JSON lines, version 1) over the
// JSON layer beside it (index.js).
//
// Usage: node impl_js/conformance/worker.mjs   (the harness does this: adapters/js.py)
//
// Requests are read in chunks and answered synchronously in arrival order; the
// answers to one stdin chunk are written with a single write, so a pipelined
// batch costs one JSON.parse and one JSON.stringify per case and few syscalls.
//
// The worker speaks the expect extension (docs/protocol.md, "The expect and
// expect-error extensions"), which the harness offers its own children after the
// handshake: once taken, a run
// request may carry "expect" (the expected output's JSON text, as a string), and an
// output whose JSON.stringify text is exactly that string is answered with the line
// "=" instead of the whole answer. Every other answer is written as without it.
// With the expect-error extension too, a request may carry "expect_error" (a contract
// error code) instead, and a HanzoError with that code is answered "!" and its message
// as a JSON string. With the tab-run extension as well, a line that does not begin
// with "{" is a case's own request as four tab-separated fields (handleTabLine),
// which spares the JSON.parse of the request around the input and of the expectation.

import { readFileSync } from "node:fs";

// SIGUSR1 would open Node's inspector on 127.0.0.1:9229, into which any local
// process (a hook: `kill -USR1 $PPID`) could then send code. A listener replaces that.
process.on("SIGUSR1", () => {});

const PROTOCOL_VERSIONS = [1];
const IMPL_ROOT = new URL("../", import.meta.url);

/** @type {Record<string, (input: any) => any>} */
let DOMAINS;
/** @type {typeof import("../src/errors.js").HanzoError} */
let HanzoError;
/** @type {{name: string, version: string}} */
let pkg;
try {
  ({ DOMAINS } = await import(new URL("conformance/index.js", IMPL_ROOT).href));
  ({ HanzoError } = await import(new URL("src/errors.js", IMPL_ROOT).href));
  pkg = JSON.parse(readFileSync(new URL("package.json", IMPL_ROOT), "utf8"));
} catch (err) {
  // The harness reports the handshake failure with this stderr.
  process.stderr.write(`worker: cannot load impl_js: ${describe(err).detail}\n`);
  process.exit(70);
}

let started = false;
let stopping = false;
let expecting = false; // the harness took the expect extension
let expectingErrors = false; // and the expect-error extension
let tabRun = false; // and the tab-run extension
const EXPECT = "expect";
const EXPECT_ERROR = "expect-error";
const TAB_RUN = "tab-run";
const OPEN_BRACE = 123; // "{": a JSON message; any other first character, a tab-run line
const ACK_MARK = 61; // "=" opens an expected output in a tab-run line's expectation
const ERROR_MARK = 33; // "!" an expected error code
const ACK = "=";
const ERROR_ACK = "!";
let pending = ""; // an incomplete line carried over between stdin chunks
/** @type {string[]} */
let out = [];

/**
 * @param {unknown} err
 * @returns {{message: string, detail: string}}
 */
function describe(err) {
  if (err instanceof Error) {
    return { message: `${err.name}: ${err.message}`, detail: err.stack ?? String(err) };
  }
  let text;
  try {
    text = typeof err === "string" ? err : JSON.stringify(err) ?? String(err);
  } catch {
    text = String(err);
  }
  return { message: `thrown non-Error value: ${text}`, detail: text };
}

/**
 * @param {string} id
 * @param {string} message
 * @param {string} detail
 */
function crash(id, message, detail) {
  return JSON.stringify({ id, crash: { message, detail } });
}

/**
 * @param {any} request
 * @returns {string}
 */
function handleStart(request) {
  if (request === null || typeof request !== "object" || request.cmd !== "start") {
    return JSON.stringify({
      ok: false,
      error: { code: "bad_request", message: "the first request must be {\"cmd\": \"start\", ...}" },
      versions: PROTOCOL_VERSIONS,
    });
  }
  if (!PROTOCOL_VERSIONS.includes(request.version)) {
    return JSON.stringify({
      ok: false,
      error: {
        code: "unsupported_version",
        message: `this worker speaks protocol ${PROTOCOL_VERSIONS.join(", ")}, not ${JSON.stringify(request.version)}`,
      },
      versions: PROTOCOL_VERSIONS,
    });
  }
  started = true;
  return JSON.stringify({
    ok: true,
    implementation: {
      name: pkg.name,
      version: pkg.version,
      language: "javascript",
      domains: Object.keys(DOMAINS).sort(),
    },
  });
}

/**
 * @param {any} request
 * @returns {string}
 */
function handleRun(request) {
  const id = typeof request.id === "string" ? request.id : "";
  if (id === "") {
    return crash("", "run request without a string id", JSON.stringify(request).slice(0, 1000));
  }
  const domain = request.domain;
  if (typeof domain !== "string" || !Object.hasOwn(DOMAINS, domain)) {
    return crash(id, `unknown domain ${JSON.stringify(domain)}`, `known: ${Object.keys(DOMAINS).join(", ")}`);
  }
  if (!("input" in request)) {
    return crash(id, "run request without input", "");
  }
  let output;
  try {
    output = DOMAINS[domain](request.input);
  } catch (err) {
    if (err instanceof HanzoError) {
      if (expectingErrors && typeof request.expect_error === "string" && err.code === request.expect_error && typeof err.message === "string") {
        return ERROR_ACK + JSON.stringify(err.message);
      }
      return JSON.stringify({ id, error: { code: err.code, message: err.message } });
    }
    const { message, detail } = describe(err);
    return crash(id, message, detail);
  }
  if (output === undefined) {
    return crash(id, `run() of ${domain} returned undefined`, "");
  }
  try {
    if (expecting && typeof request.expect === "string") {
      const text = JSON.stringify(output);
      if (text === request.expect) return ACK;
      if (text !== undefined) return `{"id":${JSON.stringify(id)},"output":${text}}`;
    }
    return JSON.stringify({ id, output });
  } catch (err) {
    const { message, detail } = describe(err);
    return crash(id, `output of ${domain} is not JSON-serializable: ${message}`, detail);
  }
}

/**
 * Answers one request line; returns null for "stop" (no answer).
 * @param {string} line
 * @returns {string | null}
 */
function handleLine(line) {
  if (tabRun && line.charCodeAt(0) !== OPEN_BRACE) return handleTabLine(line);
  let request;
  try {
    request = JSON.parse(line);
  } catch (err) {
    if (!started) return handleStart(null);
    return crash("", `request is not JSON: ${describe(err).message}`, line.slice(0, 1000));
  }
  if (!started) return handleStart(request);
  if (request === null || typeof request !== "object") {
    return crash("", "request is not a JSON object", line.slice(0, 1000));
  }
  switch (request.cmd) {
    case "run":
      return handleRun(request);
    case "stop":
      stopping = true;
      return null;
    case "start":
      return handleStart(request);
    case "extensions":
      return handleExtensions(request);
    default:
      return crash(
        typeof request.id === "string" ? request.id : "",
        `unknown cmd ${JSON.stringify(request.cmd)}`,
        "",
      );
  }
}

/**
 * A tab-run line (docs/protocol.md, "The tab-run extension"),
 * `<id> TAB <domain> TAB <expectation> TAB <input JSON>`, answered as the run request
 * it stands for (the same bytes: `=`, `!"<message>"` or the whole answer). Only the
 * input is parsed; a line that is not four fields or whose input is not JSON is a
 * crash for its id, as a request that is not JSON is.
 * @param {string} line
 * @returns {string}
 */
function handleTabLine(line) {
  const afterId = line.indexOf("\t");
  const afterDomain = afterId === -1 ? -1 : line.indexOf("\t", afterId + 1);
  const afterExpectation = afterDomain === -1 ? -1 : line.indexOf("\t", afterDomain + 1);
  // JSON.parse takes a tab as whitespace, so a fifth field must be looked for.
  if (afterExpectation === -1 || line.indexOf("\t", afterExpectation + 1) !== -1) {
    const fields = line.split("\t").length;
    return crash("", `tab-run line not taken apart: ${fields} tab-separated fields, not 4`, line.slice(0, 1000));
  }
  const id = line.slice(0, afterId);
  let input;
  try {
    input = JSON.parse(line.slice(afterExpectation + 1));
  } catch (err) {
    return crash(id, `tab-run line not taken apart: input is not JSON: ${describe(err).message}`, line.slice(0, 1000));
  }
  // The keys in the order of the run line it stands for (a crash's detail may show it).
  /** @type {Record<string, unknown>} */
  const request = { cmd: "run", id, domain: line.slice(afterId + 1, afterDomain), input };
  const mark = line.charCodeAt(afterDomain + 1);
  if (mark === ACK_MARK) request.expect = line.slice(afterDomain + 2, afterExpectation);
  else if (mark === ERROR_MARK) request.expect_error = line.slice(afterDomain + 2, afterExpectation);
  return handleRun(request);
}

/**
 * The harness offers extensions after the handshake: take "expect",
 * "expect-error" and "tab-run" if offered (each builds on the ones before it).
 * @param {any} request
 * @returns {string}
 */
function handleExtensions(request) {
  expecting = Array.isArray(request.use) && request.use.includes(EXPECT);
  expectingErrors = expecting && request.use.includes(EXPECT_ERROR);
  tabRun = expectingErrors && request.use.includes(TAB_RUN);
  if (expecting) {
    // stdout is the protocol's: a stray line there could be taken for an answer "=" in
    // a case's turn, so whatever the implementation logs goes to stderr (with the
    // crash's detail, if the harness reports one).
    for (const name of /** @type {const} */ (["log", "info", "debug"])) {
      console[name] = (...args) => console.error(...args);
    }
  }
  const taken = [EXPECT, EXPECT_ERROR, TAB_RUN].slice(0, tabRun ? 3 : expectingErrors ? 2 : expecting ? 1 : 0);
  return JSON.stringify({ extensions: taken });
}

// Answers are batched per stdin chunk, but never held longer than this: a slow
// case (hooks run real processes) must not keep the answers before it past the
// harness's per-case time limit.
const MAX_HOLD_MS = 100;
// Nor more than this many: a case that never returns keeps the answers held before
// it unwritten (one thread), and the harness then runs the unanswered cases one at
// a time to find it, which this bounds (adapters/js.py MAX_HELD).
const MAX_HELD = 256;
let lastFlush = Date.now();

function flush() {
  lastFlush = Date.now();
  if (out.length === 0) return true;
  const text = out.join("\n") + "\n";
  out = [];
  return process.stdout.write(text);
}

function finish() {
  flush();
  // Exit once everything written so far has reached the pipe (pipes may be asynchronous).
  process.stdout.write("", () => process.exit(0));
}

process.stdin.setEncoding("utf8");
process.stdin.on("data", (/** @type {string} */ chunk) => {
  if (stopping) return;
  let text = pending + chunk;
  let start = 0;
  let nl;
  while ((nl = text.indexOf("\n", start)) !== -1) {
    let end = nl;
    if (end > start && text.charCodeAt(end - 1) === 13) end -= 1; // tolerate CRLF
    if (end > start) {
      const answer = handleLine(text.slice(start, end));
      if (answer !== null) out.push(answer);
      if (out.length >= MAX_HELD || Date.now() - lastFlush > MAX_HOLD_MS) flush();
    }
    start = nl + 1;
    if (stopping) {
      finish();
      return;
    }
  }
  pending = text.slice(start);
  text = "";
  if (!flush()) {
    // Back-pressure: stop reading until the harness has drained stdout.
    process.stdin.pause();
    process.stdout.once("drain", () => process.stdin.resume());
  }
});
process.stdin.on("end", () => {
  if (stopping) return;
  // A last line without its newline; not trimmed, as a tab-run line's empty id counts.
  if (pending.endsWith("\r")) pending = pending.slice(0, -1);
  if (pending.trim() !== "") {
    const answer = handleLine(pending);
    if (answer !== null) out.push(answer);
  }
  finish();
});
process.stdout.on("error", (err) => {
  // The harness went away (EPIPE): nothing left to answer.
  process.stderr.write(`worker: stdout error: ${err.message}\n`);
  process.exit(0);
});
