// Worker-thread side of run-in-thread.js: for each {seq, domain, input, root} message,
// run that domain's asynchronous case to completion, post {seq, output} / {seq, error:
// {code, message}} / {seq, crash} on the reply port, then write seq into the shared
// cell and wake the blocked caller.
import { parentPort, workerData } from "node:worker_threads";

import { HanzoError } from "../src/errors.js";
import { runCase as hooks } from "./hooks-case.js";
import { runCase as toolCallPipeline } from "./tool-call-pipeline-case.js";

/** @type {Record<string, (input: any, root: string) => Promise<unknown>>} */
const CASES = { hooks, "tool-call-pipeline": toolCallPipeline };

const { port, signal } = workerData;
parentPort?.on("message", async ({ seq, domain, input, root }) => {
  try {
    port.postMessage({ seq, output: await CASES[domain](input, root) });
  } catch (err) {
    if (err instanceof HanzoError) port.postMessage({ seq, error: { code: err.code, message: err.message } });
    else port.postMessage({ seq, crash: err instanceof Error ? (err.stack ?? String(err)) : String(err) });
  } finally {
    Atomics.store(signal, 0, seq);
    Atomics.notify(signal, 0);
  }
});
