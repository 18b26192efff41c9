"""Each domain's clause ids, read from its contract: docs/domains/<domain>.md is the single source.

A clause is defined where its id opens a Markdown heading (``### SSE-3: line
endings``) or the bold lead of a list item (``- **SSE-3a.** ...``, ``- **CFG-1
(user file).**``). An id merely mentioned in running text defines nothing.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

DOCS_DIR = Path(__file__).resolve().parent.parent / "docs" / "domains"

CLAUSE_ID = r"[A-Z]+-[0-9]+[a-z]?"
_DEFINITION = re.compile(
    rf"^(?:#{{1,6}}[ \t]+|[ \t]*[-*][ \t]+\*\*)(?P<id>{CLAUSE_ID})(?![A-Za-z0-9-])", re.MULTILINE
)


def clause_ids_in(markdown: str) -> frozenset[str]:
    """The clause ids a contract defines (headings and bold list-item leads)."""
    return frozenset(m["id"] for m in _DEFINITION.finditer(markdown))


@functools.cache
def domain_clause_ids(domain: str, docs_dir: Path = DOCS_DIR) -> frozenset[str] | None:
    """The clause ids of docs/domains/<domain>.md, or None when the domain has no contract."""
    try:
        return clause_ids_in((docs_dir / f"{domain}.md").read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
