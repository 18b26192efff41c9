// Incremental Server-Sent Events frame parsing (HIP-301 §3; contract:
// docs/domains/sse-frames.md, clauses SSE-1..SSE-10).
//
// Only newly fed text is scanned for line endings (indexOf for LF and CR, each
// resumed only once passed; no per-chunk split array), and the incomplete line
// is kept as a list of pieces joined once per line, so feeding is linear in the
// total input for any chunking (SSE-10).
//
// UTF-16 note: the only code points this module looks for are CR, LF, ":",
// U+0000 and U+FEFF. All are single BMP code units that never occur inside a
// surrogate pair, so splitting and slicing at them never breaks a code point.

/** The largest accepted `retry` value, 2^53-1 (SSE-7d); a double represents it exactly. */
export const MAX_RETRY = Number.MAX_SAFE_INTEGER;

const MAX_RETRY_DIGITS = String(MAX_RETRY);
const ASCII_DIGITS = /^[0-9]+$/;

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

/** Accumulates text chunks and returns complete SSE frames. */
export class SseFrameBuffer {
  /** A non-empty chunk has been seen, so a BOM is no longer dropped (SSE-2). */
  #started = false;
  /** The last code point fed was CR, so an LF right after it is swallowed (SSE-3b). */
  #afterCr = false;
  /** @type {string[]} pieces of the incomplete line (SSE-3d) */
  #pending = [];
  // The current block; all reset on dispatch (SSE-8c).
  /** @type {string | null} */
  #event = null;
  /** @type {string[]} every data value of the block (SSE-7b) */
  #data = [];
  /** @type {string | null} */
  #id = null;
  /** @type {number | null} */
  #retry = null;
  /** An event/data/id/retry line was accepted (SSE-8a). */
  #touched = false;

  /**
   * Feed the next chunk of the stream; returns the frames it completes, in order.
   * @param {string} chunk
   * @returns {SseFrame[]}
   */
  feed(chunk) {
    /** @type {SseFrame[]} */
    const frames = [];
    if (typeof chunk !== "string") throw new TypeError("SseFrameBuffer.feed expects a string");
    if (chunk === "") return frames;
    if (!this.#started) {
      this.#started = true;
      if (chunk.startsWith("\uFEFF")) {
        chunk = chunk.slice(1);
        if (chunk === "") return frames;
      }
    }
    if (this.#afterCr && chunk.startsWith("\n")) {
      chunk = chunk.slice(1);
      if (chunk === "") {
        this.#afterCr = false;
        return frames;
      }
    }
    this.#afterCr = chunk.endsWith("\r");
    const n = chunk.length;
    let start = 0;
    let lf = chunk.indexOf("\n");
    let cr = chunk.indexOf("\r");
    while (lf !== -1 || cr !== -1) {
      // The first line ending at or after `start`: LF, CR or CRLF (SSE-3).
      let end;
      let next;
      if (cr === -1 || (lf !== -1 && lf < cr)) {
        end = lf;
        next = lf + 1;
      } else {
        end = cr;
        next = cr + 1 < n && chunk.charCodeAt(cr + 1) === 10 ? cr + 2 : cr + 1;
      }
      const piece = chunk.slice(start, end);
      if (this.#pending.length === 0) {
        this.#line(piece, frames);
      } else {
        this.#pending.push(piece);
        const line = this.#pending.join("");
        this.#pending = [];
        this.#line(line, frames);
      }
      start = next;
      if (lf !== -1 && lf < start) lf = chunk.indexOf("\n", start);
      if (cr !== -1 && cr < start) cr = chunk.indexOf("\r", start);
    }
    if (start < n) this.#pending.push(start === 0 ? chunk : chunk.slice(start));
    return frames;
  }

  /**
   * Interpret one complete line (SSE-4 to SSE-8).
   * @param {string} line
   * @param {SseFrame[]} frames
   */
  #line(line, frames) {
    if (line === "") {
      if (this.#touched) {
        frames.push({
          event: this.#event,
          data: this.#data.join("\n"),
          id: this.#id,
          retry: this.#retry,
        });
        this.#event = null;
        this.#data = [];
        this.#id = null;
        this.#retry = null;
        this.#touched = false;
      }
      return;
    }
    const colon = line.indexOf(":");
    if (colon === 0) return; // comment (SSE-5)
    /** @type {string} */
    let name;
    /** @type {string} */
    let value;
    if (colon < 0) {
      name = line;
      value = "";
    } else {
      name = line.slice(0, colon);
      value = line.startsWith(" ", colon + 1) ? line.slice(colon + 2) : line.slice(colon + 1);
    }
    switch (name) {
      case "data":
        this.#data.push(value);
        this.#touched = true;
        break;
      case "event":
        this.#event = value;
        this.#touched = true;
        break;
      case "id":
        if (!value.includes("\u0000")) {
          this.#id = value;
          this.#touched = true;
        }
        break;
      case "retry": {
        const retry = parseRetry(value);
        if (retry !== null) {
          this.#retry = retry;
          this.#touched = true;
        }
        break;
      }
      default:
        // Unknown names are ignored (SSE-7e).
        break;
    }
  }
}
