// lsp-positions JSON layer: document ops, framing, encoding negotiation (LSP-7..9).
import {
  MessageReader,
  TextDocument,
  acceptPositionEncoding,
  checkEncoding,
  negotiatePositionEncoding,
} from "../src/lsp-positions.js";

/**
 * @typedef {{op: "offset_at", line: number, character: number} | {op: "position_at", offset: number}
 *   | {op: "lines"} | {op: "change", text: string, range?: import("../src/lsp-positions.js").Range}} Op
 */

/**
 * @param {{text: string, encoding?: string, offset_unit: string, ops: Op[]}} input
 */
function document(input) {
  const doc = new TextDocument(input.text, input.encoding); // absent: the library's default (LSP-1)
  const unit = checkEncoding(input.offset_unit); // LSP-1: before any op runs
  /** @type {unknown[]} */
  const results = [];
  for (const op of input.ops) {
    if (op.op === "offset_at") results.push(doc.offsetAt({ line: op.line, character: op.character }, unit));
    else if (op.op === "position_at") results.push(doc.positionAt(op.offset, unit));
    else if (op.op === "lines") results.push(doc.lines());
    else {
      doc.applyChange(op.text, op.range);
      results.push(doc.text);
    }
  }
  return { results };
}

/** @param {string[]} chunks */
function frames(chunks) {
  const reader = new MessageReader();
  /** @type {string[]} */
  const messages = [];
  for (const chunk of chunks) {
    // one code point U+0000..U+00FF per byte (LSP-8)
    const bytes = Uint8Array.from(chunk, (c) => /** @type {number} */ (c.codePointAt(0)));
    messages.push(...reader.feed(bytes));
  }
  return { messages, buffered: reader.buffered };
}

/**
 * @param {any} input
 */
export function run(input) {
  if (input.chunks !== undefined) return frames(input.chunks);
  if (input.negotiate !== undefined) {
    return { encoding: negotiatePositionEncoding(input.negotiate.client_offers, input.negotiate.server_supports) };
  }
  if (input.accept !== undefined) {
    return { encoding: acceptPositionEncoding(input.accept.client_offers, input.accept.server_answer) };
  }
  return document(input);
}
