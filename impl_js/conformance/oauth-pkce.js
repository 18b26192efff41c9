// oauth-pkce JSON layer: {verifier} -> {challenge: S256(verifier)}.
import { HanzoError } from "../src/errors.js";
import { s256Challenge } from "../src/pkce.js";

/**
 * @param {{verifier: string}} input
 * @returns {{challenge: string}}
 */
export function run(input) {
  if (input === null || typeof input !== "object" || !("verifier" in input)) {
    throw new HanzoError("bad_input", "input.verifier is required");
  }
  return { challenge: s256Challenge(input.verifier) };
}
