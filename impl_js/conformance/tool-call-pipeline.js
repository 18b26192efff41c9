// tool-call-pipeline JSON layer: the case (tool-call-pipeline-case.js) runs
// asynchronously in the worker thread.
import { runInThread } from "./run-in-thread.js";

/**
 * `{rules, prompter, hooks, sandbox, call, tool_output, session_id}` -> `{ran, steps, tool_result, audit}`.
 * @param {any} input
 */
export function run(input) {
  return runInThread("tool-call-pipeline", input);
}
