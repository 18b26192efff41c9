"""oauth-pkce: verifier lengths at 42/43/128/129, every unreserved character and
near-misses (+, /, =, space, LF, CR, non-ASCII, NUL), the last character most of all;
and generate() yielding valid pairs."""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Sequence
from typing import Any

from hypothesis import strategies as st

from . import Property, Response, described, records

UNRESERVED = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"
# LF and CR last: a final LF is what a regex check with `$` lets through (Python's `$`
# also matches before a final newline), as Authlib 1.9.6's CODE_VERIFIER_PATTERN does.
NEAR_MISSES = "+/= %\x00\t\u00e9\U0001f600\u0661\n\r"


# The length, a near miss (which and where), then one byte per character; longer
# verifiers repeat those bytes. The length and the near miss are what the contract
# turns on, and Hypothesis costs per byte drawn.
VERIFIER_BYTES = 13
RECORD = 3 + VERIFIER_BYTES
_LENGTHS = (0, 1, 42, 43, 44, 127, 128, 129)
# byte -> the unreserved character it picks (byte mod 66), for bytes.translate
_AS_UNRESERVED = bytes(ord(UNRESERVED[b % len(UNRESERVED)]) for b in range(256))


def decode(record: bytes) -> dict[str, Any]:
    size = record[0] % 141 if record[0] & 0x80 else _LENGTHS[record[0] % len(_LENGTHS)]
    text = record[3 : 3 + VERIFIER_BYTES].translate(_AS_UNRESERVED).decode("ascii")
    chars = list((text * (size // VERIFIER_BYTES + 1))[:size])
    if chars and record[1] % 4 == 3:
        at = len(chars) - 1 if record[2] == 255 else record[2] % len(chars)
        chars[at] = NEAR_MISSES[record[1] // 4 % len(NEAR_MISSES)]
    return {"verifier": "".join(chars)}


def inputs() -> st.SearchStrategy[dict[str, Any]]:
    return records(RECORD, decode)


def clauses(case_input: Any, response: Response) -> set[str]:
    verifier = case_input["verifier"]
    found = {"PKCE-1", "PKCE-2"}
    found.add("PKCE-3" if "error" in response else "PKCE-4")
    del verifier
    return found


def s256(verifier: str) -> str:
    digest = hashlib.sha256(verifier.encode("ascii")).digest()
    return base64.urlsafe_b64encode(digest).decode("ascii").rstrip("=")


_VERIFIER = re.compile(r"[A-Za-z0-9_-]{43}")


def _valid_pairs(probe: int, responses: Sequence[Response]) -> str | None:
    seen: set[str] = set()
    for response in responses:
        pair = response.get("output")
        if not isinstance(pair, dict) or not isinstance(pair.get("verifier"), str):
            return f"generate gave {described(response)}"
        verifier = pair["verifier"]
        if not _VERIFIER.fullmatch(verifier):
            return f"verifier {verifier!r} is not 43 base64url characters (PKCE-5)"
        if pair.get("challenge") != s256(verifier):
            return f"challenge {pair.get('challenge')!r} is not S256 of {verifier!r} (PKCE-4)"
        if verifier in seen:
            return f"verifier {verifier!r} generated twice in {len(responses)} calls"
        seen.add(verifier)
    return None


PROPERTIES = (
    Property(
        name="generate-yields-valid-fresh-pairs",
        clauses=("PKCE-5",),
        probes=st.integers(1, 8),
        requests=lambda count: [{"generate": True}] * count,
        check=_valid_pairs,
    ),
)
