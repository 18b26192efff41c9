// oauth-pkce JSON layer: {verifier} -> {challenge: S256(verifier)};
// {generate: true} -> a fresh {verifier, challenge} pair (PKCE-5, checked as a property
// by hanzo-conformance generate, since no vector can expect a random output).
import { PkceChallenge, s256Challenge } from "../src/pkce.js";

/**
 * @param {{verifier: string} | {generate: true}} input
 * @returns {{challenge: string, verifier?: string}}
 */
export function run(input) {
  if ("generate" in input) {
    const pair = PkceChallenge.generate();
    return { verifier: pair.verifier, challenge: pair.challenge };
  }
  return { challenge: s256Challenge(input.verifier) };
}
