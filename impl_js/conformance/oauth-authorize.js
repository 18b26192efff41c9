// oauth-authorize JSON layer: `op` picks the operation (docs/domains/oauth-authorize.md).
// The server's error responses are outputs (their `error` is an open set); OAuthError
// and InvalidVerifierError propagate as contract errors.
import {
  AuthorizationDeniedError,
  TokenRequestFailedError,
  authorizationUrl,
  parseCallback,
  parseTokenResponse,
} from "../src/oauth.js";

/**
 * @param {AuthorizationDeniedError | TokenRequestFailedError} e
 */
function serverError(e) {
  return { error: e.error, error_description: e.errorDescription, error_uri: e.errorUri };
}

/**
 * @param {any} input
 * @returns {object}
 */
export function run(input) {
  if (input.op === "authorize-url") {
    const url = authorizationUrl({
      endpoint: input.authorization_endpoint,
      clientId: input.client_id,
      redirectUri: input.redirect_uri,
      scopes: input.scopes,
      state: input.state,
      codeVerifier: input.code_verifier,
      resource: input.resource ?? null,
      prompt: input.prompt ?? [],
    });
    return { url };
  }
  if (input.op === "callback") {
    try {
      return { code: parseCallback(input.url, { expectedState: input.state }) };
    } catch (e) {
      if (e instanceof AuthorizationDeniedError) return serverError(e);
      throw e;
    }
  }
  try {
    const token = parseTokenResponse(input.body, {
      now: input.now,
      previousRefreshToken: input.previous_refresh_token ?? null,
    });
    return {
      access_token: token.accessToken,
      token_type: token.tokenType,
      expires_at: token.expiresAt,
      refresh_token: token.refreshToken,
      scope: token.scope,
    };
  } catch (e) {
    if (e instanceof TokenRequestFailedError) return serverError(e);
    throw e;
  }
}
