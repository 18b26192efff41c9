// mcp-normalization JSON layer: op "normalize", "parse" or "table" on src/mcp-names.js.
import { HanzoError } from "../src/errors.js";
import { buildToolTable, normalizeToolName, parseToolName } from "../src/mcp-names.js";

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
 * @param {any} input
 * @returns {{table: {name: string, server: string, tool: string}[], resolved?: ({server: string, tool: string} | null)[]}}
 */
function table(input) {
  const servers = input?.servers;
  if (!Array.isArray(servers)) throw new HanzoError("bad_input", "input.servers must be a list");
  /** @type {[string, string[]][]} */
  const pairs = servers.map((item) => {
    if (typeof item?.server !== "string" || !Array.isArray(item?.tools)) {
      throw new HanzoError("bad_input", "each server must be {server, tools}");
    }
    if (!item.tools.every((/** @type {unknown} */ t) => typeof t === "string")) {
      throw new HanzoError("bad_input", "tools must be strings");
    }
    return [item.server, item.tools];
  });
  const built = buildToolTable(pairs);
  /** @type {{table: {name: string, server: string, tool: string}[], resolved?: ({server: string, tool: string} | null)[]}} */
  const out = { table: built.entries.map(({ name, server, tool }) => ({ name, server, tool })) };
  const lookup = input.lookup;
  if (lookup !== undefined) {
    if (!Array.isArray(lookup) || !lookup.every((n) => typeof n === "string")) {
      throw new HanzoError("bad_input", "input.lookup must be a list of strings");
    }
    out.resolved = lookup.map((n) => {
      const e = built.resolve(n);
      return e === null ? null : { server: e.server, tool: e.tool };
    });
  }
  return out;
}

/**
 * `{op: "normalize", server, tool}` -> `{name}`; `{op: "parse", name}` -> `{server, tool}`.
 * @param {any} input
 * @returns {{name: string} | {server: string, tool: string} | ReturnType<typeof table>}
 */
export function run(input) {
  switch (input?.op) {
    case "normalize":
      return { name: normalizeToolName(text(input, "server"), text(input, "tool")) };
    case "parse": {
      const { server, tool } = parseToolName(text(input, "name"));
      return { server, tool };
    }
    case "table":
      return table(input);
    default:
      throw new HanzoError("bad_input", 'input.op must be "normalize", "parse" or "table"');
  }
}
