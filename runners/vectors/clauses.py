"""Each domain's clauses, read from its contract: the single source of clause data.

A domain's contract is ``docs/domains/<domain>.md``; for a domain whose schema comes
from a ``--schemas DIR``, ``DIR/<domain>.md`` beside it is looked at first. A clause
is defined where its id opens a Markdown heading (``### SSE-3: line endings``) or
the bold lead of a list item (``- **SSE-3a.** ...``, ``- **CFG-1 (user file).**``).
An id merely mentioned in running text defines nothing.

A clause may carry **markers** (docs/adding.md), each a line of its own in the
clause's body, outside code fences:

* ``departs-from: HIP-301 §5 "a single assistant message" — why``: the clause
  knowingly says otherwise than the quoted HIP-301 text (the section is optional,
  the quote is not);
* ``fills-gap: HIP-301 §5 — why``: HIP-301 leaves the point open (or says two
  things) and the clause decides it (section and quote optional);
* ``security: why``: a divergence on the clause is a security finding (reports
  show such clusters first and never cut them).

A marker line belongs to the clause whose body it is in, as Markdown nests it: one
indented under a list item belongs to the item's clause, one at the margin to the
heading's. A line that starts like a marker and does not parse, or that stands in
no clause's body, is an error naming the contract and the line.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from adapters._resources import project_dir

from ..exceptions import HarnessError
from .schemas import extra_dirs

DOCS_DIR = project_dir("docs/domains")

CLAUSE_ID = r"[A-Z]+-[0-9]+[a-z]?"
_DEFINITION = re.compile(
    rf"^(?:#{{1,6}}[ \t]+|[ \t]*[-*][ \t]+\*\*)(?P<id>{CLAUSE_ID})(?![A-Za-z0-9-])", re.MULTILINE
)
_HEADING = re.compile(r"#{1,6}[ \t]")
_LIST_ITEM = re.compile(r"([ \t]*)[-*+][ \t]")
_FENCE = re.compile(r"[ \t]*(```|~~~)")

DEPARTS_FROM = "departs-from"
FILLS_GAP = "fills-gap"
SECURITY = "security"
MARKER_KINDS = (DEPARTS_FROM, FILLS_GAP, SECURITY)
# Anything that starts like a marker is read as one, so a misspelt key is an error,
# not prose: "departs from:", "Departs_From :", "fill-gap:", "security :".
_MARKER_LIKE = re.compile(
    r"(?P<indent>[ \t]*)(?P<key>departs?[-_ ]?from|fills?[-_ ]?gaps?|security)[ \t]*:(?P<rest>.*)$",
    re.IGNORECASE,
)
_HIP = re.compile(
    r'HIP-301(?:[ \t]+(?P<section>§[0-9]+))?(?:[ \t]+"(?P<quote>(?:[^"\\]|\\.)+)")?'
    r"[ \t]+(?:—|--)[ \t]+"
    r"(?P<reason>\S.*)$"
)


class ContractError(HarnessError):
    """A contract's marker line does not parse; the message names the file and line."""


@dataclass(frozen=True)
class Marker:
    """One marker of a clause: how it departs from HIP-301, fills a gap, or matters to security."""

    kind: str
    reason: str
    section: str | None = None
    quote: str | None = None

    def to_json(self) -> dict[str, str]:
        record = {"kind": self.kind}
        if self.section:
            record["section"] = self.section
        if self.quote:
            record["quote"] = self.quote
        record["reason"] = self.reason
        return record

    @classmethod
    def from_json(cls, record: Mapping[str, Any]) -> Marker:
        return cls(record["kind"], record["reason"], record.get("section"), record.get("quote"))

    def text(self) -> str:
        """``departs from HIP-301 §5 "a single assistant message": why`` (one line)."""
        if self.kind == SECURITY:
            return f"security-relevant: {self.reason}"
        quoted = self.quote and f'"{self.quote}"'
        where = " ".join(p for p in ("HIP-301", self.section, quoted) if p)
        verb = "departs from" if self.kind == DEPARTS_FROM else "fills a gap in"
        return f"{verb} {where}: {self.reason}"


@dataclass(frozen=True)
class Contract:
    """A contract's clause ids and the markers of the clauses that have any."""

    ids: frozenset[str]
    markers: Mapping[str, tuple[Marker, ...]]


def clause_ids_in(markdown: str) -> frozenset[str]:
    """The clause ids a contract defines (headings and bold list-item leads)."""
    return frozenset(m["id"] for m in _DEFINITION.finditer(markdown))


def _parse_marker(key: str, rest: str, where: str) -> Marker:
    kind = key  # exactly: "Security:" in prose is an error, never a marker by accident
    if kind not in MARKER_KINDS:
        known = ", ".join(MARKER_KINDS)
        raise ContractError(f"{where}: unknown marker {key!r}; write one of {known}")
    rest = rest.strip()
    if kind == SECURITY:
        if not rest:
            raise ContractError(f"{where}: `security:` needs a reason (why a divergence matters)")
        return Marker(SECURITY, rest)
    hip = _HIP.match(rest)
    if hip is None:
        raise ContractError(
            f'{where}: write `{kind}: HIP-301 [§N] "quoted HIP-301 text" — reason` '
            f"(the quote {'required' if kind == DEPARTS_FROM else 'optional'}; "
            f"`--` may stand for the dash), not {rest!r}"
        )
    if kind == DEPARTS_FROM and not hip["quote"]:
        raise ContractError(
            f'{where}: `departs-from:` quotes the HIP-301 text it departs from ("...")'
        )
    quote = hip["quote"] and hip["quote"].replace('\\"', '"')  # \" stands for a quote in it
    return Marker(kind, hip["reason"].strip(), hip["section"], quote)


def contract_in(markdown: str, name: str = "<contract>") -> Contract:
    """The contract's clause ids and markers; ``name`` (its path) is what errors name."""
    markers: dict[str, list[Marker]] = {}
    heading: str | None = None  # the clause of the last heading (None: not a clause)
    items: list[tuple[int, str | None]] = []  # open list items: (indent, clause or None)
    fence: str | None = None
    for number, line in enumerate(markdown.splitlines(), 1):
        opened = _FENCE.match(line)
        if fence is not None:
            if opened and opened.group(1) == fence:
                fence = None
            continue
        if opened:
            fence = opened.group(1)
            continue
        defined = _DEFINITION.match(line)
        if _HEADING.match(line):
            heading = defined["id"] if defined else None
            items = []
            continue
        item = _LIST_ITEM.match(line)
        if item and _MARKER_LIKE.match(line[item.end() :]):
            raise ContractError(
                f"{name}:{number}: a marker is a line of its own, not a list item: drop the bullet"
            )
        if item:
            indent = len(item.group(1).expandtabs(4))
            while items and items[-1][0] >= indent:
                items.pop()
            items.append((indent, defined["id"] if defined else None))
            continue
        marker = _MARKER_LIKE.match(line)
        if marker is None:
            continue
        where = f"{name}:{number}"
        indent = len(marker["indent"].expandtabs(4))
        while items and items[-1][0] >= indent:
            items.pop()
        owner = items[-1][1] if items else heading
        if owner is None:
            inside = "a list item that defines no clause" if items else "no clause's body"
            raise ContractError(
                f"{where}: a `{marker['key']}:` marker in {inside}; put it under the clause's "
                "heading, or indented under its list item"
            )
        found = _parse_marker(marker["key"], marker["rest"], where)
        if any(m.kind == found.kind for m in markers.get(owner, ())):
            raise ContractError(f"{where}: {owner} already has a `{found.kind}:` marker")
        markers.setdefault(owner, []).append(found)
    return Contract(clause_ids_in(markdown), {k: tuple(v) for k, v in markers.items()})


@functools.cache
def _contract_at(path: Path) -> Contract:
    return contract_in(path.read_text(encoding="utf-8"), str(path))


def contract_path(domain: str) -> Path | None:
    """Where the domain's contract is, or None when it has none."""
    for folder in (*extra_dirs(), DOCS_DIR):
        path = folder / f"{domain}.md"
        if path.is_file():
            return path
    return None


def domain_contract(domain: str) -> Contract | None:
    """The domain's contract (ids and markers), or None when it has none."""
    path = contract_path(domain)
    return None if path is None else _contract_at(path)


def domain_clause_ids(domain: str) -> frozenset[str] | None:
    """The clause ids the domain's contract defines, or None when it has no contract."""
    contract = domain_contract(domain)
    return None if contract is None else contract.ids


def marked_clauses(domains: Iterable[str]) -> dict[str, list[dict[str, str]]]:
    """``domain::CLAUSE`` -> its markers as JSON, for every marked clause of ``domains``:
    what a results document carries (``summary.marked_clauses``), so that a saved run's
    report shows them as a live one does."""
    found: dict[str, list[dict[str, str]]] = {}
    for domain in sorted(set(domains)):
        contract = domain_contract(domain)
        for clause, markers in sorted((contract.markers if contract else {}).items()):
            found[f"{domain}::{clause}"] = [m.to_json() for m in markers]
    return found
