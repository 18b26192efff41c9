// The JS JSON layer's own time per case, in process (bench/harness_overhead.py).
//
// Usage: node bench/harness_overhead_js.mjs DOMAIN INPUTS.json
// Prints the best of three passes over the inputs, in microseconds per case.

import { readFileSync } from "node:fs";
import { DOMAINS } from "../impl_js/conformance/index.js";
import { HanzoError } from "../impl_js/src/errors.js";

const [domain, file] = process.argv.slice(2);
const run = DOMAINS[domain];
/** @type {unknown[]} */
const inputs = JSON.parse(readFileSync(file, "utf8"));

function pass() {
  const began = process.hrtime.bigint();
  for (const input of inputs) {
    try {
      run(input);
    } catch (err) {
      if (!(err instanceof HanzoError)) throw err;
    }
  }
  return Number(process.hrtime.bigint() - began) / 1000 / inputs.length;
}

pass(); // warm-up: the JIT
process.stdout.write(`${Math.min(pass(), pass(), pass())}\n`);
