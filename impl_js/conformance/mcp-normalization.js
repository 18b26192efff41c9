// mcp-normalization JSON layer: op "normalize" or "parse" on src/mcp-names.js.
import { normalizeToolName, parseToolName } from "../src/mcp-names.js";

/**
 * `{op: "normalize", server, tool}` -> `{name}`; `{op: "parse", name}` -> `{server, tool}`.
 * @param {any} input
 * @returns {{name: string} | {server: string, tool: string}}
 */
export function run(input) {
  if (input.op === "normalize") return { name: normalizeToolName(input.server, input.tool) };
  const { server, tool } = parseToolName(input.name); // "parse"
  return { server, tool };
}
