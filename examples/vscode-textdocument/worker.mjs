// A conformance worker (docs/protocol.md) for vscode-languageserver-textdocument 1.0.16,
// the TextDocument of Microsoft's Node language server library, on lsp-positions.
//
//   npm ci --prefix examples/vscode-textdocument
//   hanzo-conformance run --worker vscode='node examples/vscode-textdocument/worker.mjs' \
//       --platform vscode --domain lsp-positions --expectations examples/vscode-textdocument/expectations.json
//
// Each document case goes through TextDocument.create, offsetAt, positionAt, getText,
// lineCount and TextDocument.update, and nothing is corrected. The package counts UTF-16
// code units only (its offsets are JS string indices), so a case in another position
// encoding is skipped; offsetAt's UTF-16 index is converted exactly to the case's offset
// unit, but positionAt takes UTF-16 offsets only (another unit would need the snapping
// rule under test), so those cases are skipped too, as are framing and negotiation,
// which the package does not do.
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";

import { TextDocument } from "vscode-languageserver-textdocument";

const installed = new URL(
  "./node_modules/vscode-languageserver-textdocument/package.json",
  import.meta.url,
);
const { version } = JSON.parse(readFileSync(installed, "utf8"));
// Larger than any line: getText clamps it to the end of the line's content.
const END_OF_LINE = 2 ** 31 - 1;

class Skip extends Error {}

/**
 * The length of text.slice(0, index) in `unit`.
 * @param {string} text
 * @param {number} index
 * @param {string} unit
 */
function units(text, index, unit) {
  const prefix = text.slice(0, index);
  if (unit === "utf-16") return prefix.length;
  if (unit === "utf-32") return [...prefix].length;
  return new TextEncoder().encode(prefix).length;
}

/** @param {any} input */
function documentCase(input) {
  const encoding = input.encoding ?? "utf-16";
  if (encoding !== "utf-16") throw new Skip("the package counts UTF-16 code units only");
  const unit = input.offset_unit;
  if (!["utf-8", "utf-16", "utf-32"].includes(unit)) {
    throw new Skip("the package has no offset units (no unknown-encoding error)");
  }
  if (unit !== "utf-16" && input.ops.some((/** @type {any} */ op) => op.op === "position_at")) {
    throw new Skip("positionAt takes UTF-16 offsets only");
  }
  let version = 1;
  const doc = TextDocument.create("file:///case.txt", "plaintext", version, input.text);
  /** @type {unknown[]} */
  const results = [];
  for (const op of input.ops) {
    if (op.op === "offset_at") {
      const offset = doc.offsetAt({ line: op.line, character: op.character });
      results.push(units(doc.getText(), offset, unit));
    } else if (op.op === "position_at") {
      results.push(doc.positionAt(op.offset));
    } else if (op.op === "lines") {
      const lines = [];
      for (let line = 0; line < doc.lineCount; line++) {
        const text = doc.getText({ start: { line, character: 0 }, end: { line, character: END_OF_LINE } });
        const end = doc.getText({
          start: { line, character: END_OF_LINE },
          end: { line: line + 1, character: 0 },
        });
        lines.push({ text, end });
      }
      results.push(lines);
    } else {
      const change = op.range === undefined ? { text: op.text } : { range: op.range, text: op.text };
      TextDocument.update(doc, [change], ++version);
      results.push(doc.getText());
    }
  }
  return { results };
}

/** @param {any} input */
function run(input) {
  if (input.chunks !== undefined) throw new Skip("the package does no base-protocol framing");
  if (input.negotiate !== undefined || input.accept !== undefined) {
    throw new Skip("the package has no position-encoding negotiation");
  }
  return documentCase(input);
}

/** @param {Record<string, any>} request */
function answer(request) {
  if (request.cmd === "start") {
    if (request.version !== 1) {
      const error = { code: "unsupported_version", message: "protocol 1 only" };
      return { ok: false, error, versions: [1] };
    }
    const language = `javascript (node ${process.versions.node})`;
    return {
      ok: true,
      implementation: {
        name: "vscode-languageserver-textdocument",
        version,
        language,
        domains: ["lsp-positions"],
      },
    };
  }
  const id = typeof request.id === "string" ? request.id : "";
  if (request.domain !== "lsp-positions" || typeof request.input !== "object") {
    return { id, crash: { message: "not an lsp-positions run request", detail: "" } };
  }
  try {
    return { id, output: run(request.input) };
  } catch (e) {
    if (e instanceof Skip) return { id, skip: { reason: e.message } };
    const error = /** @type {Error} */ (e);
    return { id, crash: { message: String(error), detail: error.stack ?? "" } };
  }
}

for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  let request;
  try {
    request = JSON.parse(line);
  } catch (e) {
    process.stdout.write(`${JSON.stringify({ id: "", crash: { message: String(e), detail: "" } })}\n`);
    continue;
  }
  if (request.cmd === "stop") break;
  process.stdout.write(`${JSON.stringify(answer(request))}\n`);
}
