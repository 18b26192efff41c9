// Incremental Server-Sent Events frame parsing (HIP-301 §3; contract:
// docs/domains/sse-frames.md, clauses SSE-1..SSE-10).
//
// Bytes are decoded by one streaming TextDecoder for the whole stream (the
// WHATWG Encoding Standard's UTF-8 decoder: a character split between chunks
// survives, invalid sequences become U+FFFD, SSE-11); the decoder keeps a BOM
// and the parser drops the first decoded U+FEFF itself (SSE-2).
//
// Only newly fed text is scanned for line endings (indexOf for LF and CR, each
// resumed only once passed), and lines are interpreted in place in the chunk by
// character code, without slicing out a name. The incomplete line is kept as
// one string grown with `+=`: V8 represents that as a rope (a list of pieces)
// that is flattened once, when the line ends and is first read, so feeding is
// linear in the total input for any chunking (SSE-10). For lines of ordinary
// length this beats an array joined per line by 1.5-2x on one-character
// chunks; the price is one rope node (~32 bytes) per piece of a pending line.
// So that a very long line fed in tiny pieces does not keep a node per piece
// (32x the line, and a rope V8's GC walks again and again), every
// PENDING_PIECES pieces the rope is flattened into one string and set aside in
// #pendingBlocks; the line is joined once when it ends (memory about twice the
// line, each character copied twice).
//
// The shape of the code is partly for V8's JIT: loops are kept out of `feed`
// (see there), and state is read by always-executed compares rather than
// rarely taken branches.
//
// UTF-16 note: the only code points this module looks for are CR, LF, ":",
// U+0020, U+0000, U+FEFF and the ASCII letters of the field names. All are
// single BMP code units that never occur inside a surrogate pair, so comparing
// and slicing at them never breaks a code point.

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
/** Pieces of a pending line kept as a rope before it is flattened into #pendingBlocks. */
const PENDING_PIECES = 4096;

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
 * Where the value of a field line starts, given the index just past its name
 * (SSE-6): `end` if the line is the bare name, past the `:` and one optional
 * space if a `:` follows the name, -1 if anything else follows (then the name
 * is longer, so it is not the one tested).
 *
 * Callers keep the line ending in `text`, so `text[end]` is always the CR or
 * LF (never `:` or a space) and no read here or in #field goes out of bounds:
 * an out-of-bounds charCodeAt makes V8 deoptimize and recompile the hot code
 * with slower NaN handling (measured: -15% on mixed-endings).
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

/** Accumulates byte chunks and returns complete SSE frames. */
export class SseFrameBuffer {
  #decoder = new TextDecoder("utf-8", { ignoreBOM: true });
  /**
   * The last byte fed was ASCII (or none was fed), so the decoder holds no
   * split sequence and a one-byte ASCII chunk is its own text.
   */
  #decoderIdle = true;
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
    else text = this.#decoder.decode(bytes, STREAM);
    this.#decoderIdle = last < 0x80;
    return this.#feedText(text);
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

    // One code unit (c1 feeding): skip the indexOf calls. `start` is 0 here
    // unless a BOM or LF was dropped, and then no line is pending.
    if (n - start === 1) {
      const c = chunk.charCodeAt(start);
      if (c !== LF && c !== CR) {
        this.#appendPending(start === 0 ? chunk : chunk.slice(start));
      } else if (this.#pending === "" && this.#pendingBlocks === null) {
        this.#dispatch(frames);
      } else {
        // The ending is kept in the line so that #field never reads past it.
        const line = this.#takePending(chunk);
        this.#field(line, 0, line.length - 1);
      }
      return frames;
    }

    if (this.#pending !== "" || this.#pendingBlocks !== null) {
      start = this.#finishPending(chunk, start);
      if (start < 0) return frames;
    }
    // The loops live in their own functions: when a branch above runs for the
    // first time (new chunking), only this small loop-free function deoptimizes.
    // With the loops inline, such a deopt racing an on-stack-replacement
    // compile left Node 20 running `feed` unoptimized for good (-40%).
    const cr = chunk.indexOf("\r", start);
    start = cr === -1 ? this.#linesLf(chunk, start, frames) : this.#linesAny(chunk, start, cr, frames);
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
   * Appends the chunk from `start` up to its first line ending to the pending
   * line and interprets that line; returns the index after the ending, or -1
   * if the chunk has no line ending (it was all appended).
   * @param {string} chunk
   * @param {number} start
   * @returns {number}
   */
  #finishPending(chunk, start) {
    const lf = chunk.indexOf("\n", start);
    const cr = chunk.indexOf("\r", start);
    if (lf === -1 && cr === -1) {
      this.#appendPending(start === 0 ? chunk : chunk.slice(start));
      return -1;
    }
    const end = cr === -1 || (lf !== -1 && lf < cr) ? lf : cr;
    // The ending is kept in the line so that #field never reads past it.
    const line = this.#takePending(chunk.slice(start, end + 1));
    this.#field(line, 0, line.length - 1);
    return end === cr && end + 1 < chunk.length && chunk.charCodeAt(end + 1) === LF ? end + 2 : end + 1;
  }

  /**
   * Interprets the complete lines of a chunk without CR from `start`; returns
   * the index where the incomplete last line starts.
   * @param {string} chunk
   * @param {number} start
   * @param {SseFrame[]} frames
   * @returns {number}
   */
  #linesLf(chunk, start, frames) {
    let lf = chunk.indexOf("\n", start);
    while (lf !== -1) {
      if (start === lf) this.#dispatch(frames);
      else this.#field(chunk, start, lf);
      start = lf + 1;
      lf = chunk.indexOf("\n", start);
    }
    return start;
  }

  /**
   * Like #linesLf, for a chunk whose first CR from `start` is at `cr`.
   * @param {string} chunk
   * @param {number} start
   * @param {number} cr
   * @param {SseFrame[]} frames
   * @returns {number}
   */
  #linesAny(chunk, start, cr, frames) {
    const n = chunk.length;
    let lf = chunk.indexOf("\n", start);
    // Each search is resumed only once passed, so the chunk is scanned at most
    // twice however the endings mix.
    while (lf !== -1 || cr !== -1) {
      // The first line ending at or after `start`: LF, CR or CRLF (SSE-3).
      let end;
      let next;
      if (cr === -1 || (lf !== -1 && lf < cr)) {
        end = lf;
        next = lf + 1;
      } else {
        end = cr;
        next = cr + 1 < n && chunk.charCodeAt(cr + 1) === LF ? cr + 2 : cr + 1;
      }
      if (start === end) this.#dispatch(frames);
      else this.#field(chunk, start, end);
      start = next;
      if (lf !== -1 && lf < start) lf = chunk.indexOf("\n", start);
      if (cr !== -1 && cr < start) cr = chunk.indexOf("\r", start);
    }
    return start;
  }

  /**
   * An empty line: emit the block if it has an accepted line, and reset it (SSE-8).
   * @param {SseFrame[]} frames
   */
  #dispatch(frames) {
    if (this.#data !== null || this.#event !== null || this.#id !== null || this.#retry !== null) {
      frames.push({ event: this.#event || null, data: this.#data ?? "", id: this.#id, retry: this.#retry });
      this.#event = null;
      this.#data = null;
      this.#id = null;
      this.#retry = null;
    }
  }

  /**
   * Interpret the non-empty line `text[start..end)` (SSE-5 to SSE-7). The name
   * is matched by character code, so comments and unknown names are dropped
   * without slicing anything. The codes are compared in order and stop at the
   * first mismatch, so for a short line the first read past it is `text[end]`,
   * its CR or LF, which matches no letter.
   * @param {string} text
   * @param {number} start
   * @param {number} end index of the line's CR or LF in `text`
   */
  #field(text, start, end) {
    const first = text.charCodeAt(start);
    if (first === 100) {
      // "data"
      if (text.charCodeAt(start + 1) !== 97 || text.charCodeAt(start + 2) !== 116 || text.charCodeAt(start + 3) !== 97) {
        return;
      }
      const at = valueStart(text, start + 4, end);
      if (at < 0) return;
      const value = text.slice(at, end);
      // Ropes make appending cheap; an event may have thousands of data lines.
      this.#data = this.#data === null ? value : this.#data + "\n" + value;
    } else if (first === 101) {
      // "event"
      if (
        text.charCodeAt(start + 1) !== 118 ||
        text.charCodeAt(start + 2) !== 101 ||
        text.charCodeAt(start + 3) !== 110 ||
        text.charCodeAt(start + 4) !== 116
      ) {
        return;
      }
      const at = valueStart(text, start + 5, end);
      if (at < 0) return;
      this.#event = text.slice(at, end);
    } else if (first === 105) {
      // "id"
      if (text.charCodeAt(start + 1) !== 100) return;
      const at = valueStart(text, start + 2, end);
      if (at < 0) return;
      const value = text.slice(at, end);
      if (!value.includes("\u0000")) this.#id = value;
    } else if (first === 114) {
      // "retry"
      if (
        text.charCodeAt(start + 1) !== 101 ||
        text.charCodeAt(start + 2) !== 116 ||
        text.charCodeAt(start + 3) !== 114 ||
        text.charCodeAt(start + 4) !== 121
      ) {
        return;
      }
      const at = valueStart(text, start + 5, end);
      if (at < 0) return;
      const retry = parseRetry(text.slice(at, end));
      if (retry !== null) this.#retry = retry;
    }
    // Anything else is a comment (SSE-5) or an unknown name (SSE-7e): ignored.
  }
}
