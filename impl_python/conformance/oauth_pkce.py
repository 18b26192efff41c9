"""oauth-pkce JSON layer: ``{"verifier": v}`` -> ``{"challenge": S256(v)}``.

``{"generate": true}`` -> a fresh ``{"verifier", "challenge"}`` pair (PKCE-5): random,
so no vector can expect it; ``hanzo-conformance generate`` checks its properties on
every platform through this operation.
"""

from __future__ import annotations

from typing import Any

from impl_python.pkce import PkceChallenge, s256_challenge


def run(case_input: dict[str, Any]) -> dict[str, Any]:
    """Return ``{"challenge": ...}``; InvalidVerifier propagates as ``invalid_verifier``."""
    if "generate" in case_input:
        pair = PkceChallenge.generate()
        return {"verifier": pair.verifier, "challenge": pair.challenge}
    return {"challenge": s256_challenge(case_input["verifier"])}
