"""A conformance worker for the official MCP Python SDK, `mcp` 2.3.0, on oauth-authorize.

    python -m venv .venv && .venv/bin/pip install -r requirements.txt
    hanzo-conformance run --worker mcp='examples/mcp-python-oauth/.venv/bin/python \\
        examples/mcp-python-oauth/worker.py' --platform mcp --domain oauth-authorize \\
        --expectations examples/mcp-python-oauth/expectations.json

It speaks docs/protocol.md on stdin/stdout (the protocol loop of examples/authlib/) and
drives `mcp.client.auth.OAuthClientProvider`, the client's OAuth flow, nothing
re-implemented:

- ``authorize-url``: ``_perform_authorization_code_grant()``, the step that builds the
  URL and hands it to the ``redirect_handler`` (captured here; the ``callback_handler``
  then stops the flow). Its inputs are set as discovery and registration would leave
  them: ``context.oauth_metadata`` an ``OAuthMetadata`` whose ``authorization_endpoint``
  is the case's endpoint, ``context.client_info`` the case's ``client_id``,
  ``client_metadata`` the case's redirect URI and scopes (joined with spaces, as the SDK
  holds them). The SDK sends ``resource`` only with protected-resource metadata or a
  protocol version from 2025-06-18 on; a case with a resource sets
  ``protocol_version = "2025-06-18"`` and the MCP server URL to that resource (the SDK
  derives ``resource`` from it), a case without one leaves both unset. The random parts
  are injected: ``secrets.token_urlsafe`` (the state) returns the case's state, and
  ``PKCEParameters.generate`` returns ``PKCEParameters(code_verifier=..., code_challenge=...)``
  for the case's verifier, its challenge derived as ``generate()`` derives it (PKCE-4 is
  the oauth-pkce domain's; the model's own length checks still run). The SDK has no
  ``prompt`` input (it adds ``prompt=consent`` for ``offline_access`` itself): a case
  with ``prompt`` values is answered ``skip``. Pydantic refusing the endpoint, the
  client ID, the redirect URI or the verifier is the matching contract error.
- ``callback``: ``skip``: the SDK does not parse the redirect URL; the application's
  ``callback_handler`` returns the code and state.
- ``token-response``: ``_handle_token_response`` (a first token) or, with a previous
  refresh token, ``_handle_refresh_response``, on an ``httpx2.Response`` (HTTP 200) with
  the case's body; the clock injected as ``time`` of ``mcp.shared.auth_utils`` (where
  ``calculate_token_expiry`` reads ``time.time()``). ``OAuthTokenError`` or a refused
  refresh (the method returns False) is ``invalid_token_response``. The credential is
  written from ``context.current_tokens`` and ``context.token_expiry_time``.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import json
import secrets
import sys
import traceback
from importlib import metadata
from types import SimpleNamespace
from typing import Any

try:
    import httpx2
    from mcp.client.auth import oauth2
    from mcp.client.auth.exceptions import OAuthTokenError
    from mcp.shared import auth_utils
    from mcp.shared.auth import (
        OAuthClientInformationFull,
        OAuthClientMetadata,
        OAuthMetadata,
        OAuthToken,
    )
    from pydantic import ValidationError
except ImportError:
    raise SystemExit("mcp is not installed: pip install -r requirements.txt") from None

NO_PROMPT = "mcp's OAuthClientProvider has no prompt input (it adds consent for offline_access)"
NO_CALLBACK = "mcp does not parse the redirect URL: the application's callback_handler does"
SERVER = "https://mcp.example/mcp"


class ContractError(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class Skip(Exception):
    pass


class _Stop(Exception):
    """Raised by the callback handler: the URL has been captured."""


class _Storage:
    async def get_tokens(self) -> OAuthToken | None:
        return None

    async def set_tokens(self, tokens: OAuthToken) -> None:
        pass

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return None

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        pass


def _validated(code: str, build: Any) -> Any:
    try:
        return build()
    except ValidationError as e:
        raise ContractError(code, str(e).splitlines()[0]) from None


def _provider(case: dict[str, Any], redirect: Any, server: str) -> oauth2.OAuthClientProvider:
    redirect_uri = case.get("redirect_uri", "http://127.0.0.1:8765/callback")
    scopes = case.get("scopes", [])
    client_metadata = _validated(
        "invalid_redirect_uri",
        lambda: OAuthClientMetadata(redirect_uris=[redirect_uri], scope=" ".join(scopes) or None),
    )

    async def stop() -> Any:
        raise _Stop

    return oauth2.OAuthClientProvider(
        server_url=server,
        client_metadata=client_metadata,
        storage=_Storage(),
        redirect_handler=redirect,
        callback_handler=stop,
    )


def authorize_url(case: dict[str, Any]) -> dict[str, Any]:
    if case.get("prompt"):
        raise Skip(NO_PROMPT)
    captured: list[str] = []

    async def redirect(url: str) -> None:
        captured.append(url)

    provider = _provider(case, redirect, case.get("resource", SERVER))
    context = provider.context
    context.oauth_metadata = _validated(
        "invalid_endpoint",
        lambda: OAuthMetadata(
            issuer="https://as.example",
            authorization_endpoint=case["authorization_endpoint"],
            token_endpoint="https://as.example/token",
        ),
    )
    context.client_info = _validated(
        "invalid_client_id",
        lambda: OAuthClientInformationFull(
            client_id=case["client_id"], redirect_uris=context.client_metadata.redirect_uris
        ),
    )
    if "resource" in case:
        context.protocol_version = "2025-06-18"
    verifier = case["code_verifier"]
    # As PKCEParameters.generate derives the challenge from its verifier.
    digest = hashlib.sha256(verifier.encode()).digest()
    pair = _validated(
        "invalid_verifier",
        lambda: oauth2.PKCEParameters(
            code_verifier=verifier,
            code_challenge=base64.urlsafe_b64encode(digest).decode().rstrip("="),
        ),
    )
    state = case["state"]
    oauth2.secrets = SimpleNamespace(  # type: ignore[assignment]
        token_urlsafe=lambda _n: state, compare_digest=secrets.compare_digest
    )
    oauth2.PKCEParameters.generate = classmethod(lambda cls: pair)  # type: ignore[method-assign]
    with contextlib.suppress(_Stop):
        asyncio.run(provider._perform_authorization_code_grant())
    return {"url": captured[0]}


def token_response(case: dict[str, Any]) -> dict[str, Any]:
    auth_utils.time = SimpleNamespace(time=lambda: float(case["now"]))  # type: ignore[assignment]
    provider = _provider({}, None, SERVER)
    context = provider.context
    context.client_info = OAuthClientInformationFull(
        client_id="hanzo-cli", redirect_uris=context.client_metadata.redirect_uris
    )
    request = httpx2.Request("POST", "https://as.example/token")
    response = httpx2.Response(200, content=case["body"].encode("utf-8"), request=request)
    previous = case.get("previous_refresh_token")
    if previous is None:
        try:
            asyncio.run(provider._handle_token_response(response))
        except OAuthTokenError as e:
            raise ContractError("invalid_token_response", str(e)[:200]) from None
    else:
        context.current_tokens = OAuthToken(access_token="old", refresh_token=previous)
        if not asyncio.run(provider._handle_refresh_response(response)):
            raise ContractError("invalid_token_response", "the refresh response was refused")
    token = context.current_tokens
    assert token is not None
    return {
        "access_token": token.access_token,
        "token_type": token.token_type,
        "expires_at": context.token_expiry_time,
        "refresh_token": token.refresh_token,
        "scope": token.scope,
    }


def oauth_authorize(case: dict[str, Any]) -> dict[str, Any]:
    if case["op"] == "authorize-url":
        return authorize_url(case)
    if case["op"] == "token-response":
        return token_response(case)
    raise Skip(NO_CALLBACK)


DOMAINS = {"oauth-authorize": oauth_authorize}


def answer(request: dict[str, Any]) -> dict[str, Any]:
    if request.get("cmd") == "start":
        return {
            "ok": True,
            "implementation": {
                "name": "mcp",
                "version": metadata.version("mcp"),
                "language": f"python {sys.version.split()[0]}",
                "domains": sorted(DOMAINS),
            },
        }
    run = DOMAINS.get(request.get("domain", ""))
    if run is None:
        return {"id": request.get("id", ""), "crash": {"message": "unknown domain", "detail": ""}}
    try:
        return {"id": request["id"], "output": run(request["input"])}
    except Skip as e:
        return {"id": request["id"], "skip": {"reason": str(e)}}
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
