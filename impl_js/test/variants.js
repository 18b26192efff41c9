// A case run several ways, as its vector file's `variants` say (docs/architecture.md,
// "variants"). `rechunk` re-splits the text held as a list of strings at `path`, in
// this order: `one-per-chunk` (one code point per chunk), then `split@k` (the first k
// code points, the rest) for ascending k: every 0 < k < n when the text has
// n <= ALL_SPLITS_UP_TO code points, otherwise exactly SPLIT_POINTS of them (see
// splitPoints). Each derived input is made when it is needed, so a case costs time
// linear in its length. runners/_variants.py and the Rust crate's variants.rs
// expand alike; ../../tests/tables/variants.json is the table all three pass.

import { parsePointer, resolvePointer } from "./compare.js";

/** Texts of at most this many code points are split at every boundary. */
export const ALL_SPLITS_UP_TO = 256;
/** Longer texts are split at exactly this many boundaries... */
export const SPLIT_POINTS = 64;
/** ...of which at most this many are next to a PREFERRED code point. */
export const PREFERRED_SPLITS = 32;
/** Where chunking bugs live: CR, LF (and a CRLF split), the BOM, the field colon. */
export const PREFERRED = Object.freeze(["\r", "\n", "\ufeff", ":"]);

/** A variant that does not apply to an input; `kind` is the table's name for it. */
export class VariantError extends Error {
  /**
   * @param {"path-missing" | "not-a-list-of-strings"} kind
   * @param {string} message
   */
  constructor(kind, message) {
    super(message);
    this.name = "VariantError";
    this.kind = kind;
  }
}

/**
 * The joined text of the list of strings at `path` (an RFC 6901 pointer).
 * @param {unknown} input
 * @param {string} path
 * @returns {string}
 */
export function textAt(input, path) {
  const at = resolvePointer(input, path);
  if (!at.found) throw new VariantError("path-missing", `rechunk: the input has nothing at ${JSON.stringify(path)}`);
  const chunks = at.value;
  if (!Array.isArray(chunks) || !chunks.every((c) => typeof c === "string")) {
    throw new VariantError("not-a-list-of-strings", `rechunk: the input at ${JSON.stringify(path)} is not a list of strings`);
  }
  return chunks.join("");
}

/**
 * `count` distinct ordinals below `total` (count <= total), spread evenly.
 * @param {number} count
 * @param {number} total
 * @param {boolean} centred
 * @returns {number[]}
 */
function evenly(count, total, centred) {
  const out = [];
  for (let i = 0; i < count; i += 1) {
    out.push(centred ? Math.floor(((2 * i + 1) * total) / (2 * count)) : Math.floor((i * total) / count));
  }
  return out;
}

/**
 * The k of the `split@k` chunkings of `text`, ascending, counted in code points.
 * With n code points: every 0 < k < n if n <= ALL_SPLITS_UP_TO. Else SPLIT_POINTS
 * boundaries: a boundary is preferred when the code point before or after it is in
 * PREFERRED; of the p preferred boundaries, m = min(p, PREFERRED_SPLITS) are taken,
 * those with ordinals floor(i p / m); the other SPLIT_POINTS - m come from the q
 * boundaries not yet taken, at ordinals floor((2j + 1) q / (2 (SPLIT_POINTS - m))).
 * @param {string} text
 * @returns {number[]}
 */
export function splitPoints(text) {
  /** @type {number[]} */
  const preferred = [];
  let n = 0;
  let previousPreferred = false;
  for (const c of text) {
    const here = PREFERRED.includes(c);
    if (n > 0 && (here || previousPreferred)) preferred.push(n);
    previousPreferred = here;
    n += 1;
  }
  if (n <= ALL_SPLITS_UP_TO) return Array.from({ length: Math.max(n - 1, 0) }, (_, i) => i + 1);
  const p = preferred.length;
  const m = Math.min(p, PREFERRED_SPLITS);
  const taken = evenly(m, p, false).map((i) => /** @type {number} */ (preferred[i]));
  const chosen = [...taken];
  for (const t of evenly(SPLIT_POINTS - m, n - 1 - m, true)) {
    // The t-th boundary of 1..n-1, skipping those already taken (ascending).
    let k = t + 1;
    for (const s of taken) if (s <= k) k += 1;
    chosen.push(k);
  }
  return chosen.sort((a, b) => a - b);
}

/**
 * The chunkings of `text`, made one at a time: [name, chunks].
 * @param {string} text
 * @returns {Generator<[string, string[]]>}
 */
export function* rechunkings(text) {
  const points = splitPoints(text);
  yield ["one-per-chunk", Array.from(text)];
  let at = 0; // code points before `unit`
  let unit = 0; // UTF-16 offset
  for (const k of points) {
    while (at < k) {
      unit += /** @type {number} */ (text.codePointAt(unit)) > 0xffff ? 2 : 1;
      at += 1;
    }
    yield [`split@${k}`, [text.slice(0, unit), text.slice(unit)]];
  }
}

/**
 * A deep copy of `doc` with the value at `segments` replaced.
 * @param {unknown} doc
 * @param {readonly string[]} segments
 * @param {unknown} value
 * @returns {unknown}
 */
function replaceAt(doc, segments, value) {
  if (segments.length === 0) return value;
  const copy = /** @type {any} */ (structuredClone(doc));
  let here = copy;
  for (const segment of segments.slice(0, -1)) here = here[Array.isArray(here) ? Number(segment) : segment];
  const last = /** @type {string} */ (segments.at(-1));
  here[Array.isArray(here) ? Number(last) : last] = value;
  return copy;
}

/**
 * The derived inputs of one case (not the case itself), made one at a time.
 * Throws VariantError at once, before anything is made, if a variant does not apply.
 * @param {unknown} input
 * @param {readonly import("./compare.js").Variant[]} variants
 * @returns {Generator<{chunking: string, input: unknown}>}
 */
export function expandVariants(input, variants) {
  const texts = variants.map((variant) => {
    if (variant.kind !== "rechunk") throw new Error(`unknown variant kind ${JSON.stringify(variant.kind)}`);
    return { segments: parsePointer(variant.path), text: textAt(input, variant.path) };
  });
  return (function* derived() {
    for (const { segments, text } of texts) {
      for (const [chunking, chunks] of rechunkings(text)) {
        yield { chunking, input: replaceAt(input, segments, chunks) };
      }
    }
  })();
}
