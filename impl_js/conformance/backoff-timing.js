// backoff-timing JSON layer: run input.steps (or input.attempts x "next") on one Backoff.
import { Backoff, sampleSequence } from "../src/backoff.js";

/**
 * @param {{base_ms: number, max_ms: number, jitter: string, samples?: number[],
 *          attempts?: number, steps?: ("next" | "reset")[]}} input
 * @returns {{delays_ms: number[]}}
 */
export function run(input) {
  const hasAttempts = input.attempts !== undefined;
  const steps = hasAttempts
    ? Array.from({ length: input.attempts ?? 0 }, () => "next")
    : /** @type {string[]} */ (input.steps);
  const backoff = new Backoff({
    baseMs: input.base_ms,
    maxMs: input.max_ms,
    // The library checks the name (invalid_jitter), after base_ms and max_ms.
    jitter: /** @type {import("../src/backoff.js").Jitter} */ (input.jitter),
    ...(input.samples !== undefined ? { random: sampleSequence(input.samples) } : {}),
  });
  /** @type {number[]} */
  const delays = [];
  for (const step of steps) {
    if (step === "next") delays.push(backoff.nextDelay());
    else backoff.reset(); // "reset"
  }
  return { delays_ms: delays };
}
