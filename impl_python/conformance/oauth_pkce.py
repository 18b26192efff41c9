"""oauth-pkce JSON layer: ``{"verifier": v}`` -> ``{"challenge": S256(v)}``."""

from __future__ import annotations

from typing import Any

from impl_python.errors import HanzoError
from impl_python.pkce import s256_challenge


def run(case_input: dict[str, Any]) -> dict[str, Any]:
    """Return ``{"challenge": ...}``; InvalidVerifier propagates as ``invalid_verifier``."""
    if "verifier" not in case_input:
        raise HanzoError("input.verifier is required", code="bad_input")
    return {"challenge": s256_challenge(case_input["verifier"])}
