// oauth-pkce JSON layer: {verifier} -> {challenge: S256(verifier)}.
import { s256Challenge } from "../src/pkce.js";

/**
 * @param {{verifier: string}} input
 * @returns {{challenge: string}}
 */
export function run(input) {
  return { challenge: s256Challenge(input.verifier) };
}
