// bench/lsp_positions.py's JS side: impl_js's TextDocument against
// vscode-languageserver-textdocument 1.0.16 (from examples/vscode-textdocument/node_modules)
// on one document; prints one JSON line. argv[2]: the directory bench/lsp_positions.py wrote.
import { readFileSync } from "node:fs";

import { TextDocument as Ours } from "../impl_js/src/lsp-positions.js";
import { TextDocument as Vscode } from "../examples/vscode-textdocument/node_modules/vscode-languageserver-textdocument/lib/esm/main.js";

const dir = process.argv[2];
const doc = readFileSync(`${dir}/doc.txt`, "utf8");
/** @param {string} name */
const rows = (name) =>
  readFileSync(`${dir}/${name}`, "utf8")
    .trimEnd()
    .split("\n")
    .map((l) => l.split(" ").map(Number));
const positions = rows("positions.txt");
const offsets = rows("offsets.txt");
const rounds = 5;

/** @param {() => void} work @param {number} ops */
function perOpNs(work, ops) {
  const start = process.hrtime.bigint();
  work();
  return Number(process.hrtime.bigint() - start) / ops;
}

let sum = 0;
let start = process.hrtime.bigint();
const ours = new Ours(doc, "utf-16");
ours.offsetAt({ line: 0, character: 0 }, "utf-16"); // as vscode's first call, in the build
const oursBuild = Number(process.hrtime.bigint() - start) / 1e6;
start = process.hrtime.bigint();
const theirs = Vscode.create("file:///bench.txt", "plaintext", 1, doc);
theirs.offsetAt({ line: 0, character: 0 }); // its line offsets are made on first use
const theirsBuild = Number(process.hrtime.bigint() - start) / 1e6;

const oursToOffset = perOpNs(() => {
  for (let r = 0; r < rounds; r++) for (const [line, character] of positions) sum += ours.offsetAt({ line, character }, "utf-16");
}, rounds * positions.length);
const theirsToOffset = perOpNs(() => {
  for (let r = 0; r < rounds; r++) for (const [line, character] of positions) sum += theirs.offsetAt({ line, character });
}, rounds * positions.length);
const oursToPosition = perOpNs(() => {
  for (let r = 0; r < rounds; r++) for (const o of offsets) sum += ours.positionAt(o[1], "utf-16").character;
}, rounds * offsets.length);
const theirsToPosition = perOpNs(() => {
  for (let r = 0; r < rounds; r++) for (const o of offsets) sum += theirs.positionAt(o[1]).character;
}, rounds * offsets.length);
console.log(
  JSON.stringify({
    ours_build_ms: oursBuild,
    theirs_build_ms: theirsBuild,
    ours_to_offset_ns: oursToOffset,
    theirs_to_offset_ns: theirsToOffset,
    ours_to_position_ns: oursToPosition,
    theirs_to_position_ns: theirsToPosition,
    sum,
  }),
);
