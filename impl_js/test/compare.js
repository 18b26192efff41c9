// Comparing an actual output with a vector's expected output, applying the
// vector file's `comparison` rules exactly as docs/architecture.md ("Vector
// files") defines them (its `variants` are expanded by variants.js). No dependencies.

/**
 * @typedef {{kind: "ignore", path: string, where?: Record<string, unknown>}} IgnoreRule
 * @typedef {{kind: "at-most", path: string, when?: Record<string, unknown>, unless?: string[]}} AtMostRule
 * @typedef {IgnoreRule | AtMostRule} Rule
 * @typedef {{kind: "rechunk", path: string}} Variant
 * @typedef {{pointer: string, expected: unknown, actual: unknown, note?: string}} Difference
 *   `expected`/`actual` are `undefined` when the value is missing on that side.
 */

/** Sentinel for "no value here" (a missing key or array element). */
export const MISSING = undefined;

/**
 * Splits a JSON pointer into unescaped segments ("" is the whole document).
 * @param {string} pointer
 * @returns {string[]}
 */
export function parsePointer(pointer) {
  if (pointer === "") return [];
  if (!pointer.startsWith("/")) throw new Error(`not a JSON pointer: ${JSON.stringify(pointer)}`);
  return pointer
    .slice(1)
    .split("/")
    .map((s) => s.replaceAll("~1", "/").replaceAll("~0", "~"));
}

/**
 * @param {readonly string[]} segments
 * @returns {string}
 */
export function formatPointer(segments) {
  return segments.map((s) => "/" + s.replaceAll("~", "~0").replaceAll("/", "~1")).join("");
}

/**
 * The value at `pointer` in `doc`, or `{found: false}`.
 * @param {unknown} doc
 * @param {string} pointer
 * @returns {{found: true, value: unknown} | {found: false}}
 */
export function resolvePointer(doc, pointer) {
  /** @type {any} */
  let here = doc;
  for (const segment of parsePointer(pointer)) {
    if (Array.isArray(here)) {
      if (!/^(0|[1-9][0-9]*)$/.test(segment) || Number(segment) >= here.length) return { found: false };
      here = here[Number(segment)];
    } else if (here !== null && typeof here === "object" && Object.hasOwn(here, segment)) {
      here = here[segment];
    } else {
      return { found: false };
    }
  }
  return { found: true, value: here };
}

/**
 * @param {unknown} value
 * @returns {"missing" | "null" | "boolean" | "number" | "string" | "array" | "object" | "other"}
 */
function jsonType(value) {
  if (value === undefined) return "missing";
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  const t = typeof value;
  if (t === "boolean" || t === "number" || t === "string" || t === "object") return t;
  return "other";
}

/**
 * JSON equality: same types, same keys (any order), same array lengths; numbers by value.
 * @param {unknown} a
 * @param {unknown} b
 * @returns {boolean}
 */
export function jsonEqual(a, b) {
  const ta = jsonType(a);
  if (ta !== jsonType(b)) return false;
  if (ta === "array") {
    const x = /** @type {unknown[]} */ (a);
    const y = /** @type {unknown[]} */ (b);
    return x.length === y.length && x.every((v, i) => jsonEqual(v, y[i]));
  }
  if (ta === "object") {
    const x = /** @type {Record<string, unknown>} */ (a);
    const y = /** @type {Record<string, unknown>} */ (b);
    const kx = Object.keys(x);
    return kx.length === Object.keys(y).length && kx.every((k) => Object.hasOwn(y, k) && jsonEqual(x[k], y[k]));
  }
  return a === b;
}

/**
 * Does a rule path (segments may be `*`) name exactly this location?
 * @param {readonly string[]} pattern
 * @param {readonly string[]} segments
 */
function matches(pattern, segments) {
  return pattern.length === segments.length && pattern.every((p, i) => p === "*" || p === segments[i]);
}

/**
 * Does an `at-most` rule apply to a case with this input (its `when` and `unless`)?
 * @param {AtMostRule} rule
 * @param {unknown} input
 */
export function atMostApplies(rule, input) {
  for (const [pointer, value] of Object.entries(rule.when ?? {})) {
    const got = resolvePointer(input, pointer);
    if (!got.found || !jsonEqual(got.value, value)) return false;
  }
  return (rule.unless ?? []).every((pointer) => !resolvePointer(input, pointer).found);
}

const RULE_KEYS = { ignore: ["kind", "path", "where"], "at-most": ["kind", "path", "when", "unless"] };
const POINTER = /^(\/([^/~]|~[01])*)*$/;

/**
 * @param {unknown} pointer
 * @param {boolean} wildcard whether a `*` segment is allowed (rule paths) or not (`when`/`unless`)
 */
function isPointer(pointer, wildcard) {
  if (typeof pointer !== "string" || !POINTER.test(pointer)) return false;
  return wildcard || !pointer.split("/").includes("*");
}

/** @param {unknown} value */
function isScalarMap(value) {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  return Object.values(value).every((v) => v === null || ["string", "number", "boolean"].includes(typeof v));
}

/**
 * Refuses every rule form tests/tables/comparison.json does not define (as
 * schemas/vector-file.schema.json does): unknown kinds or keys, bad pointers, `*`
 * in `when`/`unless`, non-scalar `where`/`when` values.
 * @param {readonly unknown[]} rules
 * @returns {Rule[]}
 */
export function checkRules(rules) {
  for (const rule of rules) {
    const r = /** @type {Record<string, unknown>} */ (rule);
    const what = JSON.stringify(rule);
    if (r === null || typeof r !== "object" || Array.isArray(r)) throw new Error(`rule ${what} is not an object`);
    const allowed = RULE_KEYS[/** @type {keyof typeof RULE_KEYS} */ (r.kind)];
    if (!Object.hasOwn(RULE_KEYS, String(r.kind)) || allowed === undefined) {
      throw new Error(`unknown comparison rule kind ${JSON.stringify(r.kind)}`);
    }
    const extra = Object.keys(r).filter((k) => !allowed.includes(k));
    if (extra.length > 0) throw new Error(`rule ${what}: unknown key ${JSON.stringify(extra[0])}`);
    if (!isPointer(r.path, true)) throw new Error(`rule ${what}: "path" must be a JSON pointer`);
    if (r.where !== undefined && !isScalarMap(r.where)) throw new Error(`rule ${what}: "where" must be an object of JSON scalars`);
    if (r.when !== undefined && (!isScalarMap(r.when) || !Object.keys(/** @type {object} */ (r.when)).every((p) => isPointer(p, false)))) {
      throw new Error(`rule ${what}: "when" must map JSON pointers without "*" to JSON scalars`);
    }
    if (r.unless !== undefined && (!Array.isArray(r.unless) || !r.unless.every((p) => isPointer(p, false)))) {
      throw new Error(`rule ${what}: "unless" must be a list of JSON pointers without "*"`);
    }
  }
  return /** @type {Rule[]} */ (rules);
}

/**
 * Every difference between `expected` and `actual` under the comparison rules.
 * An empty list means the output passes.
 * @param {unknown} expected
 * @param {unknown} actual
 * @param {{rules?: readonly Rule[], input?: unknown}} [options]
 *   `input` is the case's input, for `at-most` rules' `when`/`unless`.
 * @returns {Difference[]}
 */
export function compare(expected, actual, options = {}) {
  const rules = checkRules(options.rules ?? []);
  // at-most rules apply only to cases whose input matches `when` and has no `unless`.
  const active = rules
    .filter((r) => r.kind === "ignore" || atMostApplies(r, options.input))
    .map((rule) => ({ rule, pattern: parsePointer(rule.path) }));
  /** @type {Difference[]} */
  const diffs = [];

  /**
   * The first rule (in declaration order) that governs this location, if any.
   * @param {string[]} segments
   * @param {unknown} expParent
   * @returns {Rule | undefined}
   */
  function ruleAt(segments, expParent) {
    for (const { rule, pattern } of active) {
      if (!matches(pattern, segments)) continue;
      if (rule.kind === "ignore" && rule.where !== undefined && Object.keys(rule.where).length > 0) {
        if (jsonType(expParent) !== "object") continue;
        const holder = /** @type {Record<string, unknown>} */ (expParent);
        const where = Object.entries(rule.where);
        if (!where.every(([k, v]) => Object.hasOwn(holder, k) && jsonEqual(holder[k], v))) continue;
      }
      return rule;
    }
    return undefined;
  }

  /**
   * @param {unknown} exp
   * @param {unknown} act
   * @param {string[]} segments
   * @param {unknown} expParent the expected-side container holding `exp` (undefined at the root)
   */
  function walk(exp, act, segments, expParent) {
    const rule = active.length > 0 ? ruleAt(segments, expParent) : undefined;
    if (rule?.kind === "ignore") return;
    const pointer = formatPointer(segments);
    if (rule?.kind === "at-most") {
      const ok = typeof exp === "number" && typeof act === "number" && act >= 0 && act <= exp;
      if (!ok) diffs.push({ pointer, expected: exp, actual: act, note: `at-most: want a number in [0, ${show(exp)}]` });
      return;
    }
    const te = jsonType(exp);
    const ta = jsonType(act);
    if (te !== ta) {
      diffs.push({ pointer, expected: exp, actual: act });
      return;
    }
    if (te === "array") {
      const x = /** @type {unknown[]} */ (exp);
      const y = /** @type {unknown[]} */ (act);
      const n = Math.max(x.length, y.length);
      for (let i = 0; i < n; i += 1) {
        walk(i < x.length ? x[i] : MISSING, i < y.length ? y[i] : MISSING, [...segments, String(i)], exp);
      }
      return;
    }
    if (te === "object") {
      const x = /** @type {Record<string, unknown>} */ (exp);
      const y = /** @type {Record<string, unknown>} */ (act);
      const keys = [...Object.keys(x), ...Object.keys(y).filter((k) => !Object.hasOwn(x, k))];
      for (const k of keys) {
        walk(Object.hasOwn(x, k) ? x[k] : MISSING, Object.hasOwn(y, k) ? y[k] : MISSING, [...segments, k], exp);
      }
      return;
    }
    if (exp !== act) diffs.push({ pointer, expected: exp, actual: act });
  }

  walk(expected, actual, [], undefined);
  return diffs;
}

/**
 * @param {unknown} value
 * @returns {string}
 */
export function show(value) {
  if (value === undefined) return "(missing)";
  const text = JSON.stringify(value);
  return text.length > 300 ? `${text.slice(0, 300)}...` : text;
}
