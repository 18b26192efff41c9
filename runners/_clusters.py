"""Divergences grouped by cause: the 2 causes behind 103 failures, not 103 blocks.

A divergence is one differing pointer, one output-schema violation, or one crash.
Its cause is approximated by a **cluster key**: the pointer pattern (array indices
replaced by ``*``) and the kind of difference (``null -> string``, ``missing``,
``extra``, ``error invalid_x -> output``, ``crash``, ...). Divergences of one
platform with the same key form a cluster. Every report shows the clusters,
largest first; the JSON results carry the cluster id on each divergence, and an
expectations ledger entry may name a cluster (``runners/_ledger.py``).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ._report import case_key
from ._textsafe import bound, shown

_INDEX = re.compile(r"^(0|[1-9][0-9]*)$")


def pointer_pattern(pointer: str) -> str:
    """``/frames/3/data`` -> ``/frames/*/data``: which element differs does not matter."""
    if not pointer:
        return ""
    return "/" + "/".join("*" if _INDEX.match(s) else s for s in pointer[1:].split("/"))


def json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def _envelope_side(value: Any) -> str | None:
    """For a whole-output difference: ``error CODE`` or ``output`` (None if not an envelope)."""
    if isinstance(value, Mapping) and len(value) == 1:
        if "error" in value:
            return f"error {value['error']}"
        if "output" in value:
            return "output"
    return None


def difference_kind(d: Mapping[str, Any]) -> str:
    """The kind of one difference (a ``diff`` entry of the results document)."""
    if "actual" not in d:
        return "missing"
    if "expected" not in d:
        return "extra"
    expected, actual = d["expected"], d["actual"]
    if d["pointer"] == "":
        sides = _envelope_side(expected), _envelope_side(actual)
        if None not in sides:
            return f"{sides[0]} -> {sides[1]}"
    te, ta = json_type(expected), json_type(actual)
    if te != ta:
        return f"{te} -> {ta}"
    return f"other {te}"


def cluster_id(pattern: str, kind: str) -> str:
    """A short stable id of a (pattern, kind) key: the same on every run and platform."""
    return "c" + hashlib.sha256(f"{pattern}\0{kind}".encode()).hexdigest()[:8]


@dataclass(frozen=True)
class Divergence:
    """One divergence of one result, with its cluster key."""

    pattern: str
    kind: str
    entry: Mapping[str, Any]  # the diff / schema_errors entry, or the result for a crash


def unledgered_status(result: Mapping[str, Any]) -> str:
    """The status without any ledger: an ``xfail`` is what it records in
    ``expected_status`` (a recorded crash is still a crash)."""
    status: str = result["status"]
    return result.get("expected_status", "fail") if status == "xfail" else status


def divergences(result: Mapping[str, Any]) -> Iterator[Divergence]:
    """Every divergence of a failing or erroring result (none for pass, skip, not_run)."""
    if unledgered_status(result) == "error":
        yield Divergence("", "crash", result)
        return
    for d in result.get("diff", ()):
        yield Divergence(pointer_pattern(d["pointer"]), difference_kind(d), d)
    for s in result.get("schema_errors", ()):
        yield Divergence(pointer_pattern(s["pointer"]), "output schema", s)


def result_keys(result: Mapping[str, Any]) -> set[tuple[str, str]]:
    """The (pattern, kind) keys a result's divergences fall in."""
    return {(d.pattern, d.kind) for d in divergences(result)}


@dataclass
class Cluster:
    platform: str
    pattern: str
    kind: str
    cases: list[str] = field(default_factory=list)  # domain::case, each once (the first `keep`)
    divergences: int = 0
    clauses: set[str] = field(default_factory=set)
    example: Mapping[str, Any] | None = None
    expected: int = 0  # cases whose result is xfail (a ledger records them)
    size: int = 0  # cases in the cluster (``cases`` may list only the first ``keep``)
    keep: int | None = None  # None: list every case (the HTML report's members)
    _last: str | None = field(default=None, repr=False)

    def add(
        self, case: str, clauses: Sequence[str], entry: Mapping[str, Any], xfail: bool = False
    ) -> None:
        self.divergences += 1
        # A case has one result per platform and its divergences are added together, so
        # a case new to the cluster is one other than the last added: no set of every case.
        if case != self._last:
            self._last = case
            self.size += 1
            if self.keep is None or len(self.cases) < self.keep:
                self.cases.append(case)
            self.expected += xfail
        self.clauses.update(clauses)
        if self.example is None:
            self.example = entry

    @property
    def id(self) -> str:
        return cluster_id(self.pattern, self.kind)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "platform": self.platform,
            "pattern": self.pattern,
            "kind": self.kind,
            "cases": self.size,
            "divergences": self.divergences,
            "clauses": sorted(self.clauses),
            "examples": self.cases[:3],
        }


def _considered(result: Mapping[str, Any]) -> bool:
    # An expected divergence (xfail) still belongs to its cluster: that is how a
    # ledger entry covering a cluster is reviewed.
    return result["status"] in ("fail", "error", "xfail")


class ClusterTally:
    """Clusters built one result at a time; ``keep`` bounds the case names each one lists."""

    def __init__(self, keep: int | None = None) -> None:
        self.keep = keep
        self._by_key: dict[tuple[str, str, str], Cluster] = {}

    def add(self, result: Mapping[str, Any], clauses: Sequence[str] = ()) -> None:
        if not _considered(result):
            return
        platform = result["platform"]
        name = case_key(result["domain"], result["case"])
        xfail = result["status"] == "xfail"
        for d in divergences(result):
            key = (platform, d.pattern, d.kind)
            c = self._by_key.get(key)
            if c is None:
                c = self._by_key[key] = Cluster(platform, d.pattern, d.kind, keep=self.keep)
            c.add(name, clauses, d.entry, xfail)

    def clusters(self) -> list[Cluster]:
        """Largest (most cases) first."""
        return sorted(self._by_key.values(), key=lambda c: (-c.size, c.platform, c.pattern, c.kind))


def clusters(
    results: Sequence[Mapping[str, Any]], cases: Mapping[str, Mapping[str, Any]] | None = None
) -> list[Cluster]:
    """Clusters of every platform, largest (most cases) first."""
    tally = ClusterTally()
    for r in results:
        info = (cases or {}).get(case_key(r["domain"], r["case"]), {})
        tally.add(r, info.get("clauses", ()))
    return tally.clusters()


def _example_line(c: Cluster) -> str:
    e = c.example or {}
    if c.kind == "crash":
        return f"e.g. {bound(str(e.get('message', '')), 160)}"
    if c.kind == "output schema":
        return f"e.g. {bound(str(e.get('message', '')), 160)}"
    expected = shown(e["expected"], 80) if "expected" in e else "(absent)"
    actual = shown(e["actual"], 80) if "actual" in e else "(absent)"
    return f"e.g. expected {expected}, actual {actual}"


def _clause_list(clauses: set[str], limit: int = 6) -> str:
    listed = sorted(clauses)
    more = f" and {len(listed) - limit} more" if len(listed) > limit else ""
    return ", ".join(listed[:limit]) + more


def render_clusters(cluster_list: Sequence[Cluster], limit: int = 12) -> str:
    """The text report's "divergences by cause" section."""
    if not cluster_list:
        return ""
    lines = ["divergences by cause (largest first):"]
    for c in cluster_list[:limit]:
        where = c.pattern or "(whole output)"
        n = c.size
        ledgered = ""
        if c.expected:
            ledgered = " (all xfail)" if c.expected == n else f" ({c.expected} xfail)"
        lines.append(
            f"  [{c.id}] {c.platform}: {n} case{'s' if n != 1 else ''}{ledgered}, "
            f"{where}: {c.kind}" + (f"  (clauses {_clause_list(c.clauses)})" if c.clauses else "")
        )
        lines.append(f"      {_example_line(c)}")
        more = f" and {n - 3} more" if n > 3 else ""
        lines.append(f"      cases: {', '.join(c.cases[:3])}{more}")
    if len(cluster_list) > limit:
        lines.append(f"  … {len(cluster_list) - limit} smaller clusters (see --format json)")
    return "\n".join(lines)


_CRASH = cluster_id("", "crash")


def annotate_result(r: dict[str, Any]) -> None:
    """Put the cluster id on each divergence of one result (in place)."""
    if unledgered_status(r) == "error":
        r["cluster"] = _CRASH
        return
    for d in r.get("diff", ()):
        d["cluster"] = cluster_id(pointer_pattern(d["pointer"]), difference_kind(d))
    for s in r.get("schema_errors", ()):
        s["cluster"] = cluster_id(pointer_pattern(s["pointer"]), "output schema")


def annotate(doc: dict[str, Any]) -> None:
    """Put the cluster id on each divergence and the cluster list in ``summary.clusters``."""
    for r in doc["results"]:
        annotate_result(r)
    doc["summary"]["clusters"] = [c.to_json() for c in clusters(doc["results"], doc.get("cases"))]
