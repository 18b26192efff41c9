// When an HTTP client retries a failed request, and how long it waits first.
// HIP-301 sections 2 (ApiClient) and 16 (hanzo-backoff); contract:
// docs/domains/http-retry.md. The default backoff is ./backoff.js's.

import { Backoff, capMs, sampleSequence } from "./backoff.js";

export const BASE_MS = 500;
export const MAX_MS = 8000;
export const RETRY_AFTER_CAP_MS = 60000;
/** The idempotent methods of RFC 9110 §9.2.2 (case-sensitive). */
export const IDEMPOTENT_METHODS = Object.freeze(["GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"]);

/**
 * @typedef {{status: number, headers: readonly (readonly [string, string])[]}} Response
 *   a response, its header fields in the order received
 * @typedef {{error: "connect" | "timeout"}} TransportError
 *   no response: "connect" (never sent) or "timeout" (may have been applied)
 * @typedef {Response | TransportError} Failure
 * @typedef {"retries_exhausted" | "server_declined" | "server_requested" | "not_an_error" |
 *   "status_not_retryable" | "not_idempotent" | "retryable_status" | "retryable_error" |
 *   "retry_after_exceeds_cap"} Reason
 * @typedef {"retry-after-ms" | "retry-after" | "backoff"} DelaySource
 * @typedef {{retry: boolean, delay_ms: number | null, reason: Reason,
 *   delay_source: DelaySource | null}} RetryDecision
 */

/** @param {Reason} reason @returns {RetryDecision} */
function no(reason) {
  return { retry: false, delay_ms: null, reason, delay_source: null };
}

/** @param {string} value */
function trimOws(value) {
  return value.replace(/^[ \t]+|[ \t]+$/g, "");
}

/**
 * RETRY-9: the trimmed value of a singleton field; undefined if absent or conflicting.
 * @param {readonly (readonly [string, string])[]} headers
 * @param {string} name lower case
 * @returns {string | undefined}
 */
function field(headers, name) {
  /** @type {string | undefined} */
  let found;
  for (const [key, value] of headers) {
    // ASCII case folding only (toLowerCase would fold e.g. the Kelvin sign to "k").
    if (key.replace(/[A-Z]/g, (c) => c.toLowerCase()) !== name) continue;
    const trimmed = trimOws(value);
    if (found !== undefined && found !== trimmed) return undefined;
    found = trimmed;
  }
  return found;
}

/** @param {string} text */
function isDigits(text) {
  return /^[0-9]+$/.test(text);
}

// Digit strings with more significant digits than this are above every cap.
const LONGEST_READ = 15;

/** @param {string} digits @returns {number} exact below 10^15, else above every cap */
function wholeNumber(digits) {
  const significant = digits.replace(/^0+/, "");
  return significant.length <= LONGEST_READ ? Number(significant || "0") : Number.MAX_SAFE_INTEGER;
}

/** RETRY-7: 1*DIGIT ["." 1*DIGIT], rounded up to a whole millisecond. @param {string} value */
function retryAfterMs(value) {
  const dot = value.indexOf(".");
  const whole = dot < 0 ? value : value.slice(0, dot);
  const fraction = dot < 0 ? undefined : value.slice(dot + 1);
  if (!isDigits(whole) || (fraction !== undefined && !isDigits(fraction))) return undefined;
  return wholeNumber(whole) + (fraction !== undefined && /[1-9]/.test(fraction) ? 1 : 0);
}

const DAY_NAMES = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];
const LONG_DAY_NAMES = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"];
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** @param {number} year */
function isLeap(year) {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}

/** @param {number} year @param {number} month */
function daysInMonth(year, month) {
  if (month === 2) return isLeap(year) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/**
 * Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
 * @param {number} year @param {number} month @param {number} day
 */
function daysFromCivil(year, month, day) {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

/**
 * [year, month, day, milliseconds of the day] of a timestamp, UTC.
 * @param {number} ms
 * @returns {[number, number, number, number]}
 */
function civil(ms) {
  const days = Math.floor(ms / 86400000);
  const msOfDay = ms - days * 86400000;
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return [yoe + era * 400 + (month <= 2 ? 1 : 0), month, day, msOfDay];
}

/** Lexicographic order of two equal-length number lists. @param {number[]} a @param {number[]} b */
function after(a, b) {
  for (let i = 0; i < a.length; i += 1) {
    if (a[i] !== b[i]) return /** @type {number} */ (a[i]) > /** @type {number} */ (b[i]);
  }
  return false;
}

/** @param {string | undefined} text */
function twoDigits(text) {
  return text !== undefined && text.length === 2 && isDigits(text) ? Number(text) : undefined;
}

/** hh:mm:ss as seconds of the day (second 60 allowed: a leap second). @param {string} text */
function timeOfDay(text) {
  const parts = text.split(":");
  if (parts.length !== 3) return undefined;
  const [hour, minute, second] = parts.map(twoDigits);
  if (hour === undefined || minute === undefined || second === undefined) return undefined;
  if (hour > 23 || minute > 59 || second > 60) return undefined;
  return hour * 3600 + minute * 60 + second;
}

/** @param {number} year @param {string} monthName @param {number} day @param {string} clock */
function timestamp(year, monthName, day, clock) {
  const month = MONTHS.indexOf(monthName) + 1;
  if (month === 0) return undefined;
  const seconds = timeOfDay(clock);
  if (seconds === undefined || day < 1 || day > daysInMonth(year, month)) return undefined;
  return (daysFromCivil(year, month, day) * 86400 + seconds) * 1000;
}

/** "Sun, 06 Nov 1994 08:49:37 GMT" @param {string} value */
function imfFixdate(value) {
  const parts = value.slice(5).split(" ");
  if (value.slice(3, 5) !== ", " || parts.length !== 5 || parts[4] !== "GMT") return undefined;
  const [dayText, month, year, clock] = /** @type {[string, string, string, string]} */ (parts);
  const day = twoDigits(dayText);
  if (day === undefined || year.length !== 4 || !isDigits(year)) return undefined;
  return timestamp(Number(year), month, day, clock);
}

/** "06-Nov-94 08:49:37 GMT", after "Sunday, " @param {string} rest @param {number} nowMs */
function rfc850Date(rest, nowMs) {
  const parts = rest.split(" ");
  if (parts.length !== 3 || parts[2] !== "GMT") return undefined;
  const [date, clock] = /** @type {[string, string]} */ (parts);
  const pieces = date.split("-");
  if (pieces.length !== 3) return undefined;
  const [dayText, month, yyText] = /** @type {[string, string, string]} */ (pieces);
  const day = twoDigits(dayText);
  const yy = twoDigits(yyText);
  if (day === undefined || yy === undefined) return undefined;
  // RFC 9110 §5.6.7: the year ending in yy that is not more than 50 years in the future.
  // In [nowYear - 49, nowYear + 50], only nowYear + 50 can be more than 50 years ahead:
  // when the date is later in its year than now is in now's year.
  const [nowYear, nowMonth, nowDay, nowMsOfDay] = civil(nowMs);
  const low = nowYear - 49;
  const year = low + ((((yy - low) % 100) + 100) % 100);
  const stamp = timestamp(year, month, day, clock);
  if (stamp === undefined) return undefined;
  const [, stampMonth, , stampMsOfDay] = civil(stamp);
  if (year === nowYear + 50 && after([stampMonth, day, stampMsOfDay], [nowMonth, nowDay, nowMsOfDay])) {
    return timestamp(year - 100, month, day, clock);
  }
  return stamp;
}

/** "Sun Nov  6 08:49:37 1994" or "Sun Nov 16 08:49:37 1994", read as UTC. @param {string} value */
function asctimeDate(value) {
  if (value.length !== 24 || [3, 7, 10, 19].some((i) => value[i] !== " ")) return undefined;
  const dayText = value.slice(8, 10);
  const year = value.slice(20, 24);
  const day = dayText[0] === " " ? (isDigits(dayText.slice(1)) ? Number(dayText[1]) : undefined) : twoDigits(dayText);
  if (day === undefined || !isDigits(year)) return undefined;
  return timestamp(Number(year), value.slice(4, 7), day, value.slice(11, 19));
}

/**
 * RETRY-8: an HTTP-date in any of its three forms as milliseconds since the Unix epoch
 * (nowMs places RFC 850's two-digit year); undefined if it is not one.
 * @param {string} value
 * @param {number} nowMs
 * @returns {number | undefined}
 */
export function parseHttpDate(value, nowMs) {
  const shortName = DAY_NAMES.includes(value.slice(0, 3));
  if (shortName && value[3] === ",") return imfFixdate(value);
  const comma = value.indexOf(", ");
  if (comma >= 0 && LONG_DAY_NAMES.includes(value.slice(0, comma))) {
    return rfc850Date(value.slice(comma + 2), nowMs);
  }
  if (shortName) return asctimeDate(value);
  return undefined;
}

/**
 * RETRY-6/7: the delay the server directed, from the first valid field.
 * @param {readonly (readonly [string, string])[]} headers
 * @param {number} nowMs
 * @returns {[number, DelaySource] | undefined}
 */
function serverDelay(headers, nowMs) {
  const msValue = field(headers, "retry-after-ms");
  const ms = msValue === undefined ? undefined : retryAfterMs(msValue);
  if (ms !== undefined) return [ms, "retry-after-ms"];
  const value = field(headers, "retry-after");
  if (value === undefined) return undefined;
  if (isDigits(value)) return [wholeNumber(value) * 1000, "retry-after"];
  const dateMs = parseHttpDate(value, nowMs);
  if (dateMs === undefined) return undefined;
  return [Math.max(0, dateMs - nowMs), "retry-after"];
}

/** @param {number} status */
function retryableStatus(status) {
  return status === 408 || status === 409 || status === 429 || (status >= 500 && status <= 599 && status !== 501 && status !== 505);
}

/**
 * RETRY-3, 4 and 5: why the failure is, or is not, eligible for a retry.
 * @param {Failure} failure @param {string} method @param {boolean} idempotencyKey
 * @returns {Reason}
 */
function eligibility(failure, method, idempotencyKey) {
  const safe = idempotencyKey || IDEMPOTENT_METHODS.includes(method);
  if ("error" in failure) return safe || failure.error === "connect" ? "retryable_error" : "not_idempotent";
  if (field(failure.headers, "x-should-retry") === "true") return "server_requested";
  if (!retryableStatus(failure.status)) return "status_not_retryable";
  return safe || failure.status === 408 || failure.status === 429 ? "retryable_status" : "not_idempotent";
}

/**
 * Whether to retry after `failure`, and after how many milliseconds (RETRY-1).
 * @param {Failure} failure
 * @param {{method: string, attempt: number, maxRetries: number, nowMs: number, sample: number,
 *          idempotencyKey?: boolean}} options
 * @returns {RetryDecision}
 * @throws {import("./backoff.js").InvalidSampleError} when the default backoff draws a sample
 *   outside [0, 1)
 */
export function decide(failure, { method, attempt, maxRetries, nowMs, sample, idempotencyKey = false }) {
  if (!("error" in failure) && failure.status < 400) return no("not_an_error");
  if (attempt >= maxRetries) return no("retries_exhausted");
  const headers = "error" in failure ? [] : failure.headers;
  if (field(headers, "x-should-retry") === "false") return no("server_declined");
  const reason = eligibility(failure, method, idempotencyKey);
  if (reason !== "server_requested" && reason !== "retryable_status" && reason !== "retryable_error") {
    return no(reason);
  }
  const server = serverDelay(headers, nowMs);
  if (server !== undefined) {
    const [delay, source] = server;
    if (delay > RETRY_AFTER_CAP_MS) return no("retry_after_exceeds_cap");
    return { retry: true, delay_ms: delay, reason, delay_source: source };
  }
  // backoff-timing at attempt k: a one-delay Backoff whose base and max are cap(k)
  // draws the sample, checks it (BACKOFF-4) and applies floor(s * cap) (BACKOFF-3).
  const cap = capMs(BASE_MS, MAX_MS, attempt);
  const backoff = new Backoff({ baseMs: cap, maxMs: cap, jitter: "full", random: sampleSequence([sample]) });
  return { retry: true, delay_ms: backoff.nextDelay(), reason, delay_source: "backoff" };
}

/** The retries of one request: each decide() is the next attempt's (RETRY-10). */
export class RetryPolicy {
  /** @type {string} */ #method;
  /** @type {number} */ #maxRetries;
  /** @type {boolean} */ #idempotencyKey;
  /** @type {number} */ #attempt = 0;

  /** @param {{method: string, maxRetries: number, idempotencyKey?: boolean}} options */
  constructor({ method, maxRetries, idempotencyKey = false }) {
    this.#method = method;
    this.#maxRetries = maxRetries;
    this.#idempotencyKey = idempotencyKey;
  }

  /** Retries made so far. */
  get attempt() {
    return this.#attempt;
  }

  /**
   * Decide on the latest failure; a retry advances the attempt.
   * @param {Failure} failure
   * @param {{nowMs: number, sample: number}} clock
   * @returns {RetryDecision}
   */
  decide(failure, { nowMs, sample }) {
    const decision = decide(failure, {
      method: this.#method,
      attempt: this.#attempt,
      maxRetries: this.#maxRetries,
      nowMs,
      sample,
      idempotencyKey: this.#idempotencyKey,
    });
    if (decision.retry) this.#attempt += 1;
    return decision;
  }
}
