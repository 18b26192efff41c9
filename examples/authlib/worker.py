"""A conformance worker for Authlib 1.9.6: its PKCE (RFC 7636) on the oauth-pkce domain,
and its OAuth 2 client on oauth-authorize.

    pip install authlib==1.9.6
    hanzo-conformance run --worker authlib='python examples/authlib/worker.py' \
        --platform authlib --domain oauth-pkce --domain oauth-authorize \
        --expectations examples/authlib/expectations.json

It speaks docs/protocol.md on stdin/stdout: answer ``start``, then one answer per
``run``, flushed. The JSON layer does what an Authlib authorization server does with
a token request's ``code_verifier`` (``CodeChallenge.validate_code_verifier``): the
verifier must match ``CODE_VERIFIER_PATTERN``, else the request is refused
(``invalid_verifier`` here); the challenge is ``create_s256_code_challenge``.
Authlib has no PKCE ``generate()`` (its client documentation makes a verifier with
``generate_token(48)``: 48 alphanumerics, a valid verifier but not PKCE-5's 43
base64url characters from 32 random bytes), so a ``generate`` request is answered
``skip``, never compared as if it were one. Nothing is corrected: the ledger next to
this file records where Authlib differs. Like every example worker it is
self-contained (its protocol loop is the httpx-sse worker's), so that it can be copied
into the repository of whoever gates on it.

oauth-authorize drives Authlib's public client API, nothing re-implemented:

- ``authorize-url``: ``OAuth2Client(None, client_id, redirect_uri=..., scope=[...],
  code_challenge_method="S256").create_authorization_url(endpoint, state=...,
  code_verifier=..., resource=..., prompt=...)`` (``resource`` when the case gives one,
  ``prompt`` when it gives values, joined with spaces as the parameter is sent);
- ``callback``: ``authlib.oauth2.rfc6749.parameters.parse_authorization_code_response(
  url, state=...)``, its ``MissingCodeException`` as ``missing_code`` and
  ``MismatchingStateException`` as ``state_mismatch``;
- ``token-response``: ``authlib.integrations.httpx_client.OAuth2Client`` over an
  ``httpx.MockTransport`` that answers the token request with the case's body (HTTP 200,
  ``application/json``): ``fetch_token`` (authorization_code grant), or, when the case
  holds a previous refresh token, ``refresh_token`` with it. The clock is injected by
  giving ``authlib.oauth2.rfc6749.wrappers`` (where ``OAuth2Token`` computes
  ``expires_at = int(time.time()) + int(expires_in)``) a ``time`` whose ``time()`` is the
  case's ``now``. Authlib's ``OAuthError`` is the server's error output (its
  ``description`` is ``""`` when none was sent: written as null); a ``ValueError`` out of
  ``fetch_token``/``refresh_token`` (a body that is not a JSON object, or an
  ``expires_in`` that ``int()`` cannot read) is ``invalid_token_response``: Authlib
  refuses the response. The credential is written
  from the token dict as Authlib holds it (``.get`` of the five members).
"""

from __future__ import annotations

import json
import sys
import traceback
from importlib import metadata
from typing import Any

try:
    # The transport must come from the HTTP library Authlib's client uses: httpx2 where
    # it is installed (openai and anthropic pull it in), else httpx (authlib's _compat).
    try:
        import httpx2 as httpx
    except ImportError:
        import httpx
    from authlib.integrations.httpx_client import OAuth2Client as HttpxOAuth2Client
    from authlib.integrations.httpx_client import OAuthError
    from authlib.oauth2.client import OAuth2Client
    from authlib.oauth2.rfc6749 import MismatchingStateException, MissingCodeException
    from authlib.oauth2.rfc6749 import wrappers as token_wrappers
    from authlib.oauth2.rfc6749.parameters import parse_authorization_code_response
    from authlib.oauth2.rfc7636 import challenge as rfc7636
except ImportError:
    raise SystemExit("authlib is not installed: pip install authlib==1.9.6") from None


NO_GENERATE = "Authlib has no PKCE generate() (PKCE-5); its docs use generate_token(48)"


def oauth_pkce(case_input: dict[str, Any]) -> dict[str, Any]:
    verifier = case_input["verifier"]
    if not isinstance(verifier, str) or not rfc7636.CODE_VERIFIER_PATTERN.match(verifier):
        raise InvalidVerifier
    return {"challenge": rfc7636.create_s256_code_challenge(verifier)}


class InvalidVerifier(Exception):
    """Authlib's server answers such a token request with invalid_request."""


class ContractError(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


TOKEN_URL = "https://as.example/token"


def authorize_url(case: dict[str, Any]) -> dict[str, Any]:
    client = OAuth2Client(
        None,
        client_id=case["client_id"],
        redirect_uri=case["redirect_uri"],
        scope=case["scopes"],
        code_challenge_method="S256",
    )
    extra = {}
    if "resource" in case:
        extra["resource"] = case["resource"]
    if case.get("prompt"):
        extra["prompt"] = " ".join(case["prompt"])
    url, _ = client.create_authorization_url(
        case["authorization_endpoint"],
        state=case["state"],
        code_verifier=case["code_verifier"],
        **extra,
    )
    return {"url": url}


def callback(case: dict[str, Any]) -> dict[str, Any]:
    try:
        params = parse_authorization_code_response(case["url"], state=case["state"])
    except MissingCodeException as e:
        raise ContractError("missing_code", repr(e)) from None
    except MismatchingStateException as e:
        raise ContractError("state_mismatch", repr(e)) from None
    return {"code": params["code"]}


class _Clock:
    """``time`` for ``authlib.oauth2.rfc6749.wrappers``: ``time()`` is the case's now."""

    def __init__(self, now: int) -> None:
        self.now = now

    def time(self) -> float:
        return float(self.now)


def token_response(case: dict[str, Any]) -> dict[str, Any]:
    body = case["body"].encode("utf-8")

    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=body, headers={"Content-Type": "application/json"})

    client = HttpxOAuth2Client(client_id="hanzo-cli", transport=httpx.MockTransport(answer))
    token_wrappers.time = _Clock(case["now"])  # type: ignore[assignment]
    previous = case.get("previous_refresh_token")
    try:
        if previous is None:
            token = client.fetch_token(
                TOKEN_URL, grant_type="authorization_code", code="abc", redirect_uri=REDIRECT
            )
        else:
            client.token = {"access_token": "old", "token_type": "Bearer"}
            token = client.refresh_token(TOKEN_URL, refresh_token=previous)
    except OAuthError as e:
        return {"error": e.error, "error_description": e.description or None, "error_uri": e.uri}
    except ValueError as e:
        raise ContractError("invalid_token_response", repr(e)) from None
    finally:
        client.close()
    names = ("access_token", "token_type", "expires_at", "refresh_token", "scope")
    return {name: token.get(name) for name in names}


REDIRECT = "http://127.0.0.1:8765/callback"
OPS = {"authorize-url": authorize_url, "callback": callback, "token-response": token_response}


def oauth_authorize(case_input: dict[str, Any]) -> dict[str, Any]:
    return OPS[case_input["op"]](case_input)


DOMAINS = {"oauth-pkce": oauth_pkce, "oauth-authorize": oauth_authorize}


def answer(request: dict[str, Any]) -> dict[str, Any]:
    if request.get("cmd") == "start":
        return {
            "ok": True,
            "implementation": {
                "name": "authlib",
                "version": metadata.version("authlib"),
                "language": f"python {sys.version.split()[0]}",
                "domains": sorted(DOMAINS),
            },
        }
    run = DOMAINS.get(request.get("domain", ""))
    if run is None:
        return {"id": request.get("id", ""), "crash": {"message": "unknown domain", "detail": ""}}
    if "generate" in request["input"]:
        return {"id": request["id"], "skip": {"reason": NO_GENERATE}}
    try:
        return {"id": request["id"], "output": run(request["input"])}
    except InvalidVerifier:
        error = {"code": "invalid_verifier", "message": "does not match CODE_VERIFIER_PATTERN"}
        return {"id": request["id"], "error": error}
    except ContractError as e:
        return {"id": request["id"], "error": {"code": e.code, "message": str(e)}}
    except Exception as e:  # a crash answers this case; the worker goes on
        return {
            "id": request["id"],
            "crash": {"message": repr(e), "detail": traceback.format_exc()},
        }


def main() -> None:
    for line in sys.stdin:
        request = json.loads(line)
        if request.get("cmd") == "stop":
            break
        sys.stdout.write(json.dumps(answer(request)) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
