"""oauth-authorize: endpoints with and without a query (empty, `&`-ended, `+`, `%20`,
a repeated client parameter, bad `%`), near-miss schemes and hosts, scopes around
`offline_access`, prompt combinations; callbacks with duplicates, bad `%`, fragments and
error responses; token bodies with every JSON type in every member and the number forms
of expires_in."""

from __future__ import annotations

import string
from collections.abc import Sequence
from typing import Any
from urllib.parse import parse_qsl

from hypothesis import strategies as st

from . import Property, Reader, Response, described, records

VERIFIER = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
REDIRECT = "http://127.0.0.1:8765/callback"


# Each field is drawn from its valid choices seven times in eight, else from its near
# misses; index 0 is the simplest valid choice, so a record shrunk to zero bytes
# decodes to the plainest request, and most inputs get past the first checks.
def _field(r: Reader, valid: Sequence[str], invalid: Sequence[str]) -> str:
    b = r.byte()
    if b % 8 == 7:
        return invalid[b // 8 % len(invalid)]
    return valid[b // 8 % len(valid)]


_SCHEMES = (("https://", "http://", "HTTPS://"), ("ftp://", "", "http://"))
_HOSTS = (
    ("as.example", "localhost", "127.0.0.1", "[::1]:9000", "as.example:8443"),
    ("a@evil.example", "", "as.example:", "localhost.evil.example", "[::1", "as.example:x"),
)
_PATHS = (("/authorize", "", "/o/oauth2/v2/auth"), ("/a b", "/autorizaci\u00f3n", "/%zz"))
# Queries are most of the valid choices: an endpoint with a query is what AUTH-3 is about.
_QUERIES = (
    (
        "",
        "?tenant=a%20b",
        "?tenant=a+b",
        "?",
        "?a=1&",
        "?b=2&a=1",
        "?next=/x:y?z",
        "?client_id_hint=x",
    ),
    ("?client_id=x", "?response%5Ftype=t", "?x=%zz", "?%FF=1", "?prompt=login", "#x", "?a#"),
)
_CLIENT_IDS = (
    ("hanzo-cli", "my app", "a+b", "https://app.example/c.json", "~._-"),
    ("", "cl\u00efent", "a\nb"),
)
_REDIRECTS = (
    (REDIRECT, "https://app.example/cb?x=1", "http://[::1]:8765/cb", "http://localhost/cb"),
    ("http://app.example/cb", REDIRECT + "#x", "com.example.app:/cb", REDIRECT + " x"),
)
_SCOPES = (
    (
        "read",
        "write",
        "offline_access",
        "no_offline_access_here",
        "OFFLINE_ACCESS",
        "offline_access_x",
        "mcp:tools/read",
        "a+b",
        "50%",
        "x~y",
        "read",
    ),
    ("", "read write", 'a"b', "a\\b", "l\u00e9sen"),
)
_STATES = (("xyz", "a b&c=d", "a~b.c_d-e", "+%", "="), ("", "\u00e9t\u00e9", "a\tb"))
_VERIFIERS = ((VERIFIER, "0123456789abcdefghijklmnopqrstuvwxyzABCDEFG"), ("short", ""))
_RESOURCES = (
    (
        "https://mcp.example/mcp",
        "http://localhost:3000/mcp",
        "https://mcp.example/mcp?t=1",
        "https://mcp.example/",
    ),
    ("mcp", "https://mcp.example/mcp#x", "http://mcp.example/mcp"),
)
_PROMPTS = (("login", "consent", "none", "select_account"), ("bogus", "Login"))


def _authorize(r: Reader) -> dict[str, Any]:
    endpoint = "".join(_field(r, *table) for table in (_SCHEMES, _HOSTS, _PATHS, _QUERIES))
    case = {
        "op": "authorize-url",
        "authorization_endpoint": endpoint,
        "client_id": _field(r, *_CLIENT_IDS),
        "redirect_uri": _field(r, *_REDIRECTS),
        "scopes": [_field(r, *_SCOPES) for _ in range(r.byte() % 4)],
        "state": _field(r, *_STATES),
        "code_verifier": _field(r, *_VERIFIERS),
    }
    if r.chance(3):
        case["resource"] = _field(r, *_RESOURCES)
    prompts = [_field(r, *_PROMPTS) for _ in range(r.byte() % 3)]
    if prompts or r.chance(4):
        case["prompt"] = prompts
    return case


# The state piece comes first unless dropped or replaced; then 0..3 other pieces.
_STATE_PIECES = (("state=xyz",), ("", "state=other", "state=", "state=xyz&state=xyz"))
_CALLBACK_PIECES = (
    (
        "code=abc",
        "code=abc",
        "error=access_denied",
        "x=1",
        "code=a+b%2Bc",
        "code=%C3%A9",
        "code=abc?x",
        "flag",
        "",
        "error_description=The+user+denied",
        "error_uri=https%3A%2F%2Fe",
        "iss=https%3A%2F%2Fas.example",
    ),
    ("code=", "error=", "code=%zz", "code=%FF", "code=abc%2", "c%6Fde=b", "code=b"),
)
_CALLBACK_TAILS = (("", "#code=evil", "#"), ("#frag?code=abc&state=xyz", "#state=xyz"))


def _callback(r: Reader) -> dict[str, Any]:
    pieces = [_field(r, *_STATE_PIECES)]
    pieces += [_field(r, *_CALLBACK_PIECES) for _ in range(r.byte() % 4)]
    if r.chance(2):
        pieces.reverse()
    question = "" if r.chance(8) else "?"
    url = REDIRECT + question + "&".join(pieces) + _field(r, *_CALLBACK_TAILS)
    return {"op": "callback", "url": url, "state": _field(r, ("xyz",), ("a b", "a=b", "XYZ"))}


# Each member: its valid JSON texts ("" is absent) and its near misses.
_MEMBERS: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = (
    ("access_token", ('"a"', '"a\\ud83d\\ude00"', '"tok en"'), ('""', "1", "null", "")),
    (
        "token_type",
        ('"Bearer"', '"bearer"', '"BEARER"'),
        ('"mac"', '"Bearer "', '"\uff22earer"', "1", "", '"DPoP"'),
    ),
    (
        "expires_in",
        ("", "3600", "0", "-0", "3600.0", "3.6e3", "2147483647", "null", "1E2"),
        ("3600.5", "-1", '"3600"', "true", "2147483648", "1e400", "[]"),
    ),
    ("refresh_token", ("", '"r1"', "null"), ('""', "5", "{}")),
    ("scope", ("", '"read write"', "null", '""'), ('["read"]', "1")),
    ("error", ("", "", "", '"invalid_grant"'), ('""', "400")),
    ("error_description", ("", '"expired"'), ("1",)),
    (
        "x",
        ("", '[1,{"a":null},2.5]', '"\\ud83d\\ude00"'),
        ("NaN", '"\\ud800"', "Infinity", "9" * 400, "-Infinity"),
    ),
    ("access_token", ("", "", '"second"'), ("1",)),  # a repeated member: the last counts
)
_WRAPPERS = (
    ("{%s}", " \n{%s}\t"),
    ("[{%s}]", "\ufeff{%s}", "{%s} x", "", "null", "access_token=a&token_type=bearer", "{%s"),
)
_NOWS = (1700000000, 0, 2**52)


def _token(r: Reader) -> dict[str, Any]:
    members = []
    for name, valid, invalid in _MEMBERS:
        text = _field(r, valid, invalid)
        if text:
            members.append(f'"{name}":{text}')
    wrapper = _field(r, *_WRAPPERS)
    body = wrapper % ",".join(members) if "%s" in wrapper else wrapper
    case: dict[str, Any] = {"op": "token-response", "body": body, "now": r.pick(_NOWS)}
    if r.chance(2):
        case["previous_refresh_token"] = "r0"
    return case


RECORD = 1 + 28


def decode(record: bytes) -> dict[str, Any]:
    r = Reader(record)
    op = r.byte() % 3
    if op == 0:
        return _authorize(r)
    return _callback(r) if op == 1 else _token(r)


def inputs() -> st.SearchStrategy[dict[str, Any]]:
    return records(RECORD, decode)


def clauses(case_input: Any, response: Response) -> set[str]:
    code = response.get("error", {}).get("code") if "error" in response else None
    output = response.get("output") or {}
    if case_input["op"] == "authorize-url":
        found = {"AUTH-1", "AUTH-2", "AUTH-3", "AUTH-4", "AUTH-5", "AUTH-6"}
        if "resource" in case_input:
            found.add("AUTH-7")
        if "prompt" in case_input or "offline_access" in case_input["scopes"]:
            found.add("AUTH-8")
        if code is not None:
            found.add("AUTH-9")
        return found
    if case_input["op"] == "callback":
        found = {"CB-1", "CB-2", "CB-3"}
        if "error" in output:
            found.add("CB-4")
        if "code" in output or code == "missing_code":
            found.add("CB-5")
        return found
    found = {"TOK-1"}
    if "error" in output:
        found.add("TOK-2")
    elif "access_token" in output:
        found |= {"TOK-3", "TOK-4", "TOK-5", "TOK-6"}
    return found


# --- property: the added parameters read back as the request's values ---------------

_VALID_ENDPOINTS = (
    "https://as.example/authorize",
    "https://as.example/authorize?tenant=a%20b",
    "https://as.example/authorize?",
    "https://as.example/authorize?a=1&",
    "http://localhost:9000/authorize?next=/x?y",
)
# VSCHAR, letters first so that a shrunk value reads plainly
_VSCHAR = string.ascii_letters + string.digits + string.punctuation + " "


def _decode_probe(record: bytes) -> dict[str, Any]:
    r = Reader(record)
    state = "".join(_VSCHAR[b % len(_VSCHAR)] for b in r.take(1 + r.byte() % 12))
    client_id = "".join(_VSCHAR[b % len(_VSCHAR)] for b in r.take(1 + r.byte() % 8))
    return {
        "op": "authorize-url",
        "authorization_endpoint": r.pick(_VALID_ENDPOINTS),
        "client_id": client_id,
        "redirect_uri": REDIRECT,
        "scopes": [r.pick(_SCOPES[0]) for _ in range(r.byte() % 4)],
        "state": state,
        "code_verifier": VERIFIER,
    }


PROBE_RECORD = 4 + 12 + 8


def _reads_back(probe: dict[str, Any], responses: Sequence[Response]) -> str | None:
    """The URL is the endpoint verbatim, then (by an independent decoder, urllib's) the
    request's client_id, redirect_uri, scope and state; a raw `+` would read as a space."""
    (response,) = responses
    url = response.get("output", {}).get("url")
    if not isinstance(url, str):
        return f"authorize-url gave {described(response)}"
    endpoint = probe["authorization_endpoint"]
    if not url.startswith(endpoint):
        return f"{url!r} does not start with the endpoint {endpoint!r} (AUTH-3)"
    added = url[len(endpoint) :].lstrip("?&")
    if url.count("?") != endpoint.count("?") + (0 if "?" in endpoint else 1):
        return f"{url!r} has another `?` than the endpoint's (AUTH-3)"
    params = dict(parse_qsl(added, keep_blank_values=True, strict_parsing=True))
    scopes = list(dict.fromkeys(probe["scopes"]))
    want = {"client_id": probe["client_id"], "redirect_uri": REDIRECT, "state": probe["state"]}
    if scopes:
        want["scope"] = " ".join(scopes)
    for name, value in want.items():
        if params.get(name) != value:
            return f"{name} reads back as {params.get(name)!r}, not {value!r} (AUTH-4)"
    return None


PROPERTIES = (
    Property(
        name="authorize-url-reads-back-the-request",
        clauses=("AUTH-3", "AUTH-4"),
        probes=records(PROBE_RECORD, _decode_probe),
        requests=lambda probe: [probe],
        check=_reads_back,
        candidate=lambda probe: probe,
        record=PROBE_RECORD,
        decode=_decode_probe,
    ),
)
