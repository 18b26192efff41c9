/** The largest accepted `retry` value, 2^53-1 (SSE-7d). */
export declare const MAX_RETRY: number;

/** One dispatched block (SSE-8a). Unset fields are `null`; `data` is `""` if unset. */
export interface SseFrame {
  event: string | null;
  data: string;
  id: string | null;
  retry: number | null;
}

/** The value of a `retry` field, or `null` if the line is to be ignored (SSE-7d). */
export declare function parseRetry(value: string): number | null;

/** Accumulates byte chunks and returns complete SSE frames (docs/domains/sse-frames.md). */
export declare class SseFrameBuffer {
  constructor();
  /**
   * Feed the next chunk of the response body; returns the frames it completes, in order.
   * The bytes are decoded as UTF-8 across chunks; invalid sequences become U+FFFD (SSE-11).
   */
  feed(bytes: Uint8Array): SseFrame[];
}
