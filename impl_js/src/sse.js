// Incremental Server-Sent Events frame parsing (HIP-301 §3; contract:
// docs/domains/sse-frames.md, clauses SSE-1..SSE-10).
//
// Bytes are decoded as one stream by the WHATWG Encoding Standard's UTF-8
// decoder (a character split between chunks survives, invalid sequences become
// U+FFFD, SSE-11): one streaming TextDecoder (ICU in Node) for small chunks
// (but a small chunk that `buffer.isAscii`, simdutf, finds all-ASCII while the
// decoder holds nothing is its own Latin-1 text, a one-byte string, at a
// fraction of the decoder's per-call cost), and for chunks of FAST_DECODE_MIN
// bytes or more `buffer.transcode` (simdutf, faster per byte than the
// TextDecoder on large chunks; bench/README.md) up to the chunk's last complete
// character. transcode accepts only well-formed UTF-8, which
// every conforming decoder decodes alike; on anything else the chunk, and the
// rest of the stream, go to the TextDecoder. The decoders keep a BOM and the
// parser drops the first decoded U+FEFF itself (SSE-2).
//
// Only newly fed text is scanned for line endings (indexOf for LF and CR, each
// resumed only once passed, in #lines), and lines are interpreted in place in
// the chunk by character code, without slicing out a name. The incomplete line is kept as
// one string grown with `+=`: V8 represents that as a rope (a list of pieces)
// that is flattened once, when the line ends and is first read, so feeding is
// linear in the total input for any chunking (SSE-10). For lines of ordinary
// length this beats an array joined per line on one-character chunks; the
// price is one rope node per piece of a pending line. So that a very long
// line fed in tiny pieces does not keep a node per piece (many times the
// line's size, and a rope V8's GC walks again and again), every
// PENDING_PIECES pieces the rope is flattened into one string and set aside in
// #pendingBlocks; the line is joined once when it ends (each character
// copied twice, memory a small multiple of the line).
//
// The shape of the code is partly for V8's JIT: the one loop over lines
// (#lines) is its own function, so that a branch of #feedText taken for the
// first time (a new chunking) deoptimizes only that small loop-free function
// (with the loop inline, such a deopt racing an on-stack-replacement compile
// left Node 20 running it unoptimized for good); state is read by
// always-executed compares rather than rarely taken branches.
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
/** Pieces of a pending line kept as a rope before it is flattened into #pendingBlocks. */
const PENDING_PIECES = 4096;
/** Non-ASCII small chunks in a row after which only some are checked for ASCII. */
const ASCII_MISSES = 4;
/** After ASCII_MISSES, one small chunk in this many (a power of 2) is checked. */
const ASCII_RETRY = 64;
/** Buffer's Latin-1 decoder, called on a Uint8Array; exact for ASCII bytes. */
const latin1Slice = Buffer.prototype.latin1Slice;
/**
 * Chunks of at least this many bytes are decoded by `transcode` (simdutf)
 * rather than the streaming TextDecoder (ICU): faster per byte on large
 * chunks, but with a larger cost per call, so slower on small ones.
 */
const FAST_DECODE_MIN = 4096;

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
 * The index where the last UTF-8 sequence of `bytes` starts if it is a lead
 * byte with fewer continuation bytes after it than it announces (the rest of
 * the character is in the next chunk), else the length. Exactness does not
 * depend on it: more than 3 continuation bytes at the end give the length (the
 * strict decoder then rejects the chunk), and an invalid lead byte (C0, C1,
 * F5-FF) near the end is held back like a valid one and rejected with the next
 * chunk.
 * @param {Uint8Array} bytes
 * @returns {number}
 */
function completeEnd(bytes) {
  const n = bytes.length;
  for (let i = n - 1; i >= 0 && i >= n - 4; i--) {
    const byte = /** @type {number} */ (bytes[i]);
    if (byte < 0x80) return n;
    if (byte >= 0xc0) return n - i < (byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : 2) ? i : n;
  }
  return n;
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
    const digit = text.charCodeAt(i) - 48;
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
  if (text.charCodeAt(at) !== COLON) return -1;
  return text.charCodeAt(at + 1) === SPACE ? at + 2 : at + 1;
}

/**
 * `data`, then `more` (or, if `values` is not null, each of them), joined with LF (SSE-7b).
 * @param {string | null} data the values joined so far
 * @param {string} more the first value after `data` in this call of #lines
 * @param {string[] | null} values `more` and every value after it, once there are two
 * @returns {string}
 */
function joinValues(data, more, values) {
  const joined = values === null ? more : values.join("\n");
  return data === null ? joined : data + "\n" + joined;
}

/** Accumulates byte chunks and returns complete SSE frames. */
export class SseFrameBuffer {
  #decoder = new TextDecoder("utf-8", { ignoreBOM: true });
  /**
   * No bytes are held undecoded, neither in #decoder nor in #tail (nothing
   * fed, or the last chunk ended with ASCII or a complete character), so a
   * one-byte ASCII chunk is its own text.
   */
  #decoderIdle = true;
  /**
   * The start of a character split from the chunk decoded by #decodeFast (1-3
   * bytes, copied), to be decoded with the next chunk; #decoder holds nothing then.
   * @type {Uint8Array | null}
   */
  #tail = null;
  /** Small chunks in a row (up to ASCII_MISSES) that were not all ASCII. */
  #asciiMisses = 0;
  /** Counts small chunks not checked for ASCII, to check every ASCII_RETRY-th. */
  #asciiSkipped = 0;
  /** Chunks may go through #decodeFast: it is exact here, and no ill-formed byte has been seen. */
  #fastDecode = TRANSCODE_IS_STRICT;
  /**
   * The code unit to drop if it starts the next non-empty chunk: a BOM at the
   * start of the stream (SSE-2), LF right after a CR (SSE-3b), else -1 (no
   * code unit). Empty chunks leave it alone (SSE-1).
   */
  #skip = BOM;
  /** The incomplete line (SSE-3d), or its end if #pendingBlocks holds its start; grown with `+=`, read only once it ends. */
  #pending = "";
  /** Pieces appended to #pending since it was last empty or set aside. */
  #pendingPieces = 0;
  /** @type {string[] | null} the flattened start of a very long incomplete line, else null */
  #pendingBlocks = null;
  // The current block; all reset on dispatch (SSE-8c). A block emits a frame
  // iff one of these is non-null (an accepted line sets one, SSE-8a).
  /** @type {string | null} "" for an `event` line with the empty value, reported as null (SSE-7a) */
  #event = null;
  /** @type {string | null} the data values joined with LF; null: no data line (SSE-7b) */
  #data = null;
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
    const last = bytes[size - 1];
    let text;
    if (size === 1 && this.#decoderIdle && last < 0x80) text = String.fromCharCode(last);
    else if (size < FAST_DECODE_MIN && this.#decoderIdle && this.#asciiLikely()) {
      // All-ASCII bytes (simdutf's check) are their own Latin-1 text, a one-byte string.
      if (isAscii(bytes)) {
        this.#asciiMisses = 0;
        return this.#feedText(latin1Slice.call(bytes, 0, size));
      }
      this.#asciiMisses++;
      text = this.#decodeSlow(bytes);
    } else if (size >= FAST_DECODE_MIN && this.#fastDecode) return this.#feedText(this.#decodeFast(bytes));
    else text = this.#decodeSlow(bytes);
    this.#decoderIdle = last < 0x80;
    return this.#feedText(text);
  }

  /**
   * Whether to check the next small chunk for all-ASCII: after ASCII chunks,
   * and after ASCII_MISSES chunks that were not, only every ASCII_RETRY-th
   * chunk (so text that is rarely ASCII pays almost nothing for the check).
   * @returns {boolean}
   */
  #asciiLikely() {
    if (this.#asciiMisses < ASCII_MISSES) return true;
    return (++this.#asciiSkipped & (ASCII_RETRY - 1)) === 0;
  }

  /**
   * The text of a chunk by the streaming decoder (after any #tail).
   * @param {Uint8Array} bytes
   * @returns {string}
   */
  #decodeSlow(bytes) {
    const tail = this.#tail;
    if (tail === null) return this.#decoder.decode(bytes, STREAM);
    this.#tail = null;
    return this.#decoder.decode(tail, STREAM) + this.#decoder.decode(bytes, STREAM);
  }

  /**
   * The text of a large chunk, decoded by `transcode` up to its last complete
   * character; a split character's start is kept in #tail. Exact because
   * #decoder holds nothing here (all bytes before were decoded up to a
   * character boundary) and `transcode` succeeds only on well-formed UTF-8,
   * which every conforming decoder decodes alike. On ill-formed bytes the
   * chunk goes to #decoder, which replaces them as WHATWG requires, and so
   * does the rest of the stream.
   * @param {Uint8Array} bytes
   * @returns {string}
   */
  #decodeFast(bytes) {
    if (!this.#decoderIdle && this.#tail === null) {
      // #decoder holds the start of a character: it decodes this chunk.
      this.#decoderIdle = bytes[bytes.length - 1] < 0x80;
      return this.#decoder.decode(bytes, STREAM);
    }
    const tail = this.#tail;
    let all = bytes;
    if (tail !== null) {
      all = new Uint8Array(tail.length + bytes.length);
      all.set(tail);
      all.set(bytes, tail.length);
      this.#tail = null;
    }
    const end = completeEnd(all);
    let text = "";
    if (end > 0) {
      try {
        text = transcode(end === all.length ? all : all.subarray(0, end), "utf8", "utf16le").toString("utf16le");
      } catch {
        this.#fastDecode = false;
        this.#decoderIdle = all[all.length - 1] < 0x80;
        return this.#decoder.decode(all, STREAM);
      }
    }
    // A copy: the caller may reuse its chunk's memory once feed returns.
    if (end < all.length) this.#tail = all.slice(end);
    this.#decoderIdle = end === all.length;
    return text;
  }

  /**
   * Parse the text decoded from one chunk (SSE-2 to SSE-9).
   * @param {string} chunk
   * @returns {SseFrame[]}
   */
  #feedText(chunk) {
    /** @type {SseFrame[]} */
    const frames = [];
    const n = chunk.length;
    if (n === 0) return frames;
    let start = chunk.charCodeAt(0) === this.#skip ? 1 : 0;
    // Right even when the chunk was only the skipped code unit (never CR).
    this.#skip = chunk.charCodeAt(n - 1) === CR ? LF : -1;

    // One code unit (c1 feeding): no search for a line ending. `start` is 0
    // here unless a BOM or LF was dropped, and then no line is pending.
    if (n - start === 1) {
      const c = chunk.charCodeAt(start);
      if (c !== LF && c !== CR) this.#appendPending(start === 0 ? chunk : chunk.slice(start));
      else this.#endLine(chunk, start, c, frames);
      return frames;
    }

    // Lines are ended out of line, so that this function stays small enough
    // for V8 to inline it into `feed` (one call less per byte in c1 feeding,
    // where the c1 branch above is the hot path).
    start =
      this.#pending === "" && this.#pendingBlocks === null
        ? this.#lines(chunk, start, -1, -1, frames)
        : this.#finishPending(chunk, start, frames);
    if (start < n) {
      this.#pending = chunk.slice(start);
      this.#pendingPieces = 1;
    }
    return frames;
  }

  /**
   * Appends a piece to the incomplete line.
   * @param {string} piece
   */
  #appendPending(piece) {
    this.#pending += piece;
    if (++this.#pendingPieces === PENDING_PIECES) {
      // Reading a character makes V8 flatten the rope in place (one copy).
      this.#pending.charCodeAt(0);
      (this.#pendingBlocks ??= []).push(this.#pending);
      this.#pending = "";
      this.#pendingPieces = 0;
    }
  }

  /**
   * The incomplete line completed by `tail`; leaves no line pending.
   * @param {string} tail
   * @returns {string}
   */
  #takePending(tail) {
    const blocks = this.#pendingBlocks;
    const line = blocks === null ? this.#pending + tail : blocks.join("") + this.#pending + tail;
    this.#pending = "";
    this.#pendingPieces = 0;
    this.#pendingBlocks = null;
    return line;
  }

  /**
   * The line ending `c` at chunk[start], the chunk's last code unit, ends the
   * pending line (or is an empty line).
   * @param {string} chunk
   * @param {number} start
   * @param {number} c
   * @param {SseFrame[]} frames
   */
  #endLine(chunk, start, c, frames) {
    const line = this.#pending === "" && this.#pendingBlocks === null ? chunk : this.#takePending(chunk);
    const end = line.length - 1;
    this.#lines(line, line === chunk ? start : 0, c === LF ? end : NONE, c === CR ? end : NONE, frames);
  }

  /**
   * Completes the pending line with the chunk from `start` up to its first
   * line ending and interprets it, then the lines after it; returns the index
   * where the chunk's incomplete last line starts (the chunk's length if all
   * of it was appended to the pending line).
   * @param {string} chunk
   * @param {number} start
   * @param {SseFrame[]} frames
   * @returns {number}
   */
  #finishPending(chunk, start, frames) {
    let lf = chunk.indexOf("\n", start);
    let cr = chunk.indexOf("\r", start);
    if (lf === -1 && cr === -1) {
      this.#appendPending(start === 0 ? chunk : chunk.slice(start));
      return chunk.length;
    }
    if (lf < 0) lf = NONE;
    if (cr < 0) cr = NONE;
    const end = lf < cr ? lf : cr;
    // The line keeps its ending, its only one, so #lines reads it as one line.
    const line = this.#takePending(chunk.slice(start, end + 1));
    const last = line.length - 1;
    this.#lines(line, 0, end === lf ? last : NONE, end === cr ? last : NONE, frames);
    // Both positions stay valid for the rest of the chunk: #lines searches again only the one passed.
    return this.#lines(chunk, end === cr && lf === cr + 1 ? end + 2 : end + 1, lf, cr, frames);
  }

  /**
   * Interprets the complete lines of `text` from `start` (SSE-3 to SSE-8);
   * returns the index where the incomplete last line starts (the length of
   * `text` if it ends with a line ending).
   *
   * This is the hot loop, shaped for V8 (each choice measured on the
   * mixed-endings workload, bench/README.md "JS SSE"):
   * - the block is held in locals and the fields are matched inline, not in
   *   methods that read and write `this` (less time on mixed-endings c64k);
   * - `lf` and `cr` are the first LF and CR at or after an index at most
   *   `start`, each searched again only once passed, so the text is scanned at
   *   most twice however the endings mix; NONE (a Smi, unlike 2^30) stands for
   *   "not found" so that one compare picks the nearer ending;
   * - the first code unit of each line is read before searching, so an empty
   *   line (a quarter of all lines) costs no search;
   * - a CR ending is a CRLF iff the first LF after it is right after it.
   * @param {string} text
   * @param {number} start
   * @param {number} lf the first LF at or after `start` if known, NONE if there is none, else anything below `start`
   * @param {number} cr the same for CR
   * @param {SseFrame[]} frames
   * @returns {number}
   */
  #lines(text, start, lf, cr, frames) {
    const n = text.length;
    if (lf < start) {
      lf = text.indexOf("\n", start);
      if (lf < 0) lf = NONE;
    }
    if (cr < start) {
      cr = text.indexOf("\r", start);
      if (cr < 0) cr = NONE;
    }
    let first = start < n ? text.charCodeAt(start) : 0;
    let event = this.#event;
    let data = this.#data;
    let id = this.#id;
    let retry = this.#retry;
    /** @type {string | null} */
    let more = null;
    /** @type {string[] | null} */
    let values = null;
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
          if (more !== null) {
            data = joinValues(data, more, values);
            more = null;
            values = null;
          }
          frames.push({ event: event || null, data: data ?? "", id, retry });
          event = null;
          data = null;
          id = null;
          retry = null;
        }
      } else if (first === 100) {
        // "data" (SSE-7b); a block may have thousands of data lines.
        if (text.charCodeAt(start + 1) === 97 && text.charCodeAt(start + 2) === 116 && text.charCodeAt(start + 3) === 97) {
          const at = valueStart(text, start + 4, end);
          if (at >= 0) {
            const value = text.slice(at, end);
            // A block's data values after the first are gathered and joined
            // once per call of this loop: a rope grown by two concatenations
            // per line made a block of thousands of lines spanning chunks a
            // tree of cons strings that the GC copied again and again.
            if (data === null) data = value;
            else if (more === null) more = value;
            else (values ??= [more]).push(value);
          }
        }
      } else if (first === 101) {
        // "event" (SSE-7a)
        if (
          text.charCodeAt(start + 1) === 118 &&
          text.charCodeAt(start + 2) === 101 &&
          text.charCodeAt(start + 3) === 110 &&
          text.charCodeAt(start + 4) === 116
        ) {
          const at = valueStart(text, start + 5, end);
          if (at >= 0) event = text.slice(at, end);
        }
      } else if (first === 105) {
        // "id" (SSE-7c)
        if (text.charCodeAt(start + 1) === 100) {
          const at = valueStart(text, start + 2, end);
          if (at >= 0) {
            const value = text.slice(at, end);
            if (!value.includes("\u0000")) id = value;
          }
        }
      } else if (first === 114) {
        // "retry" (SSE-7d)
        if (
          text.charCodeAt(start + 1) === 101 &&
          text.charCodeAt(start + 2) === 116 &&
          text.charCodeAt(start + 3) === 114 &&
          text.charCodeAt(start + 4) === 121
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
      first = text.charCodeAt(start);
      if (lf < start) {
        lf = first === LF ? start : text.indexOf("\n", start);
        if (lf < 0) lf = NONE;
      }
      if (cr < start) {
        cr = first === CR ? start : text.indexOf("\r", start);
        if (cr < 0) cr = NONE;
      }
    }
    this.#event = event;
    this.#data = more === null ? data : joinValues(data, more, values);
    this.#id = id;
    this.#retry = retry;
    return start;
  }
}

// Feed every line shape, ending and chunking case a few times at load,
// so that V8 has type feedback for every branch of #lines before it first
// optimizes it, and #retry and the frames' `retry` have already held null, a
// small integer and a double (a chunk ends after a `retry` line). Without
// this, the first stream decides the optimized code, and a later stream with
// other shapes (a CR, an `id` or `retry` line) deoptimizes it mid-stream; in
// the benchmark's full runs that made the mixed-endings ratio swing between
// processes (bench/README.md, "JS SSE"). Large chunks and a pending line ended
// by a CRLF are fed too, so that `feed` and #finishPending, once optimized,
// are not deoptimized by the first large chunk or CRLF at a chunk's start.
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
  // Large chunks (#decodeFast), the first ending inside a character.
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
