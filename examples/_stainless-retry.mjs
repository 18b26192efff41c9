// The http-retry worker shared by the Stainless-generated JS SDKs (openai, @anthropic-ai/sdk):
// their retry loops are one code base, so one worker drives each through its real client,
// `new Client({maxRetries, fetch})`, on a scripted fetch; each example's worker.mjs names
// its SDK and calls serve().
// Request i gets the case's i-th response (`connect` is fetch's TypeError "fetch failed",
// `timeout` an AbortError), any later request a 200. Nothing sleeps: globalThis.setTimeout
// records each retry sleep and fires it at once (the request-timeout timer, set to
// REQUEST_TIMEOUT_MS, is recorded apart and never fires); Date.now is the case's clock;
// inside calculateDefaultRetryTimeoutMillis Math.random is fed r = 4 * (1 - s), which makes
// the SDK's cap * (1 - 0.25 * r) equal to cap * s (README). Reported per decision: retry (another request was sent), delay_ms (the
// recorded sleep, whole ms rounded down), reason (what the SDK's shouldRetry returned for
// that response, with the x-should-retry value it read; a retried transport error is
// retryable_error; no retry left is retries_exhausted) and delay_source (backoff when the
// SDK computed its default backoff for that sleep, else the header the sleep equals). Attempt k is
// reached through k scripted 503s with x-should-retry: true; k > 50 is skipped. It speaks
// docs/protocol.md.

import { createInterface } from "node:readline";

const REQUEST_TIMEOUT_MS = 987654;
const MOST_SCRIPTED_RETRIES = 50;
const PRELUDE = { status: 503, headers: [["x-should-retry", "true"], ["retry-after-ms", "1"]] };
/** The SDK this worker serves (serve() sets it). */
let SDK;

function makeClient(options) {
  return new SDK.Client({ apiKey: "test", baseURL: SDK.baseURL, ...options });
}

function reply(item) {
  if ("error" in item) {
    if (item.error === "connect") throw new TypeError("fetch failed");
    throw Object.assign(new Error("This operation was aborted"), { name: "AbortError" });
  }
  const headers = new Headers(item.headers);
  headers.set("content-type", "application/json");
  return new Response(JSON.stringify({ error: {} }), { status: item.status, headers });
}

async function httpRetry(input) {
  const maxRetries = input.max_retries;
  let steps;
  let first = 0;
  if (input.steps !== undefined) {
    steps = input.steps;
  } else {
    const attempt = input.attempt;
    if (attempt > MOST_SCRIPTED_RETRIES && attempt < maxRetries) return null;
    const step = { response: input.response, now_ms: input.now_ms, sample: input.sample };
    first = Math.min(attempt, maxRetries);
    steps = [...Array(first).fill({ ...step, response: PRELUDE }), step];
  }
  let calls = 0;
  const sleeps = [];
  const draws = new Set();
  const verdicts = new Map();
  const current = () => steps[Math.min(Math.max(calls, 1), steps.length) - 1];
  const saved = { setTimeout: globalThis.setTimeout, now: Date.now };
  globalThis.setTimeout = (fn, ms, ...args) => {
    if (ms === REQUEST_TIMEOUT_MS) return saved.setTimeout(() => {}, 0);
    sleeps.push([calls, ms]);
    queueMicrotask(() => fn(...args));
    return saved.setTimeout(() => {}, 0);
  };
  Date.now = () => current().now_ms;
  let unscriptable;
  try {
    const fetch = async () => {
      calls += 1;
      if (calls > steps.length) {
        return new Response("{}", { status: 200, headers: { "content-type": "application/json" } });
      }
      const item = steps[calls - 1].response;
      if (!("error" in item)) {
        try {
          new Headers(item.headers);
        } catch (e) {
          unscriptable = e; // a header fetch's Headers cannot carry: the case is not run
        }
      }
      return reply(item);
    };
    const client = makeClient({ maxRetries, fetch, timeout: REQUEST_TIMEOUT_MS, logLevel: "off" });
    // The jitter draw: Math.random, only inside the SDK's backoff (it also draws request
    // log ids), fed r = 4 * (1 - s).
    const backoff = client.calculateDefaultRetryTimeoutMillis.bind(client);
    client.calculateDefaultRetryTimeoutMillis = (...args) => {
      draws.add(calls);
      const random = Math.random;
      Math.random = () => 4 * (1 - current().sample);
      try {
        return backoff(...args);
      } finally {
        Math.random = random;
      }
    };
    const shouldRetry = client.shouldRetry.bind(client);
    client.shouldRetry = async (response, ...rest) => {
      const result = await shouldRetry(response, ...rest);
      verdicts.set(calls, { result, header: response.headers.get("x-should-retry") });
      return result;
    };
    try {
      await client.request({ method: input.method.toLowerCase(), path: "/retry" });
    } catch (e) {
      if (!(e instanceof SDK.Client.APIError)) throw e; // the SDK gave up; the decisions say why
    }
  } finally {
    globalThis.setTimeout = saved.setTimeout;
    Date.now = saved.now;
  }
  if (unscriptable !== undefined) throw unscriptable;
  const decisions = [];
  for (let index = first; index < steps.length; index += 1) {
    if (calls <= index) {
      decisions.push({ retry: false, delay_ms: null, reason: "retries_exhausted", delay_source: null });
      break;
    }
    const item = steps[index].response;
    const retried = calls > index + 1;
    const verdict = verdicts.get(index + 1);
    let reason;
    if ("error" in item) reason = "retryable_error";
    else if (item.status < 300) reason = "not_an_error";
    else if (verdict === undefined) reason = "status_not_retryable";
    else if (verdict.header === "true") reason = "server_requested";
    else if (verdict.header === "false") reason = "server_declined";
    else reason = verdict.result ? "retryable_status" : "status_not_retryable";
    if (!retried && ["retryable_error", "retryable_status", "server_requested"].includes(reason) && index >= maxRetries) {
      reason = "retries_exhausted";
    }
    if (!retried) {
      decisions.push({ retry: false, delay_ms: null, reason, delay_source: null });
      break;
    }
    const [[, ms]] = sleeps.filter(([at]) => at === index + 1);
    let source = "retry-after";
    if (draws.has(index + 1)) source = "backoff";
    else if ((item.headers ?? []).some(([n, v]) => n.toLowerCase() === "retry-after-ms" && parseFloat(v) === ms)) {
      source = "retry-after-ms";
    }
    decisions.push({ retry: true, delay_ms: Math.floor(Math.round(ms * 1000) / 1000), reason, delay_source: source });
  }
  return input.steps !== undefined ? { decisions } : decisions[0];
}

async function answer(request) {
  if (request.cmd === "start") {
    return { ok: true, implementation: { name: SDK.name, version: SDK.version, language: "javascript", domains: ["http-retry"] } };
  }
  const id = request.id ?? "";
  if (request.domain !== "http-retry") return { id, crash: { message: "unknown domain", detail: "" } };
  try {
    const output = await httpRetry(request.input);
    if (output === null) {
      return { id, skip: { reason: `attempt above ${MOST_SCRIPTED_RETRIES}: each retry is replayed` } };
    }
    return { id, output };
  } catch (e) {
    return { id, crash: { message: String(e), detail: e?.stack ?? "" } };
  }
}

/**
 * Serve docs/protocol.md on stdin/stdout for one SDK: its default export `Client`, its
 * package `name` and `version`, and the `baseURL` its client is given.
 * @param {{Client: any, name: string, version: string, baseURL: string}} sdk
 */
export function serve(sdk) {
  SDK = sdk;
  let queue = Promise.resolve();
  const lines = createInterface({ input: process.stdin });
  lines.on("line", (line) => {
    const request = JSON.parse(line);
    if (request.cmd === "stop") {
      queue = queue.then(() => process.exit(0));
      return;
    }
    // One case at a time: each patches globals for its duration.
    queue = queue.then(async () => {
      process.stdout.write(`${JSON.stringify(await answer(request))}\n`);
    });
  });
  lines.on("close", () => {
    queue = queue.then(() => process.exit(0));
  });
}
