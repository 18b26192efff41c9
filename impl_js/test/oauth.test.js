// The oauth-authorize library API beyond the JSON layer (its defaults and error types);
// the behaviour itself is pinned by vectors/oauth-authorize.json.
import { test } from "node:test";
import assert from "node:assert/strict";
import { HanzoError } from "../src/errors.js";
import {
  AuthorizationDeniedError,
  OAuthError,
  TokenRequestFailedError,
  authorizationUrl,
  parseCallback,
  parseTokenResponse,
} from "../src/oauth.js";
import { InvalidVerifierError, PkceChallenge } from "../src/pkce.js";

const REQUEST = {
  endpoint: "https://as.example/authorize",
  clientId: "c",
  redirectUri: "http://127.0.0.1:8765/cb",
  scopes: [],
  state: "s",
};

test("a generated PKCE pair's challenge is the one sent; resource and prompt default to none", () => {
  const pair = PkceChallenge.generate();
  const url = new URL(authorizationUrl({ ...REQUEST, codeVerifier: pair.verifier }));
  assert.equal(url.searchParams.get("code_challenge"), pair.challenge);
  assert.equal(url.searchParams.get("code_challenge_method"), "S256");
  assert.equal(url.searchParams.has("resource"), false);
  assert.equal(url.searchParams.has("prompt"), false);
  assert.equal(url.searchParams.has("code_verifier"), false);
});

test("refusals are HanzoErrors with the contract's codes", () => {
  assert.throws(
    () => authorizationUrl({ ...REQUEST, endpoint: "http://as.example/a", codeVerifier: "x" }),
    (e) => e instanceof OAuthError && e instanceof HanzoError && e.code === "invalid_endpoint",
  );
  assert.throws(
    () => authorizationUrl({ ...REQUEST, codeVerifier: "short" }),
    (e) => e instanceof InvalidVerifierError && e.code === "invalid_verifier",
  );
  assert.throws(
    () => parseCallback("http://127.0.0.1/cb?code=a", { expectedState: "s" }),
    (e) => e instanceof OAuthError && e.code === "state_mismatch",
  );
});

test("the server's error responses carry its three parameters and are not HanzoErrors", () => {
  assert.throws(
    () => parseCallback("http://127.0.0.1/cb?error=access_denied&state=s", { expectedState: "s" }),
    (e) =>
      e instanceof AuthorizationDeniedError &&
      !(e instanceof HanzoError) &&
      e.error === "access_denied" &&
      e.errorDescription === null &&
      e.errorUri === null,
  );
  assert.throws(
    () => parseTokenResponse('{"error":"invalid_grant","error_description":"d"}', { now: 0 }),
    (e) => e instanceof TokenRequestFailedError && e.error === "invalid_grant" && e.errorDescription === "d",
  );
});

test("previousRefreshToken defaults to none", () => {
  const token = parseTokenResponse('{"access_token":"a","token_type":"bearer","expires_in":5}', { now: 10 });
  assert.deepEqual(token, { accessToken: "a", tokenType: "Bearer", expiresAt: 15, refreshToken: null, scope: null });
});
