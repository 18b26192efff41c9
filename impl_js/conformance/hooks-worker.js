// Worker-thread side of conformance/hooks.js: for each {input, root} message, run
// the hooks case to completion, post {output} / {error: {code, message}} /
// {crash} on the reply port, then wake the blocked caller through the flag.
import { parentPort, workerData } from "node:worker_threads";

import { HanzoError } from "../src/errors.js";
import { runCase } from "./hooks-case.js";

const { port, signal } = workerData;
parentPort?.on("message", async ({ input, root }) => {
  try {
    port.postMessage({ output: await runCase(input, root) });
  } catch (err) {
    if (err instanceof HanzoError) port.postMessage({ error: { code: err.code, message: err.message } });
    else port.postMessage({ crash: err instanceof Error ? (err.stack ?? String(err)) : String(err) });
  } finally {
    Atomics.store(signal, 0, 1);
    Atomics.notify(signal, 0);
  }
});
