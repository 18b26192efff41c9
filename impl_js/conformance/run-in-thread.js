// The JSON layer is synchronous; HookRunner (and so the pipeline) is asynchronous,
// since it waits on processes. An asynchronous case runs in one long-lived worker
// thread while this thread waits on an Atomics cell, then takes the answer with
// receiveMessageOnPort. Each request carries a sequence number that its reply echoes
// and that the worker writes into the cell after posting the reply: this thread waits
// for its own number, so neither a late reply nor a late wake-up meant for an earlier
// case can answer a later one (a 0/1 flag let a stale wake-up through under load:
// "answered nothing", seen twice by `generate --domain hooks` at load 6-7).
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
    const seq = (sequence = (sequence % 0x7fff_ffff) + 1); // stays a positive int32
    worker.postMessage({ seq, domain, input, root });
    // Bounded, so that a thread that never answers (a module that fails to load, a
    // hung case) fails this case and is replaced, instead of hanging the platform.
    const limitMs =
      30_000 + (input?.hooks ?? []).reduce((/** @type {number} */ sum, /** @type {any} */ h) => sum + (Number(h?.timeout_ms) || 5000), 0);
    const deadline = Date.now() + limitMs;
    for (let seen = Atomics.load(signal, 0); seen !== seq; seen = Atomics.load(signal, 0)) {
      const left = deadline - Date.now();
      if (left <= 0 || Atomics.wait(signal, 0, seen, left) === "timed-out") {
        thread = null;
        void worker.terminate();
        throw new Error(`${domain} worker thread gave no answer in ${limitMs} ms`);
      }
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
