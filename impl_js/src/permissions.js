// Tool permission rules (HIP-301 §7, docs/domains/permission-policy.md): the first
// rule whose glob matches the whole tool name decides; no match is "prompt".
// Globs are the PERM-11..PERM-19 dialect, matched by hand on code points
// (no RegExp built from patterns, no glob library).

import { HanzoError } from "./errors.js";

/** @typedef {"allow" | "deny" | "prompt"} PermissionMode */

/** The three modes, exactly as spelled in configs (PERM-2). */
export const PERMISSION_MODES = Object.freeze(/** @type {const} */ (["allow", "deny", "prompt"]));

/** Base of the permission-policy contract errors. */
export class PolicyError extends HanzoError {}

/** A rule's mode is not exactly allow, deny or prompt (PERM-2). */
export class InvalidModeError extends PolicyError {
  /** @param {string} message */
  constructor(message) {
    super("invalid_mode", message);
  }
}

// --- globs -----------------------------------------------------------------------

/**
 * @typedef {{kind: "star"} | {kind: "any"} | {kind: "literal", ch: string}
 *   | {kind: "set", negated: boolean, chars: Set<string>, ranges: Array<[number, number]>}} Token
 */

/** @type {Token} */
const STAR = { kind: "star" };
/** @type {Token} */
const ANY = { kind: "any" };

/**
 * Parse the set whose `[` is at `cps[start]`; null if it never closes (PERM-17).
 * @param {string[]} cps the pattern's code points
 * @param {number} start
 * @returns {[Token, number] | null} the set and the index just past its `]`
 */
function parseSet(cps, start) {
  let i = start + 1;
  const negated = cps[i] === "!";
  if (negated) i += 1;
  const bodyStart = i;
  if (cps[i] === "]") i += 1; // a "]" first in the set is a member (PERM-16)
  const end = cps.indexOf("]", i);
  if (end < 0) return null;
  /** @type {Set<string>} */
  const chars = new Set();
  /** @type {Array<[number, number]>} */
  const ranges = [];
  let k = bodyStart;
  while (k < end) {
    const first = /** @type {string} */ (cps[k]);
    if (k + 2 < end && cps[k + 1] === "-") {
      const lo = /** @type {number} */ (first.codePointAt(0));
      const hi = /** @type {number} */ (/** @type {string} */ (cps[k + 2]).codePointAt(0));
      if (lo <= hi) ranges.push([lo, hi]); // a reversed range matches nothing (PERM-15)
      k += 3;
    } else {
      chars.add(first);
      k += 1;
    }
  }
  return [{ kind: "set", negated, chars, ranges }, end + 1];
}

/**
 * @param {Token} token not STAR
 * @param {string} ch one code point
 * @returns {boolean}
 */
function matchesOne(token, ch) {
  switch (token.kind) {
    case "any":
      return true;
    case "literal":
      return token.ch === ch;
    case "set": {
      const cp = /** @type {number} */ (ch.codePointAt(0));
      const hit = token.chars.has(ch) || token.ranges.some(([lo, hi]) => lo <= cp && cp <= hi);
      return hit !== token.negated;
    }
    default:
      return true;
  }
}

/** A compiled pattern of the PERM-11..PERM-19 dialect; every string is a valid pattern. */
export class Glob {
  /** @param {string} pattern */
  constructor(pattern) {
    /** @readonly */
    this.pattern = pattern;
    const cps = Array.from(pattern);
    /** @type {Token[]} */
    const tokens = [];
    let i = 0;
    while (i < cps.length) {
      const ch = /** @type {string} */ (cps[i]);
      if (ch === "*") {
        if (tokens[tokens.length - 1] !== STAR) tokens.push(STAR); // "**" is "*"
        i += 1;
      } else if (ch === "?") {
        tokens.push(ANY);
        i += 1;
      } else {
        const set = ch === "[" ? parseSet(cps, i) : null;
        if (set) {
          tokens.push(set[0]);
          i = set[1];
        } else {
          tokens.push({ kind: "literal", ch });
          i += 1;
        }
      }
    }
    /** @private @readonly */
    this.tokens = tokens;
  }

  /**
   * True if the pattern matches the whole of `name` (PERM-11). Two pointers,
   * backtracking only to the most recent `*`: O(m*n) at worst (PERM-19).
   * @param {string} name
   * @returns {boolean}
   */
  matches(name) {
    const cps = Array.from(name);
    const tokens = this.tokens;
    let p = 0;
    let s = 0;
    let starP = -1;
    let starS = 0;
    while (s < cps.length) {
      const token = tokens[p];
      if (token === STAR) {
        starP = p;
        starS = s;
        p += 1;
      } else if (token !== undefined && matchesOne(token, /** @type {string} */ (cps[s]))) {
        p += 1;
        s += 1;
      } else if (starP >= 0) {
        starS += 1;
        p = starP + 1;
        s = starS;
      } else {
        return false;
      }
    }
    while (tokens[p] === STAR) p += 1;
    return p === tokens.length;
  }
}

/**
 * True if glob `pattern` matches the whole of `name` (PERM-11..PERM-19).
 * @param {string} pattern
 * @param {string} name
 * @returns {boolean}
 */
export function globMatch(pattern, name) {
  return new Glob(pattern).matches(name);
}

// --- policy ----------------------------------------------------------------------

/**
 * @typedef {object} PermissionRuleSpec
 * @property {string} toolPattern
 * @property {string} mode checked by the PermissionPolicy constructor
 * @property {string | null} [reason]
 */

/**
 * @typedef {object} AuditRecord HIP-301's audit record minus timestamp and session_id (PERM-6)
 * @property {string} toolName
 * @property {PermissionMode} mode
 * @property {number | null} ruleMatched
 * @property {string | null} reason the denial reason for "deny", else null
 */

/**
 * @typedef {object} Decision
 * @property {PermissionMode} mode
 * @property {number | null} ruleIndex
 * @property {string | null} reason the matched rule's reason as given
 * @property {AuditRecord} audit
 */

/**
 * @param {unknown} mode
 * @returns {mode is PermissionMode}
 */
function isMode(mode) {
  return /** @type {readonly unknown[]} */ (PERMISSION_MODES).includes(mode);
}

/** Evaluates permission rules for tool execution requests (HIP-301 §7). */
export class PermissionPolicy {
  /**
   * @param {Iterable<PermissionRuleSpec>} rules in order
   * @throws {InvalidModeError} if any rule's mode is invalid, reachable or not (PERM-2)
   */
  constructor(rules) {
    /** @type {Array<{glob: Glob, mode: PermissionMode, reason: string | null}>} */
    const compiled = [];
    let index = 0;
    for (const rule of rules) {
      const mode = rule.mode;
      if (!isMode(mode)) {
        const shown = JSON.stringify(mode);
        throw new InvalidModeError(`rule ${index}: invalid permission mode ${shown}`);
      }
      compiled.push({ glob: new Glob(rule.toolPattern), mode, reason: rule.reason ?? null });
      index += 1;
    }
    /** @private @readonly */
    this.rules = compiled;
  }

  /**
   * The first matching rule decides; no match is "prompt" (PERM-4..PERM-6).
   * @param {string} toolName
   * @returns {Decision}
   */
  evaluate(toolName) {
    for (let index = 0; index < this.rules.length; index += 1) {
      const rule = /** @type {{glob: Glob, mode: PermissionMode, reason: string | null}} */ (
        this.rules[index]
      );
      if (rule.glob.matches(toolName)) {
        const auditReason =
          rule.mode === "deny" ? (rule.reason ?? `denied by permission rule ${index}`) : null;
        return {
          mode: rule.mode,
          ruleIndex: index,
          reason: rule.reason,
          audit: { toolName, mode: rule.mode, ruleMatched: index, reason: auditReason },
        };
      }
    }
    return {
      mode: "prompt",
      ruleIndex: null,
      reason: null,
      audit: { toolName, mode: "prompt", ruleMatched: null, reason: null },
    };
  }
}
