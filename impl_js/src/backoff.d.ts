import { HanzoError } from "./errors.js";

/** The largest millisecond count, 2^53 - 1. */
export declare const MAX_SAFE_MS: number;

/** Base of every backoff-timing contract error. */
export declare class BackoffError extends HanzoError {}
/** BACKOFF-1: `code === "invalid_base_ms"`. */
export declare class InvalidBaseMsError extends BackoffError {
  constructor(message: string);
}
/** BACKOFF-1: `code === "invalid_max_ms"`. */
export declare class InvalidMaxMsError extends BackoffError {
  constructor(message: string);
}
/** BACKOFF-1: `code === "invalid_jitter"`. */
export declare class InvalidJitterError extends BackoffError {
  constructor(message: string);
}
/** BACKOFF-4: `code === "invalid_sample"`. */
export declare class InvalidSampleError extends BackoffError {
  constructor(message: string);
}
/** BACKOFF-4: `code === "samples_exhausted"`. */
export declare class SamplesExhaustedError extends BackoffError {
  constructor(message: string);
}

/** BACKOFF-2: min(maxMs, baseMs * 2^attempt), exact for every attempt. */
export declare function capMs(baseMs: number, maxMs: number, attempt: number): number;

/** A random source replaying `samples` in order; throws SamplesExhaustedError when they run out. */
export declare function sampleSequence(samples: readonly number[]): () => number;

export type Jitter = "none" | "full";

export interface BackoffOptions {
  /** The first attempt's cap: an integer in [0, 2^53-1]. */
  baseMs: number;
  /** The ceiling of every cap: an integer in [baseMs, 2^53-1]. */
  maxMs: number;
  /** Default "full". */
  jitter?: Jitter;
  /** Returns samples in [0, 1); default Math.random. */
  random?: () => number;
}

/** Exponential backoff with optional full jitter (docs/domains/backoff-timing.md). */
export declare class Backoff {
  /** Throws a BackoffError (BACKOFF-1). */
  constructor(options: BackoffOptions);
  /** The current attempt k (0 when new or reset). */
  readonly attempt: number;
  readonly baseMs: number;
  readonly maxMs: number;
  readonly jitter: Jitter;
  /** The current attempt's delay in whole milliseconds, then advance; throws InvalidSampleError / SamplesExhaustedError. */
  nextDelay(): number;
  /** Start over at attempt 0; the random source is left as it is. */
  reset(): void;
}
