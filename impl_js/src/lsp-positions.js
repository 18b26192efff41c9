// LSP 3.17 positions, line ends, document changes and base-protocol framing.
// HIP-301 section 8 (hanzo-lsp); contract: docs/domains/lsp-positions.md.
import { HanzoError } from "./errors.js";

/** @typedef {"utf-8" | "utf-16" | "utf-32"} Encoding */
/** @typedef {{line: number, character: number}} Position */
/** @typedef {{start: Position, end: Position}} Range */
/** @typedef {{text: string, end: string}} Line */

/** The largest line, character, offset or Content-Length: LSP uinteger (LSP-5). */
export const MAX_UINTEGER = 2 ** 31 - 1;

/** Every lsp-positions contract error; `code` names which (docs/domains/lsp-positions.md). */
export class LspError extends HanzoError {}

/**
 * `name` if it is one of the three encodings, else unknown_encoding (LSP-1).
 * @param {unknown} name
 * @returns {Encoding}
 */
export function checkEncoding(name) {
  if (name === "utf-8" || name === "utf-16" || name === "utf-32") return name;
  throw new LspError("unknown_encoding", `unknown position encoding ${JSON.stringify(name)}`);
}

/**
 * @param {number} codePoint
 * @param {Encoding} encoding
 */
function width(codePoint, encoding) {
  if (encoding === "utf-32") return 1;
  if (encoding === "utf-16") return codePoint > 0xffff ? 2 : 1;
  if (codePoint < 0x80) return 1;
  if (codePoint < 0x800) return 2;
  return codePoint < 0x10000 ? 3 : 4;
}

/**
 * The length of text.slice(start, end) in `encoding`'s units (LSP-1).
 * @param {string} text
 * @param {number} start
 * @param {number} end
 * @param {Encoding} encoding
 */
export function units(text, start, end, encoding) {
  if (encoding === "utf-16") return end - start;
  let count = 0;
  for (let at = start; at < end; ) {
    const cp = /** @type {number} */ (text.codePointAt(at));
    count += width(cp, encoding);
    at += cp > 0xffff ? 2 : 1;
  }
  return count;
}

/**
 * The greatest code point boundary in [start, stop] (UTF-16 indices) with at most
 * `count` units of `encoding` from `start` (LSP-3b/c, LSP-4a/b: snap back).
 * @param {string} text
 * @param {number} start
 * @param {number} stop
 * @param {number} count
 * @param {Encoding} encoding
 */
function boundaryAt(text, start, stop, count, encoding) {
  let used = 0;
  let at = start;
  while (at < stop) {
    const cp = /** @type {number} */ (text.codePointAt(at));
    used += width(cp, encoding);
    if (used > count) return at;
    at += cp > 0xffff ? 2 : 1;
  }
  return stop;
}

/**
 * @param {number} value
 * @param {string} code
 * @param {string} what
 */
function checkNumber(value, code, what) {
  if (!Number.isInteger(value) || value < 0 || value > MAX_UINTEGER) {
    throw new LspError(code, `${what} ${value} is outside [0, 2^31 - 1]`);
  }
}

/** A text document addressed by LSP positions in one position encoding. */
export class TextDocument {
  /** @type {string} */ #text = "";
  /** @type {number[]} line starts */ #starts = [];
  /** @type {number[]} ends of line content */ #ends = [];
  /** @type {number[]} starts of the next line */ #nexts = [];
  /** @type {Map<Encoding, number[]>} line starts in utf-8 / utf-32 units, then the length */
  #unitStarts = new Map();

  /**
   * @param {string} text
   * @param {string} [encoding]
   */
  constructor(text, encoding = "utf-16") {
    /** @type {Encoding} */
    this.encoding = checkEncoding(encoding);
    this.#setText(text);
  }

  /** @param {string} text */
  #setText(text) {
    this.#text = text;
    const starts = [0];
    const ends = [];
    const nexts = [];
    for (let at = 0; at < text.length; at++) {
      const c = text.charCodeAt(at);
      if (c === 10 || c === 13) {
        ends.push(at);
        if (c === 13 && text.charCodeAt(at + 1) === 10) at++;
        nexts.push(at + 1);
        starts.push(at + 1);
      }
    }
    ends.push(text.length);
    nexts.push(text.length);
    this.#starts = starts;
    this.#ends = ends;
    this.#nexts = nexts;
    this.#unitStarts = new Map();
  }

  /**
   * Where line `line` starts in `unit`s (`line` = the number of lines: the length).
   * @param {number} line
   * @param {Encoding} unit
   */
  #startIn(line, unit) {
    if (unit === "utf-16") return line < this.#starts.length ? this.#starts[line] : this.#text.length;
    let starts = this.#unitStarts.get(unit);
    if (starts === undefined) {
      starts = [];
      let total = 0;
      for (let i = 0; i < this.#starts.length; i++) {
        starts.push(total);
        total += units(this.#text, this.#starts[i], this.#nexts[i], unit);
      }
      starts.push(total);
      this.#unitStarts.set(unit, starts);
    }
    return starts[line];
  }

  /** The document text. */
  get text() {
    return this.#text;
  }

  /** @returns {Line[]} every line with its line end (LSP-2) */
  lines() {
    return this.#starts.map((start, i) => ({
      text: this.#text.slice(start, this.#ends[i]),
      end: this.#text.slice(this.#ends[i], this.#nexts[i]),
    }));
  }

  /**
   * The UTF-16 index of the boundary `position` denotes (LSP-3).
   * @param {Position} position
   */
  #indexOf(position) {
    checkNumber(position.line, "invalid_position", "line");
    checkNumber(position.character, "invalid_position", "character");
    if (position.line >= this.#starts.length) return this.#text.length;
    const start = this.#starts[position.line];
    return boundaryAt(this.#text, start, this.#ends[position.line], position.character, this.encoding);
  }

  /**
   * The offset, in `unit`, of the boundary `position` denotes (LSP-3).
   * @param {Position} position
   * @param {string} unit
   */
  offsetAt(position, unit) {
    const unitEncoding = checkEncoding(unit);
    const index = this.#indexOf(position);
    if (position.line >= this.#starts.length) return this.#startIn(this.#starts.length, unitEncoding);
    const start = this.#starts[position.line];
    return this.#startIn(position.line, unitEncoding) + units(this.#text, start, index, unitEncoding);
  }

  /**
   * The position of the greatest boundary at most `offset` units of `unit` in (LSP-4).
   * @param {number} offset
   * @param {string} unit
   * @returns {Position}
   */
  positionAt(offset, unit) {
    const unitEncoding = checkEncoding(unit);
    checkNumber(offset, "invalid_offset", "offset");
    let low = 0;
    let high = this.#starts.length;
    while (high - low > 1) {
      const mid = (low + high) >> 1;
      if (this.#startIn(mid, unitEncoding) <= offset) low = mid;
      else high = mid;
    }
    const within = offset - this.#startIn(low, unitEncoding);
    let index = boundaryAt(this.#text, this.#starts[low], this.#nexts[low], within, unitEncoding);
    index = Math.min(index, this.#ends[low]); // inside a line end (LSP-4c)
    return { line: low, character: units(this.#text, this.#starts[low], index, this.encoding) };
  }

  /**
   * Apply one TextDocumentContentChangeEvent (LSP-6).
   * @param {string} text
   * @param {Range} [range]
   */
  applyChange(text, range) {
    if (range === undefined) {
      this.#setText(text);
      return;
    }
    const start = this.#indexOf(range.start);
    const end = this.#indexOf(range.end);
    if (start > end) {
      throw new LspError("invalid_range", `range start (index ${start}) is after its end (index ${end})`);
    }
    this.#setText(this.#text.slice(0, start) + text + this.#text.slice(end));
  }
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const VALUE = /^[\x20-\x7e\t]*$/;
const DIGITS = /^[0-9]+$/;

/**
 * @param {string} value
 */
function trimOws(value) {
  return value.replace(/^[ \t]+|[ \t]+$/g, "");
}

/**
 * LSP-8d: the value's charset parameter, if any, is utf-8 or utf8.
 * @param {string} value
 */
function charsetOk(value) {
  for (const parameter of value.split(";").slice(1)) {
    const eq = parameter.indexOf("=");
    if (eq < 0 || trimOws(parameter.slice(0, eq)).toLowerCase() !== "charset") continue;
    let charset = trimOws(parameter.slice(eq + 1));
    if (charset.length >= 2 && charset.startsWith('"') && charset.endsWith('"')) {
      charset = charset.slice(1, -1);
    }
    const lowered = charset.toLowerCase();
    if (lowered !== "utf-8" && lowered !== "utf8") return false;
  }
  return true;
}

/**
 * The Content-Length of a complete header part, its bytes one char each (LSP-8b-e).
 * @param {string} header
 */
function contentLength(header) {
  /** @type {number | undefined} */
  let length;
  for (const field of header === "" ? [] : header.split("\r\n")) {
    const colon = field.indexOf(":");
    const name = colon < 0 ? "" : field.slice(0, colon);
    const raw = colon < 0 ? "" : field.slice(colon + 1);
    if (colon < 0 || !TOKEN.test(name) || !VALUE.test(raw)) {
      throw new LspError("invalid_header", `malformed header field ${JSON.stringify(field)}`);
    }
    const value = trimOws(raw);
    const lowered = name.toLowerCase();
    if (lowered === "content-length") {
      if (length !== undefined) {
        throw new LspError("duplicate_content_length", "a second Content-Length field");
      }
      const parsed = DIGITS.test(value) ? Number(value) : NaN;
      if (!(parsed <= MAX_UINTEGER)) {
        throw new LspError("invalid_content_length", `Content-Length ${JSON.stringify(value)} is not 1*DIGIT <= 2^31 - 1`);
      }
      length = parsed;
    } else if (lowered === "content-type" && !charsetOk(value)) {
      throw new LspError("unsupported_charset", `Content-Type ${JSON.stringify(value)}: only utf-8 is supported`);
    }
  }
  if (length === undefined) throw new LspError("missing_content_length", "the header part has no Content-Length");
  return length;
}

/**
 * Where "\r\n\r\n" starts in `bytes`, or -1.
 * @param {Uint8Array} bytes
 */
function headerEnd(bytes) {
  for (let at = 0; at + 3 < bytes.length; at++) {
    if (bytes[at] === 13 && bytes[at + 1] === 10 && bytes[at + 2] === 13 && bytes[at + 3] === 10) return at;
  }
  return -1;
}

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** Splits a byte stream into LSP base-protocol messages (LSP-8). */
export class MessageReader {
  #buffer = new Uint8Array(0);
  /** @type {[number, number] | undefined} header size, content length */
  #pending;

  /** Bytes received that belong to no complete message yet (LSP-8g). */
  get buffered() {
    return this.#buffer.length;
  }

  /**
   * Take `data`; return the content of every message it completes, in order.
   * @param {Uint8Array} data
   * @returns {string[]}
   */
  feed(data) {
    const joined = new Uint8Array(this.#buffer.length + data.length);
    joined.set(this.#buffer);
    joined.set(data, this.#buffer.length);
    this.#buffer = joined;
    /** @type {string[]} */
    const messages = [];
    for (;;) {
      if (this.#pending === undefined) {
        const end = headerEnd(this.#buffer);
        if (end < 0) return messages;
        const header = String.fromCharCode(...this.#buffer.subarray(0, end));
        this.#pending = [end + 4, contentLength(header)];
      }
      const [headerSize, length] = this.#pending;
      if (this.#buffer.length - headerSize < length) return messages;
      let content;
      try {
        content = utf8.decode(this.#buffer.subarray(headerSize, headerSize + length));
      } catch {
        throw new LspError("invalid_content", "content is not UTF-8");
      }
      messages.push(content);
      this.#buffer = this.#buffer.slice(headerSize + length);
      this.#pending = undefined;
    }
  }
}

/**
 * The encoding a server picks (LSP-9a): the client's first offer it supports, else utf-16.
 * @param {string[] | undefined} clientOffers
 * @param {string[]} serverSupports
 */
export function negotiatePositionEncoding(clientOffers, serverSupports) {
  return clientOffers?.find((offer) => serverSupports.includes(offer)) ?? "utf-16";
}

/**
 * The encoding in use after the server's answer, as its client checks it (LSP-9b).
 * @param {string[] | undefined} clientOffers
 * @param {string | undefined} serverAnswer
 */
export function acceptPositionEncoding(clientOffers, serverAnswer) {
  if (serverAnswer === undefined || serverAnswer === "utf-16") return "utf-16";
  if (clientOffers?.includes(serverAnswer)) return serverAnswer;
  throw new LspError("encoding_not_offered", `the server chose ${JSON.stringify(serverAnswer)}, which the client did not offer`);
}
