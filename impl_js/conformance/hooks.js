// hooks JSON layer: the case (hooks-case.js) runs asynchronously in the worker thread.
import { runInThread } from "./run-in-thread.js";

/**
 * `{hooks, event, tool_name, tool_input, ...}` -> `{decision, reason, ran, log, saw, leftover_processes}`.
 * @param {any} input
 */
export function run(input) {
  return runInThread("hooks", input);
}
