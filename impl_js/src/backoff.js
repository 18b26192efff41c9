// Overflow-safe exponential backoff with injectable full jitter.
// HIP-301 ("Rust utility crates", hanzo-backoff); contract: docs/domains/backoff-timing.md.
import { HanzoError } from "./errors.js";

/** The largest millisecond count, 2^53 - 1 (I-JSON; Number.MAX_SAFE_INTEGER). */
export const MAX_SAFE_MS = Number.MAX_SAFE_INTEGER;

/** base * 2^53 > 2^53 - 1 >= max whenever base >= 1, so caps are constant from here (BACKOFF-2). */
const SATURATING_ATTEMPT = 53;

/** Base of every backoff-timing contract error. */
export class BackoffError extends HanzoError {}

/** BACKOFF-1: `code === "invalid_base_ms"`. */
export class InvalidBaseMsError extends BackoffError {
  /** @param {string} message */
  constructor(message) {
    super("invalid_base_ms", message);
  }
}

/** BACKOFF-1: `code === "invalid_max_ms"`. */
export class InvalidMaxMsError extends BackoffError {
  /** @param {string} message */
  constructor(message) {
    super("invalid_max_ms", message);
  }
}

/** BACKOFF-1: `code === "invalid_jitter"`. */
export class InvalidJitterError extends BackoffError {
  /** @param {string} message */
  constructor(message) {
    super("invalid_jitter", message);
  }
}

/** BACKOFF-4: `code === "invalid_sample"`. */
export class InvalidSampleError extends BackoffError {
  /** @param {string} message */
  constructor(message) {
    super("invalid_sample", message);
  }
}

/** BACKOFF-4: `code === "samples_exhausted"`. */
export class SamplesExhaustedError extends BackoffError {
  /** @param {string} message */
  constructor(message) {
    super("samples_exhausted", message);
  }
}

/**
 * @param {unknown} value
 * @returns {value is number}
 */
function isMillis(value) {
  return Number.isSafeInteger(value) && /** @type {number} */ (value) >= 0;
}

/**
 * BACKOFF-2: min(maxMs, baseMs * 2^attempt), exact for every attempt >= 0.
 * For attempt < 53 the product is below 2^106: multiplying by a power of two is exact.
 * @param {number} baseMs
 * @param {number} maxMs
 * @param {number} attempt
 * @returns {number}
 */
export function capMs(baseMs, maxMs, attempt) {
  if (baseMs === 0) return 0;
  if (attempt >= SATURATING_ATTEMPT) return maxMs;
  return Math.min(maxMs, baseMs * 2 ** attempt);
}

/**
 * A random source replaying recorded samples in order (BACKOFF-4). Values are not
 * checked here; Backoff#nextDelay checks every sample it draws.
 * @param {readonly number[]} samples
 * @returns {() => number}
 */
export function sampleSequence(samples) {
  const recorded = [...samples];
  let next = 0;
  return () => {
    if (next >= recorded.length) {
      throw new SamplesExhaustedError(`all ${recorded.length} recorded samples have been used`);
    }
    const sample = /** @type {number} */ (recorded[next]);
    next += 1;
    return sample;
  };
}

/**
 * @typedef {"none" | "full"} Jitter
 * @typedef {object} BackoffOptions
 * @property {number} baseMs the first attempt's cap, an integer in [0, 2^53-1]
 * @property {number} maxMs the ceiling of every cap, an integer in [baseMs, 2^53-1]
 * @property {Jitter} [jitter] "full" (default) or "none"
 * @property {() => number} [random] samples in [0, 1); default Math.random
 */

/** Exponential backoff with optional full jitter (HIP-301 Backoff). */
export class Backoff {
  /** @type {number} */ #baseMs;
  /** @type {number} */ #maxMs;
  /** @type {Jitter} */ #jitter;
  /** @type {() => number} */ #random;
  /** @type {number} */ #attempt = 0;

  /**
   * @param {BackoffOptions} options
   * @throws {BackoffError} BACKOFF-1, checked in order base, max, jitter (a base above
   *   max is allowed: every cap is then max, BACKOFF-2)
   */
  constructor({ baseMs, maxMs, jitter = "full", random = Math.random }) {
    if (!isMillis(baseMs)) {
      throw new InvalidBaseMsError(`baseMs must be an integer in [0, 2^53-1], got ${String(baseMs)}`);
    }
    if (!isMillis(maxMs)) {
      throw new InvalidMaxMsError(`maxMs must be an integer in [0, 2^53-1], got ${String(maxMs)}`);
    }
    if (jitter !== "none" && jitter !== "full") {
      throw new InvalidJitterError(`jitter must be "none" or "full", got ${JSON.stringify(jitter)}`);
    }
    this.#baseMs = baseMs;
    this.#maxMs = maxMs;
    this.#jitter = jitter;
    this.#random = random;
  }

  /** The current attempt k: 0 when new or reset (BACKOFF-5). */
  get attempt() {
    return this.#attempt;
  }

  get baseMs() {
    return this.#baseMs;
  }

  get maxMs() {
    return this.#maxMs;
  }

  get jitter() {
    return this.#jitter;
  }

  /**
   * The current attempt's delay in whole milliseconds; then advance the attempt.
   * @returns {number}
   * @throws {BackoffError} invalid_sample or the source's samples_exhausted, without advancing
   */
  nextDelay() {
    const cap = capMs(this.#baseMs, this.#maxMs, this.#attempt);
    let delay = cap;
    if (this.#jitter === "full") {
      const sample = this.#random();
      if (typeof sample !== "number" || !(sample >= 0 && sample < 1)) {
        throw new InvalidSampleError(`random source returned ${String(sample)}, not a value in [0, 1)`);
      }
      // cap <= 2^53 - 1 is exact as a double; one rounded multiply, then floor.
      // `+ 0` turns -0 (from a -0 sample) into 0.
      delay = Math.floor(sample * cap) + 0;
    }
    this.#attempt += 1;
    return delay;
  }

  /** Start over at attempt 0 (BACKOFF-5); the random source is left as it is. */
  reset() {
    this.#attempt = 0;
  }
}
