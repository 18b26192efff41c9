"""Skip reasons and partial answers, grouped: what a run did not compare, and why.

A result ``skip`` carries its reason (the platform lacks the domain, or answered the
case ``skip`` with one: docs/protocol.md); a result ``partial`` names the fields its
platform declared absent (docs/protocol.md, "Partial answers"). Both are grouped per
platform and domain, by reason or by the fields, each group counted with a few of its
cases. A run builds the groups one result at a time as the results go by and writes
them into the summary (``skips``, ``partials``); reports read them from there, or
recompute them from the results of a document written before they existed.
``runners.reports.results_file`` refuses a summary whose groups its results do not
bear out.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .._textsafe import bound

EXAMPLES = 3
"""Case ids kept per group."""

SHOWN = 10
"""Groups the terminal's text report shows of each kind (files show all of them)."""


class Incomplete:
    """The skip and partial groups of a run, built one result at a time."""

    def __init__(self) -> None:
        # (platform, domain, reason) -> [count, examples]; the same for the fields.
        self.skips: dict[tuple[str, str, str], tuple[list[int], list[str]]] = {}
        self.partials: dict[tuple[str, str, tuple[str, ...]], tuple[list[int], list[str]]] = {}
        self.unrecorded = 0

    def add(self, result: Mapping[str, Any]) -> None:
        status = result["status"]
        if status == "skip":
            key = (result["platform"], result["domain"], result.get("message") or "no reason")
            _count(self.skips.setdefault(key, ([0], [])), result["case"])
        elif status == "partial":
            fields = (result["platform"], result["domain"], tuple(result.get("absent", ())))
            _count(self.partials.setdefault(fields, ([0], [])), result["case"])
            if "expectation" not in result:
                self.unrecorded += 1

    def to_json(self) -> dict[str, Any]:
        """The summary's ``skips`` and ``partials`` (largest first), and the number of
        partial results no ledger records (``partial_unrecorded``, when there are any)."""
        out: dict[str, Any] = {
            "skips": [
                {"platform": p, "domain": d, "reason": r, "count": n[0], "cases": list(cases)}
                for (p, d, r), (n, cases) in _largest_first(self.skips)
            ],
            "partials": [
                {"platform": p, "domain": d, "absent": list(a), "count": n[0], "cases": list(c)}
                for (p, d, a), (n, c) in _largest_first(self.partials)
            ],
        }
        if self.unrecorded:
            out["partial_unrecorded"] = self.unrecorded
        return out


def _count(group: tuple[list[int], list[str]], case: str) -> None:
    group[0][0] += 1
    if len(group[1]) < EXAMPLES:
        group[1].append(case)


def _largest_first(
    groups: Mapping[Any, tuple[list[int], list[str]]],
) -> list[tuple[Any, tuple[list[int], list[str]]]]:
    return sorted(groups.items(), key=lambda item: (-item[1][0][0], str(item[0])))


def incomplete_of(results: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """``Incomplete.to_json`` of these results."""
    groups = Incomplete()
    for r in results:
        groups.add(r)
    return groups.to_json()


def groups(doc: Mapping[str, Any]) -> dict[str, Any]:
    """The document's skip and partial groups: its summary's, else made from its results."""
    summary = doc["summary"]
    if "skips" in summary and "partials" in summary:
        return {k: summary[k] for k in ("skips", "partials", "partial_unrecorded") if k in summary}
    return incomplete_of(doc.get("results", ()))


def counts(found: Mapping[str, Any]) -> dict[tuple[str, ...], int]:
    """Each group's count by its key: what a summary and its results must agree on."""
    out: dict[tuple[str, ...], int] = {}
    for g in found.get("skips", ()):
        out[("skip", g["platform"], g["domain"], g["reason"])] = g["count"]
    for g in found.get("partials", ()):
        key: tuple[str, ...] = ("partial", g["platform"], g["domain"])
        out[key + tuple(g["absent"])] = g["count"]
    return out


def _examples(group: Mapping[str, Any]) -> str:
    cases: Sequence[str] = group["cases"]
    more = group["count"] - len(cases)
    listed = ", ".join(bound(c, 200) for c in cases)
    return f"e.g. {listed}" + (f", … ({more} more)" if more > 0 else "")


def fields_text(absent: Sequence[str]) -> str:
    return ", ".join(bound(p, 200) for p in absent)


def render_text(found: Mapping[str, Any], shown: int | None = SHOWN) -> list[str]:
    """The text report's sections: skip reasons, then partial answers (``shown`` groups
    of each; None: all)."""
    parts = []
    for kind, title in (("skips", "skipped, by reason"), ("partials", "partial answers")):
        listed = found.get(kind, [])
        if not listed:
            continue
        total = sum(g["count"] for g in listed)
        lines = [f"{title}: {total} result{'s' if total != 1 else ''}"]
        for g in listed[:shown] if shown is not None else listed:
            where = f"[{bound(g['platform'], 200)}] {bound(g['domain'], 200)}"
            if kind == "skips":
                lines.append(f"  {where}: {g['count']} skip: {bound(g['reason'], 600)}")
            else:
                lines.append(
                    f"  {where}: {g['count']} partial: not compared (declared absent): "
                    f"{fields_text(g['absent'])}"
                )
            lines.append(f"    {_examples(g)}")
        if shown is not None and len(listed) > shown:
            lines.append(
                f"  … {len(listed) - shown} more groups (every group: --output FILE, or the "
                "JSON results' summary)"
            )
        parts.append("\n".join(lines))
    return parts
