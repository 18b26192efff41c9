// mcp-normalization JSON layer: op "normalize" or "parse" on src/mcp-names.js.
import { HanzoError } from "../src/errors.js";
import { normalizeToolName, parseToolName } from "../src/mcp-names.js";

/**
 * @param {any} input
 * @param {string} key
 * @returns {string}
 */
function text(input, key) {
  const value = input?.[key];
  if (typeof value !== "string") throw new HanzoError("bad_input", `input.${key} must be a string`);
  return value;
}

/**
 * `{op: "normalize", server, tool}` -> `{name}`; `{op: "parse", name}` -> `{server, tool}`.
 * @param {any} input
 * @returns {{name: string} | {server: string, tool: string}}
 */
export function run(input) {
  switch (input?.op) {
    case "normalize":
      return { name: normalizeToolName(text(input, "server"), text(input, "tool")) };
    case "parse": {
      const { server, tool } = parseToolName(text(input, "name"));
      return { server, tool };
    }
    default:
      throw new HanzoError("bad_input", 'input.op must be "normalize" or "parse"');
  }
}
