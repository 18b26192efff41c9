// PKCE-5: PkceChallenge.generate() returns valid, fresh pairs (property tests; not vectorizable).
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import {
  InvalidVerifierError,
  MAX_VERIFIER_LENGTH,
  MIN_VERIFIER_LENGTH,
  PkceChallenge,
  s256Challenge,
} from "../src/pkce.js";

const UNRESERVED = /^[A-Za-z0-9._~-]+$/;

/** Independent S256: standard base64 translated to the URL alphabet by hand. */
function independentS256(verifier) {
  const b64 = createHash("sha256").update(Buffer.from(verifier, "latin1")).digest("base64");
  return b64.replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

test("generated pairs are valid and distinct", () => {
  const seen = new Set();
  for (let i = 0; i < 500; i += 1) {
    const pair = PkceChallenge.generate();
    assert.equal(pair.verifier.length, 43);
    assert.ok(pair.verifier.length >= MIN_VERIFIER_LENGTH && pair.verifier.length <= MAX_VERIFIER_LENGTH);
    assert.match(pair.verifier, UNRESERVED);
    assert.equal(pair.challenge, independentS256(pair.verifier));
    assert.match(pair.challenge, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(pair.method, "S256");
    assert.ok(Object.isFrozen(pair));
    assert.deepEqual(PkceChallenge.fromVerifier(pair.verifier), pair);
    seen.add(pair.verifier);
  }
  assert.equal(seen.size, 500);
});

test("generated verifiers use the whole base64url alphabet", () => {
  const chars = new Set();
  for (let i = 0; i < 200; i += 1) for (const c of PkceChallenge.generate().verifier) chars.add(c);
  assert.equal(chars.size, 64);
});

test("random unreserved verifiers of every valid length are accepted", () => {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~";
  for (let length = 43; length <= 128; length += 1) {
    let v = "";
    for (let i = 0; i < length; i += 1) v += alphabet[Math.floor(Math.random() * alphabet.length)];
    assert.equal(s256Challenge(v), independentS256(v));
  }
});

test("UTF-16 length cannot fool the length check", () => {
  const emoji = "\u{1F600}"; // one code point, two UTF-16 units
  for (const v of ["a".repeat(41) + emoji, "a".repeat(42) + emoji, "a".repeat(127) + emoji, "\uD800" + "a".repeat(42)]) {
    assert.throws(() => s256Challenge(v), (e) => e instanceof InvalidVerifierError && e.code === "invalid_verifier");
  }
  for (const bad of [undefined, null, 43, ["a".repeat(43)]]) {
    assert.throws(() => s256Challenge(/** @type {any} */ (bad)), InvalidVerifierError);
  }
});
