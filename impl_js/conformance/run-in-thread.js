// The JSON layer is synchronous; HookRunner (and so the pipeline) is asynchronous,
// since it waits on processes. An asynchronous case runs in one long-lived worker
// thread while this thread waits on an Atomics flag, then takes the answer with
// receiveMessageOnPort. Each request carries a sequence number that its reply echoes,
// so a reply that arrives after its caller gave up can never answer a later case.
import { MessageChannel, Worker, receiveMessageOnPort } from "node:worker_threads";

import { HanzoError } from "../src/errors.js";
import { withTempRoot } from "./temp-root.js";

/** @type {{worker: Worker, replies: import("node:worker_threads").MessagePort, signal: Int32Array} | null} */
let thread = null;
let sequence = 0;

function startThread() {
  const signal = new Int32Array(new SharedArrayBuffer(4));
  const { port1, port2 } = new MessageChannel();
  const worker = new Worker(new URL("./async-worker.js", import.meta.url), {
    workerData: { port: port2, signal },
    transferList: [port2],
  });
  worker.unref(); // never keeps the process alive
  return { worker, replies: port1, signal };
}

/**
 * Runs `domain`'s asynchronous case in a fresh temporary root, synchronously.
 * @param {string} domain
 * @param {any} input
 * @returns {any}
 */
export function runInThread(domain, input) {
  return withTempRoot(domain, (root) => {
    thread ??= startThread();
    const { worker, replies, signal } = thread;
    Atomics.store(signal, 0, 0);
    const seq = ++sequence;
    worker.postMessage({ seq, domain, input, root });
    // Bounded, so that a thread that never answers (a module that fails to load, a
    // hung case) fails this case and is replaced, instead of hanging the platform.
    const limitMs =
      30_000 + (input?.hooks ?? []).reduce((/** @type {number} */ sum, /** @type {any} */ h) => sum + (Number(h?.timeout_ms) || 5000), 0);
    if (Atomics.wait(signal, 0, 0, limitMs) === "timed-out") {
      thread = null;
      void worker.terminate();
      throw new Error(`${domain} worker thread gave no answer in ${limitMs} ms`);
    }
    let message = receiveMessageOnPort(replies)?.message;
    while (message !== undefined && message.seq !== seq) message = receiveMessageOnPort(replies)?.message;
    if (message === undefined) {
      // The flag was raised without this case's reply: the thread is out of step.
      thread = null;
      void worker.terminate();
      throw new Error(`${domain} worker thread answered nothing`);
    }
    if (message.error) throw new HanzoError(message.error.code, message.error.message);
    if (message.crash !== undefined) throw new Error(`${domain} case crashed in its worker thread:\n${message.crash}`);
    return message.output;
  });
}
