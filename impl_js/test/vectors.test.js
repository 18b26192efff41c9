// Runs every case of every ../../vectors/*.json file natively against the JS
// JSON layer (conformance/index.js), with the file's comparison rules and
// variants. One test per case; a vector file whose domain the JS package does not
// implement is reported skipped, so a domain can land one platform at a time.
// HANZO_CONFORMANCE_VECTORS=<folder> runs another folder's vectors instead;
// HANZO_CONFORMANCE_FAIL_FAST=1 ends the process (exit 1) at the first failing
// case, its report on stderr: a mutation run only needs to know that some case fails.
// Like the harness, this loader checks every input (and every variant of it)
// against the domain's $defs.input before the JSON layer sees it: the layers trust
// their input.

import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { describe, test } from "node:test";
import { pathToFileURL } from "node:url";

import { DOMAINS } from "../conformance/index.js";
import { HanzoError } from "../src/errors.js";
import { compare, show } from "./compare.js";
import { expandVariants } from "./variants.js";

const VECTORS = process.env.HANZO_CONFORMANCE_VECTORS
  ? pathToFileURL(process.env.HANZO_CONFORMANCE_VECTORS.replace(/\/?$/, "/"))
  : new URL("../../vectors/", import.meta.url);
const SCHEMAS = new URL("../../schemas/", import.meta.url);
const MAX_REPORTED_DIFFS = 20;
const MAX_REPORTED_CHUNKINGS = 10;
const FAIL_FAST = process.env.HANZO_CONFORMANCE_FAIL_FAST === "1";

/**
 * @typedef {{id: string, input: unknown, expected?: unknown, error?: string}} Case
 * @typedef {{domain: string, comparison?: import("./compare.js").Rule[],
 *   variants?: import("./compare.js").Variant[], cases: Case[]}} VectorFile
 */

/**
 * Runs one input through the JSON layer as the worker would (output round-tripped
 * through JSON), and returns a list of problems (empty: pass).
 * @param {(input: any) => any} run
 * @param {Case} c
 * @param {unknown} input
 * @param {VectorFile} file
 * @returns {string[]}
 */
function check(run, c, input, file) {
  let output;
  try {
    const raw = run(structuredClone(input));
    output = raw === undefined ? undefined : JSON.parse(JSON.stringify(raw));
  } catch (err) {
    if (err instanceof HanzoError) {
      if (c.error === undefined) return [`expected an output, got error ${err.code} (${err.message})`];
      return err.code === c.error ? [] : [`expected error ${c.error}, got error ${err.code} (${err.message})`];
    }
    const stack = err instanceof Error ? (err.stack ?? String(err)) : String(err);
    return [`crashed (not a HanzoError): ${stack}`];
  }
  if (c.error !== undefined) return [`expected error ${c.error}, got output ${show(output)}`];
  if (output === undefined) return ["run() returned undefined"];
  return compare(c.expected, output, { rules: file.comparison ?? [], input }).map(
    (d) =>
      `at ${d.pointer === "" ? "(root)" : d.pointer}: expected ${show(d.expected)}, actual ${show(d.actual)}` +
      (d.note ? ` (${d.note})` : ""),
  );
}

const files = readdirSync(VECTORS)
  .filter((name) => name.endsWith(".json"))
  .sort();

/** @type {Map<string, (input: unknown) => string | null>} */
const inputCheckers = new Map();

/**
 * A function giving why an input does not match `domain`'s $defs.input (null: it does).
 * @param {string} domain
 */
async function inputChecker(domain) {
  const { default: Ajv2020 } = await import("ajv/dist/2020.js");
  const schema = JSON.parse(readFileSync(new URL(`${domain}.schema.json`, SCHEMAS), "utf8"));
  const validate = new Ajv2020({ strict: false, allErrors: false }).compile({
    $defs: schema.$defs,
    $ref: "#/$defs/input",
  });
  return (/** @type {unknown} */ input) => {
    if (validate(input)) return null;
    const [error] = validate.errors ?? [];
    return `${error?.instancePath || "(root)"}: ${error?.message ?? "invalid"}`;
  };
}

for (const name of files) {
  /** @type {VectorFile} */
  const file = JSON.parse(readFileSync(new URL(name, VECTORS), "utf8"));
  if (DOMAINS[file.domain] !== undefined && !inputCheckers.has(file.domain)) {
    inputCheckers.set(file.domain, await inputChecker(file.domain));
  }
  describe(`vectors/${name} (${file.domain})`, () => {
    const run = DOMAINS[file.domain];
    if (run === undefined) {
      test(`${file.cases.length} cases`, { skip: `domain ${JSON.stringify(file.domain)} is not implemented by the js platform` }, () => {});
      return;
    }
    for (const c of file.cases) {
      test(c.id, () => {
        const runs = [{ chunking: "as written", input: c.input }, ...expandVariants(c.input, file.variants ?? [])];
        /** @type {string[]} */
        const report = [];
        let failing = 0;
        const inputProblem = /** @type {(input: unknown) => string | null} */ (inputCheckers.get(file.domain));
        for (const { chunking, input } of runs) {
          const invalid = inputProblem(input);
          const problems = invalid === null ? check(run, c, input, file) : [`not run: the input does not match $defs.input at ${invalid}`];
          if (problems.length === 0) continue;
          failing += 1;
          if (failing > MAX_REPORTED_CHUNKINGS) continue;
          const shown = problems.slice(0, MAX_REPORTED_DIFFS);
          if (problems.length > shown.length) shown.push(`... and ${problems.length - shown.length} more`);
          report.push(`case ${c.id} [chunking ${chunking}]:\n  ${shown.join("\n  ")}`);
          if (FAIL_FAST) break;
        }
        if (failing > MAX_REPORTED_CHUNKINGS) {
          report.push(`... ${failing - MAX_REPORTED_CHUNKINGS} more chunkings of ${c.id} fail`);
        }
        if (report.length > 0 && FAIL_FAST) {
          process.stderr.write(`${file.domain}: ${failing} of ${runs.length} runs fail\n${report.join("\n")}\n`);
          process.exit(1);
        }
        if (report.length > 0) {
          assert.fail(`${file.domain}: ${failing} of ${runs.length} runs fail\n${report.join("\n")}`);
        }
      });
    }
  });
}
