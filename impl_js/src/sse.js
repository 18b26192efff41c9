// Incremental Server-Sent Events frame parsing (HIP-301 §3; contract:
// docs/domains/sse-frames.md, clauses SSE-1..SSE-10).
//
// Bytes are held undecoded until they complete a block (an empty line, which
// dispatches) or, once HOLD_MAX bytes are held, a line; then the held bytes
// and the chunk up to that point are decoded as one run and read by one pass
// of #lines, and the bytes after it (the start of the incomplete last line,
// SSE-3d, or of the open block) stay held. A frame is still returned by the
// chunk that completes it, but a block is decoded in few runs however it is
// chunked, and every byte is decoded once. A run ends with CR or LF, never
// inside a character, so nothing is decoded across a cut and the decoders keep
// no state between calls. Feeding is linear in the input for any chunking
// (SSE-10): held bytes grow by doubling.
//
// Bytes are decoded as the WHATWG Encoding Standard's UTF-8 decoder does
// (invalid sequences become U+FFFD, SSE-11): a run that `buffer.isAscii`
// (simdutf) finds all-ASCII is its own Latin-1 text, a one-byte string; other
// runs under FAST_DECODE_MIN bytes go to a TextDecoder (ICU in Node), longer
// ones to `buffer.transcode` (simdutf, faster per byte, bench/README.md).
// transcode accepts only well-formed UTF-8, which every conforming decoder
// decodes alike; on anything else that run, and the rest of the stream, go to
// the TextDecoder. The decoders keep a BOM and the parser drops the first
// decoded U+FEFF itself (SSE-2).
//
// Lines are found by indexOf for LF and CR, each resumed only once passed, and
// interpreted in place by character code, without slicing out a name. The
// String.prototype methods are called through `.call` on the functions
// themselves: #lines reads strings of several representations (one- and
// two-byte, sliced), and a method looked up on them is a megamorphic property
// load in V8's optimized code, a fifth of #lines' time (bench/README.md).
//
// UTF-16 note: the only code points this module looks for are CR, LF, ":",
// U+0020, U+0000, U+FEFF and the ASCII letters of the field names. All are
// single BMP code units that never occur inside a surrogate pair, so comparing
// and slicing at them never breaks a code point.

import { isAscii, transcode } from "node:buffer";

/** The largest accepted `retry` value, 2^53-1 (SSE-7d); a double represents it exactly. */
export const MAX_RETRY = Number.MAX_SAFE_INTEGER;

const MAX_RETRY_DIGITS = String(MAX_RETRY);
const ASCII_DIGITS = /^[0-9]+$/;

// Character codes.
const LF = 10;
const CR = 13;
const SPACE = 32;
const COLON = 58;
const BOM = 0xfeff;

const STREAM = { stream: true };
/** "No such line ending" in #lines: after every index, and a Smi (2^30 is not). */
const NONE = 0x3fffffff;
/** Non-ASCII runs in a row after which only some are checked for ASCII. */
const ASCII_MISSES = 4;
/** After ASCII_MISSES, one run in this many (a power of 2) is checked. */
const ASCII_RETRY = 64;
/** Buffer's Latin-1 decoder, called on a Uint8Array; exact for ASCII bytes. */
const latin1Slice = Buffer.prototype.latin1Slice;
/** Buffer's UTF-16LE decoder, called on transcode's output. */
const ucs2Slice = Buffer.prototype.ucs2Slice;
const { charCodeAt, indexOf, slice, includes } = String.prototype;
/**
 * Runs of at least this many bytes are decoded by `transcode` (simdutf)
 * rather than the TextDecoder (ICU): faster per byte on large runs, but with
 * a larger cost per call, so slower on small ones.
 */
const FAST_DECODE_MIN = 4096;
/**
 * A block's first this many data values are joined by concatenation (a rope,
 * flattened once when read: cheaper than an array's join for a few values);
 * the rest are gathered in an array and joined once, on dispatch.
 */
const CONCAT_VALUES = 8;
/** The held bytes' first buffer; it grows by doubling. */
const HELD_INITIAL = 1024;
/**
 * Held bytes are decoded once they complete a block (an empty line), or once
 * there are this many and they complete a line, so a block is decoded in few
 * large runs however it is chunked, and a stream of lines without empty ones
 * (comments) holds no more than this.
 */
const HOLD_MAX = 65536;
/** A held buffer grown past this is given up once its line is decoded, so one very long line does not keep it. */
const HELD_KEEP = 1 << 20;

/**
 * Whether `transcode(bytes, "utf8", "utf16le")` throws on every ill-formed
 * input class (WHATWG Encoding: surrogates, overlongs, above U+10FFFF, a
 * truncated sequence, a stray continuation byte) and decodes well-formed input,
 * so that its success proves the bytes well-formed and its output exact. True
 * in Node 20 (simdutf); checked, not assumed, for other versions.
 */
const TRANSCODE_IS_STRICT = (() => {
  const decodes = (/** @type {number[]} */ bytes) => {
    try {
      return transcode(Uint8Array.from(bytes), "utf8", "utf16le").toString("utf16le");
    } catch {
      return null;
    }
  };
  const illFormed = [
    [0xed, 0xa0, 0x80], // a surrogate
    [0xc0, 0x80], // overlong
    [0xe0, 0x80, 0x80], // overlong
    [0xf4, 0x90, 0x80, 0x80], // above U+10FFFF
    [0xe2, 0x82], // truncated
    [0x41, 0x80], // a stray continuation byte
    [0xf8, 0x88, 0x80, 0x80, 0x80], // a five-byte form
  ];
  const wellFormed = [0xef, 0xbb, 0xbf, 0x41, 0xf0, 0x9f, 0x98, 0x80, 0xc3, 0xa9];
  return illFormed.every((bytes) => decodes(bytes) === null) && decodes(wellFormed) === "\ufeffA\u{1f600}\u00e9";
})();

/**
 * Just past the last line ending in `bytes` that ends an empty line (one
 * that dispatches, SSE-8), else 0. `before` is the two bytes fed before
 * `bytes`, (second-to-last << 8) | last, for an ending at its start.
 * @param {Uint8Array} bytes
 * @param {number} before
 * @returns {number}
 */
function blockEnd(bytes, before) {
  // Such an ending has another one right before it, so only every second
  // byte is read until one is CR or LF; then it and the byte after it are
  // the candidates.
  const size = bytes.length;
  let at = size - 1;
  for (; at >= 0; at -= 2) {
    const byte = bytes[at];
    if (byte !== LF && byte !== CR) continue;
    if (at + 1 < size && endsEmptyLine(bytes, at + 1, before)) return at + 2;
    if (endsEmptyLine(bytes, at, before)) return at + 1;
  }
  return at === -1 && endsEmptyLine(bytes, 0, before) ? 1 : 0;
}

/**
 * Whether bytes[at] ends an empty line (a CR or LF right after another
 * ending, the LF of a CRLF right after another ending); `before` as in blockEnd.
 * @param {Uint8Array} bytes
 * @param {number} at
 * @param {number} before
 * @returns {boolean}
 */
function endsEmptyLine(bytes, at, before) {
  const byte = bytes[at];
  if (byte !== LF && byte !== CR) return false;
  const previous = at >= 1 ? bytes[at - 1] : before & 0xff;
  if (byte === LF && previous === CR) {
    const first = at >= 2 ? bytes[at - 2] : at === 1 ? before & 0xff : before >> 8;
    return first === LF || first === CR;
  }
  return previous === LF || previous === CR;
}

/**
 * Just past the first line ending in `bytes`, else its length.
 * @param {Uint8Array} bytes
 * @returns {number}
 */
function firstLineEnd(bytes) {
  const size = bytes.length;
  for (let at = 0; at < size; at++) {
    const byte = bytes[at];
    if (byte === LF || byte === CR) return at + 1;
  }
  return size;
}

/**
 * Just past the last line ending in `bytes`, else 0.
 * @param {Uint8Array} bytes
 * @returns {number}
 */
function lineEnd(bytes) {
  let end = bytes.length;
  while (end > 0) {
    const byte = bytes[end - 1];
    if (byte === LF || byte === CR) break;
    end--;
  }
  return end;
}

/**
 * One dispatched block (SSE-8a).
 * @typedef {{event: string | null, data: string, id: string | null, retry: number | null}} SseFrame
 */

/**
 * The value of a `retry` field, or `null` if the line is to be ignored (SSE-7d):
 * non-empty, ASCII digits only, at most 2^53-1; leading zeros allowed.
 * @param {string} value
 * @returns {number | null}
 */
export function parseRetry(value) {
  if (!ASCII_DIGITS.test(value)) return null;
  const digits = value.replace(/^0+/, "");
  // `digits` is ASCII, so its length counts code points.
  if (
    digits.length > MAX_RETRY_DIGITS.length ||
    (digits.length === MAX_RETRY_DIGITS.length && digits > MAX_RETRY_DIGITS)
  ) {
    return null;
  }
  return digits === "" ? 0 : Number(digits);
}

/**
 * parseRetry(text.slice(at, end)), without the slice and regexes for a value of
 * at most 9 digits (below 2^30, so the arithmetic stays in V8's small integers
 * and never deoptimizes the loop it is inlined into).
 * @param {string} text
 * @param {number} at
 * @param {number} end
 * @returns {number | null}
 */
function retryValue(text, at, end) {
  if (at === end || end - at > 9) return parseRetry(text.slice(at, end));
  let value = 0;
  for (let i = at; i < end; i++) {
    const digit = charCodeAt.call(text, i) - 48;
    if (digit < 0 || digit > 9) return null;
    value = value * 10 + digit;
  }
  return value;
}

/**
 * Where the value of a field line starts, given the index just past its name
 * (SSE-6): `end` if the line is the bare name, past the `:` and one optional
 * space if a `:` follows the name, -1 if anything else follows (then the name
 * is longer, so it is not the one tested).
 *
 * Callers keep the line ending in `text`, so `text[end]` is always the CR or
 * LF (never `:` or a space) and no read here or in #lines goes out of bounds:
 * an out-of-bounds charCodeAt makes V8 deoptimize and recompile the hot code
 * with slower NaN handling (measured on mixed-endings, bench/README.md).
 * @param {string} text
 * @param {number} at index just past the name
 * @param {number} end index of the line ending
 * @returns {number}
 */
function valueStart(text, at, end) {
  if (at === end) return end;
  if (charCodeAt.call(text, at) !== COLON) return -1;
  return charCodeAt.call(text, at + 1) === SPACE ? at + 2 : at + 1;
}

/** Accumulates byte chunks and returns complete SSE frames. */
export class SseFrameBuffer {
  #decoder = new TextDecoder("utf-8", { ignoreBOM: true });
  /** The incomplete last line's bytes (SSE-3d), undecoded, in #held[0, #heldSize). */
  #held = new Uint8Array(HELD_INITIAL);
  #heldSize = 0;
  /** The last two bytes fed, (second-to-last << 8) | last; 0 before any. */
  #lastTwo = 0;
  /** Runs in a row (up to ASCII_MISSES) that were not all ASCII. */
  #asciiMisses = 0;
  /** Counts runs not checked for ASCII, to check every ASCII_RETRY-th. */
  #asciiSkipped = 0;
  /** Runs may go to `transcode`: it is exact here, and no ill-formed byte has been seen. */
  #fastDecode = TRANSCODE_IS_STRICT;
  /**
   * The code unit to drop if it starts the next decoded text: a BOM at the
   * start of the stream (SSE-2), LF right after a CR (SSE-3b), else -1 (no
   * code unit).
   */
  #skip = BOM;
  // The current block; all reset on dispatch (SSE-8c). A block emits a frame
  // iff one of these is non-null (an accepted line sets one, SSE-8a).
  /** @type {string | null} "" for an `event` line with the empty value, reported as null (SSE-7a) */
  #event = null;
  /** @type {string | null} the block's data values joined with LF, or its first ones (see #values); null: no data line (SSE-7b) */
  #data = null;
  /** Data values in #data after its first, up to CONCAT_VALUES. */
  #dataValues = 0;
  /** @type {string[] | null} #data and every value after it, once there are more than CONCAT_VALUES */
  #values = null;
  /** @type {string | null} */
  #id = null;
  /** @type {number | null} */
  #retry = null;

  /**
   * Feed the next chunk of the stream; returns the frames it completes, in order.
   * @param {Uint8Array} bytes
   * @returns {SseFrame[]}
   */
  feed(bytes) {
    if (!(bytes instanceof Uint8Array)) throw new TypeError("SseFrameBuffer.feed expects a Uint8Array");
    const size = bytes.length;
    if (size === 0) return [];
    const before = this.#lastTwo;
    if (size === 1) {
      // One byte (c1 feeding): held unless it ends an empty line or the held bytes are many.
      const byte = /** @type {number} */ (bytes[0]);
      this.#lastTwo = ((before & 0xff) << 8) | byte;
      if (this.#heldSize + 1 < HOLD_MAX ? blockEnd(bytes, before) === 0 : byte !== LF && byte !== CR) {
        if (this.#heldSize === this.#held.length) this.#grow(this.#heldSize + 1);
        this.#held[this.#heldSize++] = byte;
        return [];
      }
    } else {
      this.#lastTwo = (/** @type {number} */ (bytes[size - 2]) << 8) | /** @type {number} */ (bytes[size - 1]);
    }
    const end = this.#heldSize + size >= HOLD_MAX ? lineEnd(bytes) : blockEnd(bytes, before);
    if (end === 0) {
      this.#hold(bytes, 0);
      return [];
    }
    /** @type {SseFrame[]} */
    const frames = [];
    if (size < FAST_DECODE_MIN) {
      // The whole chunk is copied after the held bytes (no view of it to
      // make), and what follows `end` is moved to the front.
      const start = this.#heldSize;
      if (start + size > this.#held.length) this.#grow(start + size);
      const held = this.#held;
      held.set(bytes, start);
      this.#parse(this.#decode(held, 0, start + end), frames);
      if (held.length > HELD_KEEP) {
        this.#held = new Uint8Array(HELD_INITIAL);
        this.#heldSize = 0;
        if (end < size) this.#hold(bytes, end);
      } else {
        held.copyWithin(0, start + end, start + size);
        this.#heldSize = size - end;
      }
    } else {
      let from = 0;
      if (this.#heldSize > 0) {
        // The held line, completed by the chunk's first line ending, is
        // decoded on its own, so that the rest of a large chunk is decoded
        // where it is rather than copied.
        from = firstLineEnd(bytes);
        this.#hold(bytes.subarray(0, from), 0);
        this.#parse(this.#decode(this.#held, 0, this.#heldSize), frames);
        this.#heldSize = 0;
        if (this.#held.length > HELD_KEEP) this.#held = new Uint8Array(HELD_INITIAL);
      }
      if (from < end) this.#parse(this.#decode(bytes, from, end), frames);
      if (end < size) this.#hold(bytes, end);
    }
    return frames;
  }

  /**
   * Parses the text of one decoded run, which ends with a line ending.
   * @param {string} text
   * @param {SseFrame[]} frames
   */
  #parse(text, frames) {
    const n = text.length;
    const start = charCodeAt.call(text, 0) === this.#skip ? 1 : 0;
    this.#skip = charCodeAt.call(text, n - 1) === CR ? LF : -1;
    if (start < n) this.#lines(text, start, frames);
  }

  /**
   * Appends bytes[from..] to the held bytes.
   * @param {Uint8Array} bytes
   * @param {number} from
   */
  #hold(bytes, from) {
    const size = this.#heldSize + bytes.length - from;
    if (size > this.#held.length) this.#grow(size);
    this.#held.set(from === 0 ? bytes : bytes.subarray(from), this.#heldSize);
    this.#heldSize = size;
  }

  /**
   * Makes room for at least `size` held bytes.
   * @param {number} size
   */
  #grow(size) {
    const held = new Uint8Array(Math.max(size, 2 * this.#held.length));
    held.set(this.#held.subarray(0, this.#heldSize));
    this.#held = held;
  }

  /**
   * The text of bytes[start, end), which ends with a line ending.
   * @param {Uint8Array} bytes
   * @param {number} start
   * @param {number} end
   * @returns {string}
   */
  #decode(bytes, start, end) {
    const run = start === 0 && end === bytes.length ? bytes : bytes.subarray(start, end);
    if (this.#asciiLikely()) {
      // All-ASCII bytes (simdutf's check) are their own Latin-1 text, a one-byte string.
      if (isAscii(run)) {
        this.#asciiMisses = 0;
        return latin1Slice.call(bytes, start, end);
      }
      this.#asciiMisses++;
    }
    if (end - start >= FAST_DECODE_MIN && this.#fastDecode) {
      try {
        const utf16 = transcode(run, "utf8", "utf16le");
        return ucs2Slice.call(utf16, 0, utf16.length);
      } catch {
        this.#fastDecode = false;
      }
    }
    // The run ends with CR or LF, so the decoder holds nothing after it.
    return this.#decoder.decode(run, STREAM);
  }

  /**
   * Whether to check the next run for all-ASCII: after ASCII runs,
   * and after ASCII_MISSES runs that were not, only every ASCII_RETRY-th
   * (so text that is rarely ASCII pays almost nothing for the check).
   * @returns {boolean}
   */
  #asciiLikely() {
    if (this.#asciiMisses < ASCII_MISSES) return true;
    return (++this.#asciiSkipped & (ASCII_RETRY - 1)) === 0;
  }

  /**
   * Interprets the lines of `text` from `start` (SSE-3 to SSE-8); `text`
   * ends with a line ending.
   *
   * This is the hot loop, shaped for V8 (each choice measured on the
   * mixed-endings workload, bench/README.md "JS SSE"):
   * - the block is held in locals and the fields are matched inline, not in
   *   methods that read and write `this` (less time on mixed-endings c64k);
   * - `lf` and `cr` are the first LF and CR at or after `start`, each searched
   *   again only once passed, so the text is scanned at most twice however
   *   the endings mix; NONE (a Smi, unlike 2^30) stands for "not found" so
   *   that one compare picks the nearer ending;
   * - the first code unit of each line is read before searching, so an empty
   *   line (a quarter of all lines) costs no search;
   * - a CR ending is a CRLF iff the first LF after it is right after it;
   * - a block's data values past CONCAT_VALUES are gathered and joined once,
   *   on dispatch: a rope grown by two concatenations per line made a block of
   *   thousands of lines a tree of cons strings that the GC copied again and
   *   again.
   * @param {string} text
   * @param {number} start
   * @param {SseFrame[]} frames
   */
  #lines(text, start, frames) {
    const n = text.length;
    let lf = indexOf.call(text, "\n", start);
    if (lf < 0) lf = NONE;
    let cr = indexOf.call(text, "\r", start);
    if (cr < 0) cr = NONE;
    let first = charCodeAt.call(text, start); // #parse calls with start < n
    let event = this.#event;
    let data = this.#data;
    let id = this.#id;
    let retry = this.#retry;
    let values = this.#values;
    let dataValues = this.#dataValues;
    for (;;) {
      // The line is text[start..end); the next one starts at `next` (SSE-3).
      let end;
      let next;
      if (lf < cr) {
        end = lf;
        next = lf + 1;
      } else if (cr !== NONE) {
        end = cr;
        next = lf === cr + 1 ? cr + 2 : cr + 1;
      } else {
        break;
      }
      // Fields are matched by character code, so comments and unknown names
      // are dropped without slicing anything. The codes are compared in order
      // and stop at the first mismatch, so on a short line the first read past
      // it is text[end], its CR or LF, which matches no letter (an
      // out-of-bounds charCodeAt would deoptimize this loop).
      if (start === end) {
        // An empty line dispatches (SSE-8).
        if (data !== null || event !== null || id !== null || retry !== null) {
          if (values !== null) {
            data = values.join("\n");
            values = null;
          }
          frames.push({ event: event || null, data: data ?? "", id, retry });
          event = null;
          data = null;
          dataValues = 0;
          id = null;
          retry = null;
        }
      } else if (first === 100) {
        // "data" (SSE-7b); a block may have thousands of data lines.
        if (charCodeAt.call(text, start + 1) === 97 && charCodeAt.call(text, start + 2) === 116 && charCodeAt.call(text, start + 3) === 97) {
          const at = valueStart(text, start + 4, end);
          if (at >= 0) {
            const value = slice.call(text, at, end);
            if (values !== null) values.push(value);
            else if (data === null) data = value;
            else if (++dataValues < CONCAT_VALUES) data = data + "\n" + value;
            else values = [data, value];
          }
        }
      } else if (first === 101) {
        // "event" (SSE-7a)
        if (
          charCodeAt.call(text, start + 1) === 118 &&
          charCodeAt.call(text, start + 2) === 101 &&
          charCodeAt.call(text, start + 3) === 110 &&
          charCodeAt.call(text, start + 4) === 116
        ) {
          const at = valueStart(text, start + 5, end);
          if (at >= 0) event = slice.call(text, at, end);
        }
      } else if (first === 105) {
        // "id" (SSE-7c)
        if (charCodeAt.call(text, start + 1) === 100) {
          const at = valueStart(text, start + 2, end);
          if (at >= 0) {
            const value = slice.call(text, at, end);
            if (!includes.call(value, "\u0000")) id = value;
          }
        }
      } else if (first === 114) {
        // "retry" (SSE-7d)
        if (
          charCodeAt.call(text, start + 1) === 101 &&
          charCodeAt.call(text, start + 2) === 116 &&
          charCodeAt.call(text, start + 3) === 114 &&
          charCodeAt.call(text, start + 4) === 121
        ) {
          const at = valueStart(text, start + 5, end);
          if (at >= 0) {
            const value = retryValue(text, at, end);
            if (value !== null) retry = value;
          }
        }
      }
      // Anything else is a comment (SSE-5) or an unknown name (SSE-7e): ignored.
      start = next;
      if (start === n) break;
      first = charCodeAt.call(text, start);
      if (lf < start) {
        lf = first === LF ? start : indexOf.call(text, "\n", start);
        if (lf < 0) lf = NONE;
      }
      if (cr < start) {
        cr = first === CR ? start : indexOf.call(text, "\r", start);
        if (cr < 0) cr = NONE;
      }
    }
    this.#event = event;
    this.#data = data;
    this.#values = values;
    this.#dataValues = dataValues;
    this.#id = id;
    this.#retry = retry;
  }
}

// Feed every line shape, ending and chunking case a few times at load,
// so that V8 has type feedback for every branch of #lines before it first
// optimizes it, and #retry and the frames' `retry` have already held null, a
// small integer and a double (a chunk ends after a `retry` line). Without
// this, the first stream decides the optimized code, and a later stream with
// other shapes (a CR, an `id` or `retry` line) deoptimizes it mid-stream; in
// the benchmark's full runs that made the mixed-endings ratio swing between
// processes (bench/README.md, "JS SSE"). Large chunks and a held line ended
// by a CRLF are fed too, so that `feed`, once optimized, is not deoptimized by
// the first large chunk or CRLF at a chunk's start.
{
  const encoder = new TextEncoder();
  const pieces = [
    ": c\ndat", // a line completed by the next chunk
    "a: a\ndata:b\r", // ends with the CR of a CRLF
    "\nevent: e\rid: 1\r\nid: a\u0000b\nretry: 5\n", // ends with a block holding a retry
    "\nid\r\rdata\nevent\nretry\nretry: 12345678901\r",
    "x: y\n\r\n",
    "data: q", // a line completed by a CRLF in the next chunk
    "r\r\nid: 2\r",
    "\nt", // the LF of a CRLF, then one code unit of a line
    "\n\n",
  ].map((piece) => encoder.encode(piece));
  // Large chunks (`transcode`), the first ending inside a character.
  const large = encoder.encode(`${"data: \u20ac abc\r\n".repeat(550)}\n`); // 15 bytes a line
  const largePieces = [large.subarray(0, 15 * 275 + 7), large.subarray(15 * 275 + 7)]; // cut after the euro sign's first byte
  const bytes = encoder.encode("id: \u20ac\r\n\r\ndata\n\n");
  const buffer = new SseFrameBuffer(); // each round leaves no line or block pending
  for (let i = 0; i < 20; i += 1) {
    for (const piece of pieces) buffer.feed(piece);
    if (i === 0) for (const piece of largePieces) buffer.feed(piece); // 4 KB each: once suffices
    buffer.feed(new Uint8Array(0));
    for (let at = 0; at < bytes.length; at += 1) buffer.feed(bytes.subarray(at, at + 1)); // c1 feeding
  }
}
