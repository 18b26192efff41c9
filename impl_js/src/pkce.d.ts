import { HanzoError } from "./errors.js";

/** PKCE-1: the shortest valid verifier, in characters (code points). */
export declare const MIN_VERIFIER_LENGTH: 43;
/** PKCE-1: the longest valid verifier, in characters (code points). */
export declare const MAX_VERIFIER_LENGTH: 128;

/** PKCE-3: `code === "invalid_verifier"`. */
export declare class InvalidVerifierError extends HanzoError {
  constructor(message: string);
}

/** Returns the verifier if it is 43..128 characters of [A-Za-z0-9-._~]; throws InvalidVerifierError otherwise. */
export declare function validateVerifier(verifier: unknown): string;

/** PKCE-4: base64url(SHA-256(verifier)) without padding; throws InvalidVerifierError. */
export declare function s256Challenge(verifier: string): string;

/** A PKCE verifier and its S256 challenge (docs/domains/oauth-pkce.md). Frozen. */
export declare class PkceChallenge {
  static readonly METHOD: "S256";
  /** Prefer `fromVerifier` / `generate`; throws InvalidVerifierError. */
  constructor(verifier: string);
  readonly verifier: string;
  readonly challenge: string;
  readonly method: "S256";
  /** The pair for a caller-supplied verifier; throws InvalidVerifierError. */
  static fromVerifier(verifier: string): PkceChallenge;
  /** PKCE-5: a fresh 43-character verifier from 32 CSPRNG bytes, and its challenge. */
  static generate(): PkceChallenge;
}
