// Stryker for one module of impl_js/src against the vectors of the domains that reach
// it (plus the module's own unit test, if any). Run through mutation/js/run.sh, which
// sets the variables read here; Stryker itself runs from the repository root.
import { existsSync } from "node:fs";

const module = process.env.HANZO_STRYKER_MODULE; // e.g. "backoff" (impl_js/src/backoff.js)
const vectors = process.env.HANZO_CONFORMANCE_VECTORS; // a folder with those domains' files
if (!module || !vectors) throw new Error("run mutation/js/run.sh, not stryker directly");
// A rerun of some mutants only, e.g. the survivors after a new vector:
// HANZO_STRYKER_MUTATE="impl_js/src/compaction.js:281:1-281:80" (comma-separated Stryker
// mutate ranges; a mutant runs only if it lies wholly inside one). Its report goes
// beside the whole module's (<module>.rerun.json), which it must not replace.
const only = process.env.HANZO_STRYKER_MUTATE;

const tests = ["impl_js/test/vectors.test.js"];
if (existsSync(`impl_js/test/${module}.test.js`)) tests.push(`impl_js/test/${module}.test.js`);

/** @type {import("@stryker-mutator/api/core").PartialStrykerOptions} */
export default {
  mutate: only ? only.split(",") : [`impl_js/src/${module}.js`],
  // The command runner: no per-test coverage, every mutant runs the whole command.
  testRunner: "command",
  commandRunner: { command: `node --test ${tests.join(" ")}` },
  coverageAnalysis: "off",
  concurrency: 1,
  // What the tests read: the library, the vectors and schemas, the shared tables,
  // the hook programs. Nothing else of the repository is copied into the sandbox.
  ignorePatterns: [
    "/*",
    "!/impl_js",
    "!/vectors",
    "!/schemas",
    "!/fixtures",
    "!/tests",
    "/tests/*",
    "!/tests/tables",
  ],
  tempDirName: "mutation/js/.stryker-tmp",
  reporters: ["clear-text", "progress", "json"],
  jsonReporter: { fileName: `mutation/js/reports/${module}${only ? ".rerun" : ""}.json` },
  clearTextReporter: { allowColor: false, logTests: false },
  timeoutMS: 20000,
};
