"""oauth-pkce JSON layer: ``{"verifier": v}`` -> ``{"challenge": S256(v)}``."""

from __future__ import annotations

from typing import Any

from impl_python.pkce import s256_challenge


def run(case_input: dict[str, Any]) -> dict[str, Any]:
    """Return ``{"challenge": ...}``; InvalidVerifier propagates as ``invalid_verifier``."""
    return {"challenge": s256_challenge(case_input["verifier"])}
