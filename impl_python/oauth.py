"""OAuth 2.1 authorization-code flow with PKCE: the authorize URL, the callback and the
token response (HIP-301 §6; contract: docs/domains/oauth-authorize.md).

>>> authorization_url("https://as.example/authorize?tenant=a%20b", client_id="c",
...     redirect_uri="http://127.0.0.1:8765/cb", scopes=["read", "write"], state="s",
...     code_verifier="dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
'https://as.example/authorize?tenant=a%20b&response_type=code&client_id=c&redirect_uri=http%3A%2F%2F127.0.0.1%3A8765%2Fcb&scope=read%20write&state=s&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM&code_challenge_method=S256'
"""

from __future__ import annotations

import json
import re
import string
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from impl_python.errors import HanzoError
from impl_python.pkce import PkceChallenge

__all__ = [
    "MAX_EXPIRES_IN",
    "PROMPT_VALUES",
    "AuthorizationDenied",
    "OAuthError",
    "TokenRequestFailed",
    "TokenResponse",
    "authorization_url",
    "parse_callback",
    "parse_token_response",
]

MAX_EXPIRES_IN = 2**31 - 1
"""TOK-4: the largest lifetime in seconds."""
PROMPT_VALUES = ("none", "login", "consent", "select_account")
"""AUTH-8: OpenID Connect Core §3.1.2.1."""

_UNRESERVED = frozenset((string.ascii_letters + string.digits + "-._~").encode("ascii"))
_URI_CHARS = frozenset(string.ascii_letters + string.digits + "-._~:/?#[]@!$&'()*+,;=%")
_HEX = frozenset(string.hexdigits)
_LOOPBACK = frozenset({"localhost", "127.0.0.1", "[::1]"})
_ADDED = ("response_type", "client_id", "redirect_uri", "scope", "state")
_ADDED_NAMES = frozenset((*_ADDED, "code_challenge", "code_challenge_method", "resource", "prompt"))


class OAuthError(HanzoError):
    """A refusal of this client; ``code`` is one of the contract's error codes."""


class _ServerError(Exception):
    """The server answered with an error response; its three parameters, as sent."""

    def __init__(self, error: str, error_description: str | None, error_uri: str | None) -> None:
        super().__init__(error)
        self.error = error
        self.error_description = error_description
        self.error_uri = error_uri


class AuthorizationDenied(_ServerError):
    """CB-4: the authorization server redirected back with an error response."""


class TokenRequestFailed(_ServerError):
    """TOK-2: the token endpoint answered with an error body."""


@dataclass(frozen=True)
class TokenResponse:
    """TOK-3..6: a credential; ``expires_at`` in whole seconds since the epoch, or None."""

    access_token: str
    token_type: str
    expires_at: int | None
    refresh_token: str | None
    scope: str | None


# --- authorize URL -------------------------------------------------------------------


def _is_vschar_text(value: object) -> bool:
    return isinstance(value, str) and value != "" and all(" " <= c <= "~" for c in value)


def _percent_ok(text: str) -> bool:
    at = text.find("%")
    while at != -1:
        if len(text) < at + 3 or text[at + 1] not in _HEX or text[at + 2] not in _HEX:
            return False
        at = text.find("%", at + 1)
    return True


def _valid_url(url: object) -> bool:
    """AUTH-1/AUTH-2: URI characters, good `%`, no fragment, https or loopback http."""
    if not isinstance(url, str) or not all(c in _URI_CHARS for c in url):
        return False
    if "#" in url or not _percent_ok(url):
        return False
    scheme, sep, after = url.partition("://")
    if not sep:
        return False
    end = len(after)
    for stop in "/?":
        at = after.find(stop)
        if at != -1:
            end = min(end, at)
    authority = after[:end]
    if "@" in authority:
        return False
    if authority.startswith("["):
        close = authority.find("]")
        if close == -1 or not _ipv6_address(authority[1:close]):
            return False
        host, port_part = authority[: close + 1], authority[close + 1 :]
    else:
        host = authority.partition(":")[0]
        port_part = authority[len(host) :]
        if host == "" or "[" in host or "]" in host:
            return False
    if port_part and not (
        port_part[0] == ":" and port_part[1:].isascii() and port_part[1:].isdigit()
    ):
        return False
    scheme = scheme.lower()
    if scheme == "https":
        return True
    return scheme == "http" and host.lower() in _LOOPBACK


def _encode(value: str) -> str:
    """AUTH-4: UTF-8, unreserved octets kept, everything else `%HH` uppercase."""
    return "".join(
        chr(octet) if octet in _UNRESERVED else f"%{octet:02X}" for octet in value.encode("utf-8")
    )


def _form_decode(text: str) -> str | None:
    """`+` is a space, `%HH` an octet; None for a bad `%` or octets that are not UTF-8."""
    if not _percent_ok(text):
        return None
    raw = bytearray()
    i = 0
    while i < len(text):
        char = text[i]
        if char == "%":
            raw.append(int(text[i + 1 : i + 3], 16))
            i += 3
            continue
        raw += b" " if char == "+" else char.encode("utf-8")
        i += 1
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _form_pairs(query: str) -> list[tuple[str, str]] | None:
    """Terms: form-decoding; None if any piece cannot be decoded."""
    pairs = []
    for piece in query.split("&"):
        if piece == "":
            continue
        raw_name, _, raw_value = piece.partition("=")
        name, value = _form_decode(raw_name), _form_decode(raw_value)
        if name is None or value is None:
            return None
        pairs.append((name, value))
    return pairs


def _unique(values: Iterable[str]) -> list[str]:
    seen: list[str] = []
    for value in values:
        if value not in seen:
            seen.append(value)
    return seen


_SCOPE_TOKEN = re.compile(r"[\x21\x23-\x5b\x5d-\x7e]+")


def authorization_url(
    endpoint: str,
    *,
    client_id: str,
    redirect_uri: str,
    scopes: Iterable[str],
    state: str,
    code_verifier: str,
    resource: str | None = None,
    prompt: Iterable[str] = (),
) -> str:
    """AUTH-1..9: the authorization request URL for the code flow with S256 PKCE."""
    if not _valid_url(endpoint):
        raise OAuthError("authorization endpoint is not a valid https URL", code="invalid_endpoint")
    base, question, query = endpoint.partition("?")
    existing = _form_pairs(query) if question else []
    if existing is None or any(name in _ADDED_NAMES for name, _ in existing):
        raise OAuthError(
            "the endpoint's query repeats a parameter the client adds", code="invalid_endpoint"
        )
    if not _is_vschar_text(client_id):
        raise OAuthError("client_id must be non-empty VSCHAR text", code="invalid_client_id")
    if not _valid_url(redirect_uri):
        raise OAuthError("redirect_uri must be https or loopback http", code="invalid_redirect_uri")
    scope_list = list(scopes)
    if not all(isinstance(s, str) and _SCOPE_TOKEN.fullmatch(s) for s in scope_list):
        raise OAuthError("a scope is not an RFC 6749 scope-token", code="invalid_scope")
    scope_list = _unique(scope_list)
    if not _is_vschar_text(state):
        raise OAuthError("state must be non-empty VSCHAR text", code="invalid_state")
    pkce = PkceChallenge.from_verifier(code_verifier)  # InvalidVerifier: PKCE-1/2
    if resource is not None and not _valid_url(resource):
        raise OAuthError("resource must be an absolute https URL", code="invalid_resource")
    prompts = _unique(prompt)
    if any(value not in PROMPT_VALUES for value in prompts):
        raise OAuthError("unknown prompt value", code="invalid_prompt")
    if "offline_access" in scope_list and "consent" not in prompts:
        prompts.append("consent")
    if "none" in prompts and len(prompts) > 1:
        raise OAuthError("prompt none cannot be combined", code="invalid_prompt")

    params = [("response_type", "code"), ("client_id", client_id), ("redirect_uri", redirect_uri)]
    if scope_list:
        params.append(("scope", " ".join(scope_list)))
    params += [
        ("state", state),
        ("code_challenge", pkce.challenge),
        ("code_challenge_method", PkceChallenge.method),
    ]
    if resource is not None:
        params.append(("resource", resource))
    if prompts:
        params.append(("prompt", " ".join(prompts)))
    added = "&".join(f"{name}={_encode(value)}" for name, value in params)
    if not question:
        return f"{base}?{added}"
    joiner = "" if query == "" or query.endswith("&") else "&"
    return f"{endpoint}{joiner}{added}"


# --- callback ------------------------------------------------------------------------


def parse_callback(url: str, *, expected_state: str) -> str:
    """CB-1..5: the authorization code from the redirect URL.

    Raises OAuthError (invalid_callback, state_mismatch, missing_code) or
    AuthorizationDenied (the server's error response).
    """
    # The fragment starts at the first `#`, even before a `?` (RFC 3986 §3.5)
    _, _, query = url.partition("#")[0].partition("?")
    pairs = _form_pairs(query)
    if pairs is None:
        raise OAuthError("the callback query is not form-encoded UTF-8", code="invalid_callback")
    params: dict[str, str] = {}
    for name, value in pairs:
        if name in params:
            raise OAuthError(f"parameter {name!r} appears twice", code="invalid_callback")
        params[name] = value
    if params.get("state") != expected_state:
        raise OAuthError("state does not match the request's", code="state_mismatch")
    if "error" in params:
        if params["error"] == "" or "code" in params:
            raise OAuthError("malformed error response", code="invalid_callback")
        raise AuthorizationDenied(
            params["error"], params.get("error_description"), params.get("error_uri")
        )
    code = params.get("code", "")
    if code == "":
        raise OAuthError("the callback has no code", code="missing_code")
    return code


# --- token response ------------------------------------------------------------------


class _BadJson(Exception):
    pass


def _no_constant(name: str) -> Any:
    raise _BadJson(name)


def _finite_float(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise _BadJson(text)
    return value


def _finite_int(text: str) -> int:
    value = int(text)
    try:
        float(value)
    except OverflowError:
        raise _BadJson(text) from None
    return value


def _has_lone_surrogate(value: Any) -> bool:
    """TOK-1: a `\\u` escape may leave a lone surrogate, which is not Unicode text."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if any("\ud800" <= c <= "\udfff" for c in item):
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def _invalid(message: str) -> OAuthError:
    return OAuthError(message, code="invalid_token_response")


def _optional_text(body: dict[str, Any], name: str) -> str | None:
    value = body.get(name)
    if value is None or isinstance(value, str):
        return value
    raise _invalid(f"{name} must be a string")


def parse_token_response(
    body: str, *, now: int, previous_refresh_token: str | None = None
) -> TokenResponse:
    """TOK-1..6: the credential in a token endpoint's JSON body, expiring at whole seconds.

    Raises OAuthError (invalid_token_response, unsupported_token_type) or
    TokenRequestFailed (the server's error body).
    """
    try:
        parsed = json.loads(
            body, parse_constant=_no_constant, parse_float=_finite_float, parse_int=_finite_int
        )
    except (_BadJson, ValueError) as e:
        raise _invalid(f"the body is not JSON: {e}") from None
    if not isinstance(parsed, dict) or _has_lone_surrogate(parsed):
        raise _invalid("the body is not a JSON object of Unicode text")
    if "error" in parsed:
        error = parsed["error"]
        if not isinstance(error, str) or error == "":
            raise _invalid("error must be a non-empty string")
        description = _optional_text(parsed, "error_description")
        raise TokenRequestFailed(error, description, _optional_text(parsed, "error_uri"))
    access_token = parsed.get("access_token")
    if not isinstance(access_token, str) or access_token == "":
        raise _invalid("access_token must be a non-empty string")
    token_type = parsed.get("token_type")
    if not isinstance(token_type, str):
        raise _invalid("token_type must be a string")
    # ASCII case folding only (str.lower would fold non-ASCII letters too)
    if token_type.translate(_ASCII_LOWER) != "bearer":
        raise OAuthError(f"token type {token_type!r} is not Bearer", code="unsupported_token_type")
    expires_at = None
    expires_in = parsed.get("expires_in")
    if expires_in is not None:
        if isinstance(expires_in, bool) or not isinstance(expires_in, int | float):
            raise _invalid("expires_in must be a number")
        if expires_in != int(expires_in) or not 0 <= expires_in <= MAX_EXPIRES_IN:
            raise _invalid("expires_in must be whole seconds from 0 to 2^31-1")
        expires_at = now + int(expires_in)
    refresh_token = parsed.get("refresh_token")
    if refresh_token is None:
        refresh_token = previous_refresh_token
    elif not isinstance(refresh_token, str) or refresh_token == "":
        raise _invalid("refresh_token must be a non-empty string")
    scope = _optional_text(parsed, "scope")
    return TokenResponse(access_token, "Bearer", expires_at, refresh_token, scope)


_ASCII_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)


def _ipv6_address(text: str) -> bool:
    """AUTH-2: RFC 3986 §3.2.2's `IPv6address`: eight groups of 1-4 hex digits, or fewer
    with one `::` standing for at least one, the last two optionally a dotted IPv4."""
    # A second `::` needs no test of its own: it leaves an empty group in the tail.
    head, compressed, tail = text.partition("::")
    if not compressed:
        groups = text.split(":")
    else:
        groups = (head.split(":") if head else []) + (tail.split(":") if tail else [])
    width = len(groups)
    if groups and "." in groups[-1]:
        if not _ipv4_address(groups.pop()):
            return False
        width += 1
    if not all(0 < len(g) <= 4 and all(c in string.hexdigits for c in g) for g in groups):
        return False
    return width < 8 if compressed else width == 8


def _ipv4_address(text: str) -> bool:
    """RFC 3986 §3.2.2's `IPv4address`: four decimal octets 0-255, no leading zeros."""
    octets = text.split(".")
    return len(octets) == 4 and all(
        o.isascii() and o.isdigit() and (o == "0" or o[0] != "0") and int(o) <= 255 for o in octets
    )
