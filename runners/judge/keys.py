"""How reports, ledgers and clusters name a case and a schema violation."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def case_key(domain: str, case: str) -> str:
    """A case's key in results documents and ledgers: ``<domain>::<case id>``."""
    return f"{domain}::{case}"


def violation_kind(violation: Mapping[str, Any]) -> str:
    """A ``schema_errors`` entry's kind: the output schema's, or I-JSON's (a lone surrogate)."""
    return "not I-JSON" if violation.get("rule") == "i-json" else "output schema"
