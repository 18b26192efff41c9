// OAuth 2.1 PKCE with the S256 method (HIP-301 §6, RFC 7636).
// Contract: docs/domains/oauth-pkce.md.
import { createHash, randomBytes } from "node:crypto";
import { HanzoError } from "./errors.js";

/** PKCE-1: the shortest valid verifier, in characters. */
export const MIN_VERIFIER_LENGTH = 43;
/** PKCE-1: the longest valid verifier, in characters. */
export const MAX_VERIFIER_LENGTH = 128;
/** PKCE-5: random octets per generated verifier (43 base64url characters). */
const GENERATED_BYTES = 32;

/** PKCE-3: the verifier breaks the length (PKCE-1) or character-set (PKCE-2) rule. */
export class InvalidVerifierError extends HanzoError {
  /** @param {string} message */
  constructor(message) {
    super("invalid_verifier", message);
  }
}

/**
 * Whether one code point is in RFC 3986 `unreserved`, [A-Za-z0-9-._~] (PKCE-2).
 * @param {number} cp
 * @returns {boolean}
 */
function isUnreserved(cp) {
  return (
    (cp >= 0x41 && cp <= 0x5a) || // A-Z
    (cp >= 0x61 && cp <= 0x7a) || // a-z
    (cp >= 0x30 && cp <= 0x39) || // 0-9
    cp === 0x2d || cp === 0x2e || cp === 0x5f || cp === 0x7e // - . _ ~
  );
}

/**
 * Check a verifier against PKCE-1 and PKCE-2; returns it unchanged.
 * Walks code points (for..of), so a surrogate pair is one character, never two.
 * @param {unknown} verifier
 * @returns {string}
 * @throws {InvalidVerifierError}
 */
export function validateVerifier(verifier) {
  if (typeof verifier !== "string") {
    throw new InvalidVerifierError(`verifier must be a string, not ${typeof verifier}`);
  }
  let length = 0;
  for (const char of verifier) {
    const cp = /** @type {number} */ (char.codePointAt(0));
    if (!isUnreserved(cp)) {
      throw new InvalidVerifierError(
        `character ${length} (U+${cp.toString(16).toUpperCase().padStart(4, "0")}) is not in [A-Za-z0-9-._~]`,
      );
    }
    length += 1;
  }
  if (length < MIN_VERIFIER_LENGTH || length > MAX_VERIFIER_LENGTH) {
    throw new InvalidVerifierError(
      `${length} characters; ${MIN_VERIFIER_LENGTH}..${MAX_VERIFIER_LENGTH} required`,
    );
  }
  return verifier;
}

/**
 * @param {string} verifier an already-validated (ASCII) verifier
 * @returns {string}
 */
function challengeOfValid(verifier) {
  return createHash("sha256").update(verifier, "ascii").digest("base64url");
}

/**
 * PKCE-4: base64url(SHA-256(ASCII(verifier))) without padding.
 * @param {string} verifier
 * @returns {string}
 * @throws {InvalidVerifierError}
 */
export function s256Challenge(verifier) {
  return challengeOfValid(validateVerifier(verifier));
}

/** A PKCE verifier and its S256 challenge (HIP-301 §6). Instances are frozen. */
export class PkceChallenge {
  /** The `code_challenge_method` of every challenge made here. */
  static METHOD = "S256";

  /**
   * Use {@link PkceChallenge.fromVerifier} or {@link PkceChallenge.generate}.
   * @param {string} verifier
   */
  constructor(verifier) {
    /** @type {string} */
    this.verifier = verifier;
    /** @type {string} */
    this.challenge = s256Challenge(verifier);
    /** @type {"S256"} */
    this.method = "S256";
    Object.freeze(this);
  }

  /**
   * The pair for a caller-supplied verifier.
   * @param {string} verifier
   * @returns {PkceChallenge}
   * @throws {InvalidVerifierError}
   */
  static fromVerifier(verifier) {
    return new PkceChallenge(verifier);
  }

  /**
   * PKCE-5: a fresh 43-character verifier (32 CSPRNG bytes, base64url) and its challenge.
   * @returns {PkceChallenge}
   */
  static generate() {
    return new PkceChallenge(randomBytes(GENERATED_BYTES).toString("base64url"));
  }
}
