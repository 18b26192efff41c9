"""Divergences grouped by cause: the 2 causes behind 103 failures, not 103 blocks.

A divergence is one differing pointer (with the output-schema violations it accounts
for), one violation no difference accounts for, or one crash. Its cause is approximated
by a **cluster key** (``runners/judge/keys.py``, its one owner): the pointer pattern
(array indices, and the keys of objects the output schema declares maps, replaced by
``*``) and the kind of difference (``null -> string``, ``missing``, ``extra``, ``error
invalid_x -> output``, ``crash UnicodeDecodeError``, ...). Divergences of one platform
with the same key form a cluster. Every report shows the clusters, largest first, each
with the clauses all its cases cite (the others apart) and its smallest case as a
reproducer; the JSON results carry the cluster id on each divergence, and an
expectations ledger entry may name a cluster (``runners/gate/ledger.py``).

A crash's kind is ``crash CAUSE`` (pattern ``""``), the cause read from its message
(``crash_cause``), never with a variable part (a position, a byte, an address):

* where the harness made the crash, its own lower-case class: ``timeout`` (no answer
  in time), ``exit N`` (the worker exited with code N), ``signal SIGNAME`` (killed by
  a signal), ``closed stdout`` (end of output, no exit), ``not JSON`` (an answer line
  that is not JSON), ``protocol`` (an answer out of turn or not in the protocol's
  shape, a request the platform's side refused), ``output not JSON``, ``not
  implemented`` (the platform lacks the domain), ``did not start`` / ``unavailable``
  (the platform did not start / could not be restarted), ``not run`` (given up after
  earlier failures), ``input not sent``, ``adapter bug`` (an adapter's run() raised),
  ``harness job``, ``harness bug``;
* else the platform's own error class: ``panic`` for a Rust panic (``panicked at``
  in the message, or a detail starting ``panicked``), or a leading (dotted) name whose
  last part starts upper-case, followed by ``:``, ``(`` or the end of the message:
  ``UnicodeDecodeError: ...``, ``UnicodeDecodeError('utf-8', ...)`` (a ``repr``),
  JS ``TypeError: ...`` all name their class (a JS case run in a worker thread: the
  class its stack names, after the thread's wrapper);
* else plain ``crash``: a cause the message does not name. Such crashes may have
  nothing in common, so ``expectations --update`` records them per case.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from .._textsafe import bound, shown
from .crashes import is_crash
from .keys import Divergence, case_key, cluster_id, divergences, unledgered_status


@dataclass
class Cluster:
    platform: str
    pattern: str
    kind: str
    cases: list[str] = field(default_factory=list)  # domain::case, each once (the first `keep`)
    divergences: int = 0
    # the clauses every case of the cluster cites (None until a case is added)
    shared: set[str] | None = None
    cited: set[str] = field(default_factory=set)  # the clauses any of its cases cites
    example: Mapping[str, Any] | None = None
    violations: int = 0  # its divergences that also broke the output schema (one cause each)
    violation: Mapping[str, Any] | None = None  # the first of those violations
    reproducer: dict[str, Any] | None = None  # its smallest case: case, input, expected, actual
    reproducer_size: int = -1
    expected: int = 0  # cases whose result is xfail (a ledger records them)
    size: int = 0  # cases in the cluster (``cases`` may list only the first ``keep``)
    keep: int | None = None  # None: list every case (the HTML report's members)
    _last: str | None = field(default=None, repr=False)

    def add(
        self,
        case: str,
        clauses: Sequence[str],
        entry: Mapping[str, Any] | Divergence,
        xfail: bool = False,
        reproducer: tuple[int, Mapping[str, Any]] | None = None,
    ) -> None:
        """One divergence of ``case``; ``reproducer``: the case's size and its
        reproducer (kept when it is the cluster's smallest case so far)."""
        self.divergences += 1
        if isinstance(entry, Divergence):
            if entry.violations:
                self.violations += 1
                self.violation = self.violation or entry.violations[0]
            entry = entry.entry
        # A case has one result per platform and its divergences are added together, so
        # a case new to the cluster is one other than the last added: no set of every case.
        if case != self._last:
            self._last = case
            self.size += 1
            if self.keep is None or len(self.cases) < self.keep:
                self.cases.append(case)
            self.expected += xfail
            self.shared = set(clauses) if self.shared is None else self.shared & set(clauses)
            self.cited.update(clauses)
            if reproducer is not None and (
                self.reproducer is None or reproducer[0] < self.reproducer_size
            ):
                self.reproducer_size, self.reproducer = reproducer[0], dict(reproducer[1])
        if self.example is None:
            self.example = entry

    @property
    def clauses(self) -> set[str]:
        """The clauses all its cases cite: what the cluster points at."""
        return self.shared or set()

    @property
    def other_clauses(self) -> set[str]:
        """The clauses only some of its cases cite."""
        return self.cited - self.clauses

    @property
    def id(self) -> str:
        return cluster_id(self.pattern, self.kind)

    def to_json(self) -> dict[str, Any]:
        out = {
            "id": self.id,
            "platform": self.platform,
            "pattern": self.pattern,
            "kind": self.kind,
            "cases": self.size,
            "divergences": self.divergences,
            "clauses": sorted(self.clauses),
            "also_cited": sorted(self.other_clauses),
            "examples": self.cases[:3],
        }
        if self.violations:
            out["violations"] = self.violations
        if self.reproducer is not None:
            out["reproducer"] = self.reproducer
        return out


def _considered(result: Mapping[str, Any]) -> bool:
    # An expected divergence (xfail) still belongs to its cluster: that is how a
    # ledger entry covering a cluster is reviewed.
    return result["status"] in ("fail", "error", "xfail")


def reproducer(
    result: Mapping[str, Any], case: Mapping[str, Any] | None
) -> tuple[int, dict[str, Any]]:
    """A failing case as a ready reproducer, and its size (its input's JSON length):
    its key, input, expected answer (the output, or ``{"error": CODE}``) and actual
    answer (the output, ``{"error": ...}``, or ``{"crash": MESSAGE}``)."""
    info = case or {}
    out: dict[str, Any] = {"case": case_key(result["domain"], result["case"])}
    given = info["input"] if "input" in info else result.get("input")
    out["input"] = given
    if "expected" in info:
        out["expected"] = info["expected"]
    elif "error" in info:
        out["expected"] = {"error": info["error"]}
    if unledgered_status(result) == "error":
        out["actual"] = {"crash": result.get("message", "")}
    elif "actual" in result:
        out["actual"] = result["actual"]
    try:
        size = len(json.dumps(given, ensure_ascii=False))
    except (TypeError, ValueError):  # not JSON (a harness-made input): the largest
        size = 1 << 62
    return size, out


class ClusterTally:
    """Clusters built one result at a time; ``keep`` bounds the case names each one lists."""

    def __init__(self, keep: int | None = None) -> None:
        self.keep = keep
        self._by_key: dict[tuple[str, str, str], Cluster] = {}

    def add(
        self,
        result: Mapping[str, Any],
        clauses: Sequence[str] = (),
        case: Mapping[str, Any] | None = None,
        found: Sequence[Divergence] | None = None,
    ) -> None:
        """``result``'s divergences; ``case``: its case's record (input, expected) for
        the reproducer."""
        if not _considered(result):
            return
        platform = result["platform"]
        name = case_key(result["domain"], result["case"])
        xfail = result["status"] == "xfail"
        made = None
        for d in divergences(result) if found is None else found:
            key = (platform, d.pattern, d.kind)
            c = self._by_key.get(key)
            if c is None:
                c = self._by_key[key] = Cluster(platform, d.pattern, d.kind, keep=self.keep)
            if made is None:
                made = reproducer(result, case)
            c.add(name, clauses, d, xfail, made)

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
        tally.add(r, info.get("clauses", ()), info or None)
    return tally.clusters()


def _example_line(c: Cluster) -> str:
    e = c.example or {}
    if is_crash(c.kind) or c.kind in ("output schema", "not I-JSON"):
        return f"e.g. {bound(str(e.get('message', '')), 160)}"
    expected = shown(e["expected"], 80) if "expected" in e else "(absent)"
    actual = shown(e["actual"], 80) if "actual" in e else "(absent)"
    return f"e.g. expected {expected}, actual {actual}"


def _clause_list(clauses: set[str], limit: int = 6) -> str:
    listed = sorted(clauses)
    more = f" and {len(listed) - limit} more" if len(listed) > limit else ""
    return ", ".join(listed[:limit]) + more


def reproducer_lines(c: Cluster, width: int = 160) -> list[str]:
    """The smallest case of ``c`` as the terminal shows it: each part on one line,
    bounded to ``width`` characters (the files show it whole)."""
    r = c.reproducer
    if r is None:
        return []
    lines = [f"smallest case: {r['case']}"]
    for part in ("input", "expected", "actual"):
        if part in r:
            lines.append(f"  {part + ':':9} {shown(r[part], width)}")
    return lines


def render_clusters(
    cluster_list: Sequence[Cluster],
    limit: int | None = 12,
    marks: ClusterMarks | None = None,
    rest: str = "see --format json",
) -> str:
    """The text report's "divergences by cause" section: the first ``limit`` clusters
    (None: all), ``rest`` saying where the others are. With ``marks``
    (``runners/judge/marks.py``), each cluster's marked clauses are shown and one
    touching a security-relevant clause is never cut (the caller orders them first)."""
    if not cluster_list:
        return ""
    kept = [
        c
        for i, c in enumerate(cluster_list)
        if limit is None or i < limit or (marks is not None and marks.security(c))
    ]
    first = marks is not None and any(marks.security(c) for c in kept)
    order = "security-relevant first, then largest first" if first else "largest first"
    lines = [f"divergences by cause ({order}):"]
    for c in kept:
        where = c.pattern or "(whole output)"
        n = c.size
        ledgered = ""
        if c.expected:
            ledgered = " (all xfail)" if c.expected == n else f" ({c.expected} xfail)"
        lines.append(
            f"  [{c.id}] {c.platform}: {n} case{'s' if n != 1 else ''}{ledgered}, "
            f"{where}: {c.kind}" + (f"  (clauses {_clause_list(c.clauses)})" if c.clauses else "")
        )
        if c.other_clauses:
            lines.append(f"      also cited by some cases: {_clause_list(c.other_clauses)}")
        if marks is not None:
            lines.extend(f"      {bound(note, 400)}" for note in marks.notes(c))
        lines.append(f"      {_example_line(c)}")
        if c.violations and c.violation is not None:
            lines.append(
                f"      and the output schema, in {c.violations} of them: "
                f"{bound(str(c.violation.get('message', '')), 160)}"
            )
        more = f" and {n - 3} more" if n > 3 else ""
        lines.append(f"      cases: {', '.join(c.cases[:3])}{more}")
        lines.extend(f"      {line}" for line in reproducer_lines(c))
    if len(cluster_list) > len(kept):
        lines.append(f"  … {len(cluster_list) - len(kept)} smaller clusters ({rest})")
    return "\n".join(lines)


def unannotated(r: dict[str, Any]) -> None:
    """Take ``annotate_result``'s cluster ids off a result again (in place): a saved result
    as it was before (``merge`` judges the shards' results again)."""
    r.pop("cluster", None)
    for d in r.get("diff", ()):
        d.pop("cluster", None)
    for s in r.get("schema_errors", ()):
        s.pop("cluster", None)


class ClusterMarks(Protocol):
    """What ``render_clusters`` asks of a cluster's marked clauses (``marks.MarkTally``)."""

    def security(self, c: Cluster) -> list[str]: ...

    def notes(self, c: Cluster) -> list[str]: ...


def annotate_result(r: dict[str, Any], found: Sequence[Divergence] | None = None) -> None:
    """Put the cluster id on each divergence of one result (in place; ``found``: its
    ``divergences`` when the caller has them): a violation carries the id of the
    difference it goes with."""
    for d in divergences(r) if found is None else found:
        if d.entry is r:
            r["cluster"] = d.id
            continue
        for entry in (d.entry, *d.violations):
            entry["cluster"] = d.id  # type: ignore[index]  # the result's own dicts
