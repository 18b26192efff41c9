"""What a run's divergences touch among the clauses a contract marks.

A contract marks a clause that departs from HIP-301, fills a gap HIP-301 leaves, or
is security-relevant (``runners/vectors/clauses.py`` reads the markers; a results
document carries them in ``summary.marked_clauses``). A case inherits the markers of
the clauses it cites. Here they meet the divergences:

* a divergence's case shows its marked clauses and why (every report format);
* a cluster **touches** a marked clause when one of its cases cites it; clusters
  touching a security-relevant clause come first in every format, are never cut
  from a bounded view, and the verdict line names them (``verdict_note``).
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from .._textsafe import bound
from ..vectors.clauses import DEPARTS_FROM, FILLS_GAP, SECURITY, Marker, domain_contract
from .clusters import Cluster
from .keys import case_key, cluster_id, result_keys

Markers = Mapping[str, tuple[Marker, ...]]
"""A domain's marked clauses: clause id -> its markers."""


class ClauseMarks:
    """The marked clauses of each domain, from a results document or from the contracts."""

    def __init__(self, of_domain: Callable[[str], Markers]) -> None:
        self._of_domain = functools.cache(of_domain)

    @classmethod
    def from_contracts(cls) -> ClauseMarks:
        """Read from the contracts (a live run)."""

        def read(domain: str) -> Markers:
            contract = domain_contract(domain)
            return contract.markers if contract is not None else {}

        return cls(read)

    @classmethod
    def from_summary(cls, summary: Mapping[str, Any]) -> ClauseMarks:
        """What a results document's ``summary.marked_clauses`` records (a saved run)."""
        by_domain: dict[str, dict[str, tuple[Marker, ...]]] = {}
        for key, records in summary.get("marked_clauses", {}).items():
            domain, _, clause = key.rpartition("::")
            by_domain.setdefault(domain, {})[clause] = tuple(Marker.from_json(m) for m in records)
        return cls(lambda domain: by_domain.get(domain, {}))

    def of_case(self, domain: str, clauses: Iterable[str]) -> tuple[tuple[str, Marker], ...]:
        """(clause, marker) for each marker of each clause the case cites, in its order."""
        return self._of_clauses(domain, tuple(clauses))

    @functools.lru_cache(maxsize=4096)  # noqa: B019 - a run's cases share few clause lists
    def _of_clauses(self, domain: str, clauses: tuple[str, ...]) -> tuple[tuple[str, Marker], ...]:
        markers = self._of_domain(domain)
        return tuple((clause, m) for clause in clauses for m in markers.get(clause, ()))

    def security(self, domain: str, clauses: Iterable[str]) -> bool:
        """Whether a case citing ``clauses`` touches a security-relevant clause."""
        return any(m.kind == SECURITY for _, m in self.of_case(domain, clauses))

    def notes(self, domain: str, clauses: Iterable[str]) -> tuple[str, ...]:
        """One line per marker: ``COMP-12 departs from HIP-301 §5 "...": why``, bounded
        and with invisible characters escaped (``_textsafe``), ready to print."""
        return self._notes(domain, tuple(clauses))

    @functools.lru_cache(maxsize=4096)  # noqa: B019 - as _of_clauses
    def _notes(self, domain: str, clauses: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(bound(f"{k} {m.text()}", 600) for k, m in self._of_clauses(domain, clauses))


class MarkTally:
    """The marked clauses each cluster touches, built one result at a time beside a
    ``ClusterTally`` (keyed as it keys clusters: platform and cluster id)."""

    def __init__(self, marks: ClauseMarks, gaps_shown: int = 2) -> None:
        self.marks = marks
        self.gaps_shown = gaps_shown
        self._touched: dict[tuple[str, str], dict[str, list[Marker]]] = {}
        self._citing: dict[tuple[str, str], Counter[str]] = {}  # cases citing each clause

    def add(self, result: Mapping[str, Any], clauses: Sequence[str]) -> None:
        if result["status"] not in ("fail", "error", "xfail"):  # as ClusterTally counts
            return
        found = self.marks.of_case(result["domain"], clauses)
        if not found:
            return
        marked = dict.fromkeys((clause for clause, _ in found), 1)
        for cluster in _cluster_ids(result):  # one result: one case of each cluster
            key = (result["platform"], cluster)
            touched = self._touched.setdefault(key, {})
            for clause, marker in found:
                listed = touched.setdefault(clause, [])
                if marker not in listed:
                    listed.append(marker)
            self._citing.setdefault(key, Counter()).update(marked)

    def _of(self, c: Cluster) -> dict[str, list[Marker]]:
        return self._touched.get((c.platform, c.id), {})

    def security(self, c: Cluster) -> list[str]:
        """The security-relevant clauses at least half the cluster's cases cite (sorted):
        what makes it a security-relevant cluster. A clause a few of a large cluster's
        cases cite (a cause that fails nearly every case) is among its notes only."""
        citing = self._citing.get((c.platform, c.id), Counter())
        return sorted(
            k
            for k, ms in self._of(c).items()
            if any(m.kind == SECURITY for m in ms) and 2 * citing[k] >= c.size
        )

    def departures(self, c: Cluster) -> list[str]:
        """The clauses the cluster touches that depart from HIP-301 or fill a gap in it."""
        kinds = (DEPARTS_FROM, FILLS_GAP)
        return sorted(k for k, ms in self._of(c).items() if any(m.kind in kinds for m in ms))

    def notes(self, c: Cluster) -> list[str]:
        """A line per marked clause the cluster touches, with how many of its cases cite
        it: every security-relevant one and every departure from HIP-301, then the
        ``gaps_shown`` gap-filling clauses most of its cases cite (each case's own report
        lists all of its own)."""
        touched = self._of(c)
        citing = self._citing.get((c.platform, c.id), Counter())
        by_count = sorted(touched, key=lambda k: (-citing[k], k))
        pairs = [(k, m) for k in by_count for m in touched[k]]
        gaps = [(k, m) for k, m in pairs if m.kind == FILLS_GAP]
        lines = [
            f"SECURITY {k} ({citing[k]} of {_cases(c.size)}): {m.reason}"
            for k, m in pairs
            if m.kind == SECURITY
        ]
        lines += [
            f"{k} ({citing[k]} of {_cases(c.size)}) {m.text()}"
            for k, m in pairs
            if m.kind == DEPARTS_FROM
        ]
        lines += [
            f"{k} ({citing[k]} of {_cases(c.size)}) {m.text()}" for k, m in gaps[: self.gaps_shown]
        ]
        if len(gaps) > self.gaps_shown:
            rest = ", ".join(k for k, _ in gaps[self.gaps_shown :])
            verb = "fills" if len(gaps) == self.gaps_shown + 1 else "fill"
            lines.append(f"{rest} also {verb} a gap in HIP-301")
        return lines

    def ordered(self, clusters: Sequence[Cluster]) -> list[Cluster]:
        """Security-relevant clusters first; otherwise the order given (largest first)."""
        return sorted(clusters, key=lambda c: not self.security(c))

    def to_json(self, c: Cluster) -> dict[str, Any]:
        """The cluster's JSON record with the marked clauses it touches."""
        record = c.to_json()
        security, departures = self.security(c), self.departures(c)
        if security:
            record["security"] = security
        if departures:
            record["hip301"] = departures
        return record

    def verdict_note(self, clusters: Sequence[Cluster], shown: int = 6) -> str:
        """What the verdict line says of security-relevant clusters ('' when none)."""
        named = [c for c in clusters if self.security(c)]
        if not named:
            return ""
        listed = [
            f"{', '.join(self.security(c))} [{c.id} {c.platform}"
            + (" xfail" if c.expected == c.size else "")
            + "]"
            for c in named[:shown]
        ]
        more = f" and {len(named) - shown} more" if len(named) > shown else ""
        s = "s" if len(named) != 1 else ""
        return f"; {len(named)} security-relevant cluster{s}: " + "; ".join(listed) + more


def _cluster_ids(result: Mapping[str, Any]) -> set[str]:
    """The ids of the clusters a result's divergences fall in: those ``annotate_result``
    put on it (a judged result), else computed from its divergences."""
    if "cluster" in result:
        return {result["cluster"]}
    entries = [*result.get("diff", ()), *result.get("schema_errors", ())]
    ids = {e.get("cluster") for e in entries}
    if entries and None not in ids:
        return ids
    return {cluster_id(pattern, kind) for pattern, kind in result_keys(result)}


def tally_of(
    results: Iterable[Mapping[str, Any]],
    cases: Mapping[str, Mapping[str, Any]] | None,
    marks: ClauseMarks,
) -> MarkTally:
    """A ``MarkTally`` of a whole results list (the saved-run reports)."""
    tally = MarkTally(marks)
    for r in results:
        info = (cases or {}).get(case_key(r["domain"], r["case"]), {})
        tally.add(r, info.get("clauses", ()))
    return tally


def _cases(n: int) -> str:
    return f"{n} case{'s' if n != 1 else ''}"
