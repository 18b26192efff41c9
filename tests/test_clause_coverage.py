"""Every clause a domain contract defines is cited by at least one case of its vectors.

Reads docs/domains/*.md and vectors/*.json directly (no harness code), so a domain
added later is checked as soon as its contract exists. A clause is defined where its
id opens a Markdown heading (``### SBX-3: allowed paths``) or the bold lead of a list
item (``- **CFG-4a (numbers).**``), the rule ``validate`` applies to cited ids; an id
merely mentioned in running text defines nothing. A clause whose lettered
sub-clauses are cited (``SSE-7`` through ``SSE-7a`` .. ``SSE-7e``) is covered: its own
text only introduces them.

A clause that no vector can pin is listed in UNPINNABLE with the reason; the test also
fails when such an entry goes stale (the clause is cited after all, or no longer
defined), so the list stays the exact set of exceptions.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs" / "domains"
VECTORS = ROOT / "vectors"

CLAUSE_ID = r"[A-Z]+-[0-9]+[a-z]?"
DEFINITION = re.compile(
    rf"^(?:#{{1,6}}[ \t]+|[ \t]*[-*][ \t]+\*\*)(?P<id>{CLAUSE_ID})(?![A-Za-z0-9-])", re.MULTILINE
)

#: (domain, clause) -> why no vector cites it; each reason names what checks it instead.
UNPINNABLE: dict[tuple[str, str], str] = {
    ("oauth-pkce", "PKCE-5"): (
        "generation is random: no fixed expected output exists; checked by per-platform "
        "property tests (tests/test_pkce_generate.py, hanzo-pkce unit tests, "
        "impl_js/test/pkce.test.js) and `generate --domain oauth-pkce`"
    ),
    ("sandbox-paths", "SBX-8"): (
        "non-UTF-8 names are out of scope by this very clause: vectors are JSON text and "
        "cannot name such a file; tests/test_sandbox_non_utf8.py covers Python's bytes path"
    ),
    ("mcp-stdio", "STDIO-17d"): (
        "it puts Windows out of scope: no vector runs there, and on POSIX its rule "
        "(Windows' own default variable list) has nothing to decide"
    ),
    ("sse-frames", "SSE-10"): (
        "linear time is a cost, not an output: a vector would need a timing assertion, "
        "which the project forbids in tests; bench/sse_python.py and "
        "bench/sse-js-longline.mjs measure it"
    ),
}


def defined_clauses(markdown: str) -> set[str]:
    return {m["id"] for m in DEFINITION.finditer(markdown)}


def _cited_by_domain() -> dict[str, set[str]]:
    cited: dict[str, set[str]] = defaultdict(set)
    for path in sorted(VECTORS.glob("*.json")):
        document = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(document, dict) or not isinstance(document.get("domain"), str):
            continue
        for case in document.get("cases", []):
            cited[document["domain"]].update(case.get("clauses", []))
    return cited


CITED = _cited_by_domain()
CONTRACTS = sorted(DOCS.glob("*.md"))


def uncited(defined: set[str], cited: set[str]) -> set[str]:
    """Defined ids that no case cites, neither directly nor through a lettered sub-clause."""
    return {
        clause
        for clause in defined
        if clause not in cited
        and not any(re.fullmatch(re.escape(clause) + "[a-z]", c) for c in cited)
    }


def test_contracts_exist() -> None:
    assert len(CONTRACTS) >= 10, "docs/domains/*.md went missing"


@pytest.mark.parametrize("contract", CONTRACTS, ids=lambda p: p.stem)
def test_every_defined_clause_is_cited(contract: Path) -> None:
    domain = contract.stem
    defined = defined_clauses(contract.read_text(encoding="utf-8"))
    assert defined, f"{contract} defines no clause ids"
    assert domain in CITED, f"no vectors/*.json file has domain {domain!r}"
    exempt = {clause for (d, clause) in UNPINNABLE if d == domain}
    missing = uncited(defined, CITED[domain]) - exempt
    assert not missing, (
        f"{domain}: clauses no case cites: {sorted(missing)}; add a vector citing each, "
        "or list it in UNPINNABLE with the reason no vector can pin it"
    )


@pytest.mark.parametrize(("domain", "clause"), sorted(UNPINNABLE), ids="/".join)
def test_unpinnable_entries_are_not_stale(domain: str, clause: str) -> None:
    defined = defined_clauses((DOCS / f"{domain}.md").read_text(encoding="utf-8"))
    assert clause in defined, f"{domain} no longer defines {clause}: drop it from UNPINNABLE"
    assert clause in uncited(defined, CITED[domain]), (
        f"{domain} {clause} is cited by a case now: drop it from UNPINNABLE"
    )


def test_uncited_sees_through_sub_clauses_only() -> None:
    defined = {"X-1", "X-2", "X-3", "X-30"}
    assert uncited(defined, {"X-1", "X-2a", "X-30"}) == {"X-3"}
    assert uncited({"X-1"}, {"X-10"}) == {"X-1"}
    assert defined_clauses("### X-1: a\n- **X-2a.** b\nsee X-3 in text\n") == {"X-1", "X-2a"}
