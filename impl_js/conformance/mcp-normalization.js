// mcp-normalization JSON layer: op "normalize", "parse" or "table" on src/mcp-names.js.
import { buildToolTable, normalizeToolName, parseToolName } from "../src/mcp-names.js";

/**
 * `{op: "table", servers: [{server, tools}], lookup?}` -> `{table, resolved?}` (MCP-8).
 * @param {any} input
 * @returns {{table: {name: string, server: string, tool: string}[], resolved?: ({server: string, tool: string} | null)[]}}
 */
function table(input) {
  const built = buildToolTable(
    input.servers.map((/** @type {{server: string, tools: string[]}} */ s) => [s.server, s.tools]),
  );
  /** @type {{table: {name: string, server: string, tool: string}[], resolved?: ({server: string, tool: string} | null)[]}} */
  const out = { table: built.entries.map(({ name, server, tool }) => ({ name, server, tool })) };
  if (input.lookup !== undefined) {
    out.resolved = input.lookup.map((/** @type {string} */ n) => {
      const e = built.resolve(n);
      return e === null ? null : { server: e.server, tool: e.tool };
    });
  }
  return out;
}

/**
 * `{op: "normalize", server, tool}` -> `{name}`; `{op: "parse", name}` -> `{server, tool}`;
 * `{op: "table", ...}` -> `{table, resolved?}`.
 * @param {any} input
 * @returns {{name: string} | {server: string, tool: string} | ReturnType<typeof table>}
 */
export function run(input) {
  if (input.op === "normalize") return { name: normalizeToolName(input.server, input.tool) };
  if (input.op === "table") return table(input);
  const { server, tool } = parseToolName(input.name); // "parse"
  return { server, tool };
}
