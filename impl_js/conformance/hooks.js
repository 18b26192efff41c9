// hooks JSON layer. HookRunner is asynchronous (it waits on processes), the JSON
// layer is synchronous: the case runs in a worker thread while this thread waits
// on an Atomics flag, then takes the answer with receiveMessageOnPort.
import { MessageChannel, Worker, receiveMessageOnPort } from "node:worker_threads";

import { HanzoError } from "../src/errors.js";
import { withTempRoot } from "./temp-root.js";

/**
 * `{hooks, event, tool_name, tool_input, ...}` -> `{decision, reason, ran, log, saw, leftover_processes}`.
 * @param {any} input
 */
export function run(input) {
  return withTempRoot("hooks", (root) => {
    const signal = new Int32Array(new SharedArrayBuffer(4));
    const { port1, port2 } = new MessageChannel();
    const worker = new Worker(new URL("./hooks-worker.js", import.meta.url), {
      workerData: { input, root, port: port2, signal },
      transferList: [port2],
    });
    try {
      // Bounded, so that a worker that dies before answering (a module that fails
      // to load) fails the case instead of hanging the platform.
      const limitMs = 30_000 + (input?.hooks ?? []).reduce((/** @type {number} */ sum, /** @type {any} */ h) => sum + (Number(h?.timeout_ms) || 5000), 0);
      if (Atomics.wait(signal, 0, 0, limitMs) === "timed-out") throw new Error(`hooks worker thread gave no answer in ${limitMs} ms`);
      const message = receiveMessageOnPort(port1)?.message;
      if (message?.error) throw new HanzoError(message.error.code, message.error.message);
      if (message?.crash !== undefined) throw new Error(`hooks case crashed in its worker thread:\n${message.crash}`);
      if (message === undefined) throw new Error("hooks worker thread ended without an answer");
      return message.output;
    } finally {
      void worker.terminate();
      port1.close();
    }
  });
}
