"""oauth-authorize JSON layer: ``op`` picks the operation (docs/domains/oauth-authorize.md).

- ``authorize-url`` -> ``{"url"}``;
- ``callback`` -> ``{"code"}``, or the server's ``{"error", "error_description", "error_uri"}``;
- ``token-response`` -> ``{"access_token", "token_type", "expires_at", "refresh_token",
  "scope"}``, or the server's error body as above.

The server's error responses are outputs (their ``error`` is an open set); OAuthError
and InvalidVerifier propagate as contract errors.
"""

from __future__ import annotations

from typing import Any

from impl_python.oauth import (
    AuthorizationDenied,
    TokenRequestFailed,
    authorization_url,
    parse_callback,
    parse_token_response,
)


def _server_error(e: AuthorizationDenied | TokenRequestFailed) -> dict[str, Any]:
    return {"error": e.error, "error_description": e.error_description, "error_uri": e.error_uri}


def run(case_input: dict[str, Any]) -> dict[str, Any]:
    op = case_input["op"]
    if op == "authorize-url":
        url = authorization_url(
            case_input["authorization_endpoint"],
            client_id=case_input["client_id"],
            redirect_uri=case_input["redirect_uri"],
            scopes=case_input["scopes"],
            state=case_input["state"],
            code_verifier=case_input["code_verifier"],
            resource=case_input.get("resource"),
            prompt=case_input.get("prompt", ()),
        )
        return {"url": url}
    if op == "callback":
        try:
            return {"code": parse_callback(case_input["url"], expected_state=case_input["state"])}
        except AuthorizationDenied as e:
            return _server_error(e)
    try:
        token = parse_token_response(
            case_input["body"],
            now=case_input["now"],
            previous_refresh_token=case_input.get("previous_refresh_token"),
        )
    except TokenRequestFailed as e:
        return _server_error(e)
    return {
        "access_token": token.access_token,
        "token_type": token.token_type,
        "expires_at": token.expires_at,
        "refresh_token": token.refresh_token,
        "scope": token.scope,
    }
