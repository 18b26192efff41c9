"""Each domain's clause ids, read from its contract: the single source.

A domain's contract is ``docs/domains/<domain>.md``; for a domain whose schema comes
from a ``--schemas DIR``, ``DIR/<domain>.md`` beside it is looked at first. A clause
is defined where its id opens a Markdown heading (``### SSE-3: line endings``) or
the bold lead of a list item (``- **SSE-3a.** ...``, ``- **CFG-1 (user file).**``).
An id merely mentioned in running text defines nothing.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

from adapters._resources import project_dir

from .schemas import extra_dirs

DOCS_DIR = project_dir("docs/domains")

CLAUSE_ID = r"[A-Z]+-[0-9]+[a-z]?"
_DEFINITION = re.compile(
    rf"^(?:#{{1,6}}[ \t]+|[ \t]*[-*][ \t]+\*\*)(?P<id>{CLAUSE_ID})(?![A-Za-z0-9-])", re.MULTILINE
)


def clause_ids_in(markdown: str) -> frozenset[str]:
    """The clause ids a contract defines (headings and bold list-item leads)."""
    return frozenset(m["id"] for m in _DEFINITION.finditer(markdown))


@functools.cache
def _clause_ids_at(path: Path) -> frozenset[str]:
    return clause_ids_in(path.read_text(encoding="utf-8"))


def contract_path(domain: str) -> Path | None:
    """Where the domain's contract is, or None when it has none."""
    for folder in (*extra_dirs(), DOCS_DIR):
        path = folder / f"{domain}.md"
        if path.is_file():
            return path
    return None


def domain_clause_ids(domain: str) -> frozenset[str] | None:
    """The clause ids the domain's contract defines, or None when it has no contract."""
    path = contract_path(domain)
    return None if path is None else _clause_ids_at(path)
