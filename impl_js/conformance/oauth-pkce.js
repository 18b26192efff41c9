// oauth-pkce JSON layer: {verifier} -> {challenge: S256(verifier)};
// {generate: true} -> a fresh {verifier, challenge} pair (PKCE-5, checked as a property).
import { HanzoError } from "../src/errors.js";
import { PkceChallenge, s256Challenge } from "../src/pkce.js";

/**
 * @param {{verifier: string} | {generate: true}} input
 * @returns {{challenge: string, verifier?: string}}
 */
export function run(input) {
  if (input !== null && typeof input === "object" && "generate" in input && input.generate === true) {
    const pair = PkceChallenge.generate();
    return { verifier: pair.verifier, challenge: pair.challenge };
  }
  if (input === null || typeof input !== "object" || !("verifier" in input)) {
    throw new HanzoError("bad_input", "input.verifier is required");
  }
  return { challenge: s256Challenge(input.verifier) };
}
