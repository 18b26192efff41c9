"""Summaries and renderings of a run, computed from its JSON results.

Everything here works on the JSON document a run writes
(``{"summary": ..., "results": [...]}``), so a saved run renders the same as a live one.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import IO, Any

from .._textsafe import bound, shown
from ..judge.clusters import ClusterTally, render_clusters
from ..judge.keys import case_key, violation_kind
from ..judge.marks import ClauseMarks, MarkTally
from . import skips

CLUSTERS_SHOWN = 12
"""Clusters a bounded view lists (those touching a security-relevant clause come on top)."""

# xfail: a divergence an expectations ledger records (runners/gate/ledger.py), never a pass.
# not_run: a case an interrupted run never finished (runners/_cli.py).
# partial: fields the platform declared absent were not compared (docs/protocol.md), never a pass.
STATUSES = ("pass", "partial", "fail", "error", "skip", "xfail", "not_run")


class Tally:
    """The summary's counts, built one result at a time (``summarize`` over a stream)."""

    def __init__(self) -> None:
        self.totals: Counter[str] = Counter()
        self.cells: dict[str, dict[str, Counter[str]]] = {}
        self.incomplete = skips.Incomplete()

    def note(self, result: Mapping[str, Any]) -> None:
        """A result's record, after the ledgers: a skip's reason, a partial's fields."""
        self.incomplete.add(result)

    def add(self, status: str, domain: str, platform: str, count: int = 1) -> None:
        self.totals[status] += count
        row = self.cells.get(domain)
        if row is None:
            row = self.cells[domain] = {}
        cell = row.get(platform)
        if cell is None:
            cell = row[platform] = Counter()
        cell[status] += count

    def summary(self, platforms: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
        totals = self.totals
        return {
            "total": sum(totals.values()),
            **{s: totals.get(s, 0) for s in STATUSES},
            "diverged": totals.get("fail", 0) + totals.get("error", 0) > 0,
            "platforms": dict(platforms),
            "matrix": {
                domain: {
                    platform: {s: c.get(s, 0) for s in STATUSES}
                    for platform, c in by_platform.items()
                }
                for domain, by_platform in self.cells.items()
            },
            **self.incomplete.to_json(),
        }


def summarize(
    results: Sequence[Mapping[str, Any]], platforms: Mapping[str, Mapping[str, Any]]
) -> dict[str, Any]:
    tally = Tally()
    for r in results:
        tally.add(r["status"], r["domain"], r["platform"])
        tally.note(r)
    return tally.summary(platforms)


def document(
    results: Sequence[Mapping[str, Any]],
    platforms: Mapping[str, Mapping[str, Any]],
    cases: Mapping[str, Mapping[str, Any]] | None = None,
) -> dict[str, Any]:
    """The results document; ``cases`` (see ``case_records``) lets a saved run show inputs."""
    doc: dict[str, Any] = {"summary": summarize(results, platforms), "results": list(results)}
    if cases is not None:
        doc["cases"] = dict(cases)
    return doc


def case_records(files: Iterable[Any]) -> dict[str, dict[str, Any]]:
    """Each case's description, clauses, tags, input and expectation, by ``domain::id``."""
    records = {}
    for vf in files:
        for c in vf.cases:
            record: dict[str, Any] = {
                "description": c.description,
                "clauses": list(c.clauses),
                "tags": list(c.tags),
                "input": c.input,
            }
            if c.expects_error:
                record["error"] = c.error
            else:
                record["expected"] = c.expected
            records[case_key(vf.domain, c.id)] = record
    return records


def skipped_whole(platform_info: Mapping[str, Any], domain: str) -> str:
    """A matrix cell where a platform skipped every case of a domain: it does not run
    the domain at all, or it does and answered each case ``skip`` (docs/protocol.md)."""
    declared = domain in platform_info.get("domains", ())
    return "not applicable" if declared else "not implemented"


def _cell(counts: Mapping[str, int], whole_skip: str) -> str:
    ran = (
        counts["pass"]
        + counts.get("partial", 0)
        + counts["fail"]
        + counts["error"]
        + counts.get("xfail", 0)
    )
    unfinished = counts.get("not_run", 0)
    if ran == 0 and counts["skip"] and not unfinished:
        return (
            whole_skip
            if whole_skip == "not implemented"
            else f"{whole_skip} ({counts['skip']} skip)"
        )
    text = f"{counts['pass']}/{ran + counts['skip'] + unfinished}"
    bad = [
        f"{counts.get(s, 0)} {s}"
        for s in ("partial", "fail", "error", "xfail", "skip", "not_run")
        if counts.get(s)
    ]
    return text + (" (" + ", ".join(bad) + ")" if bad else " ok")


def render_table(doc: Mapping[str, Any]) -> str:
    summary = doc["summary"]  # the table needs only the summary (a streamed run has no results)
    matrix = summary["matrix"]
    platforms = list(summary["platforms"]) or sorted({p for row in matrix.values() for p in row})
    # A case has one result per platform: the first platform's cell counts every case.
    cases = (
        {domain: sum(row.get(platforms[0], {}).values()) for domain, row in matrix.items()}
        if platforms
        else {}
    )
    header = ["domain", "cases", *platforms]
    rows = [header]
    for domain, row in matrix.items():
        empty: dict[str, int] = dict.fromkeys(STATUSES, 0)
        rows.append(
            [
                domain,
                str(cases.get(domain, 0)),
                *(
                    _cell(row.get(p, empty), skipped_whole(summary["platforms"].get(p, {}), domain))
                    for p in platforms
                ),
            ]
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _group_by_value(
    diffs: Sequence[Mapping[str, Any]],
) -> list[tuple[Mapping[str, Any], list[str | None]]]:
    """The same difference on several chunkings is shown once, listing the chunkings."""
    groups: dict[str, tuple[Mapping[str, Any], list[str | None]]] = {}
    for d in diffs:
        key = json.dumps(
            [d["pointer"], d.get("expected"), d.get("actual"), "expected" in d, "actual" in d]
        )
        groups.setdefault(key, (d, []))[1].append(d.get("variant"))
    return list(groups.values())


def _group_schema_errors(
    errors: Sequence[Mapping[str, Any]],
) -> list[tuple[Mapping[str, Any], list[str | None]]]:
    """The same schema violation on several chunkings is shown once, like a difference."""
    groups: dict[tuple[str, str], tuple[Mapping[str, Any], list[str | None]]] = {}
    for s in errors:
        groups.setdefault((s["pointer"], s["message"]), (s, []))[1].append(s.get("variant"))
    return list(groups.values())


def _chunkings(variants: list[str | None]) -> str:
    named = [v for v in variants if v is not None]
    if not named:
        return ""
    listed = ", ".join(named[:4]) + (", …" if len(named) > 4 else "")
    if None in variants:
        return f"  [original and {len(named)} chunking{'s' if len(named) > 1 else ''}: {listed}]"
    return f"  [chunking{'s' if len(named) > 1 else ''} {listed}]"


def render_problem(
    result: Mapping[str, Any],
    case_input: Any = None,
    limit: int = 20,
    case_info: Mapping[str, Any] | None = None,
    marked: Sequence[str] = (),
) -> str:
    """One failing or erroring result: the case, why it exists, its input, each difference.

    ``marked``: a line per marker of the case's clauses (``ClauseMarks.notes``: bounded
    and escaped already), so a divergence on a clause that departs from HIP-301 says
    so, and why. Every value is
    bounded and has its invisible characters escaped (``_textsafe``).
    """
    head = f"{result['status'].upper()} {result['domain']}::{result['case']} [{result['platform']}]"
    lines = [head]
    info = case_info or {}
    if info.get("description"):
        lines.append(f"  why: {bound(info['description'])}")
    if info.get("clauses"):
        lines.append(f"  clauses: {', '.join(info['clauses'])}")
    lines.extend(f"  {note}" for note in marked)
    if case_input is None:
        case_input = info.get("input")
    if case_input is not None:
        lines.append(f"  input: {shown(case_input)}")
    if result.get("message"):
        lines.append(f"  {bound(result['message'])}")
    if result.get("absent"):
        lines.append(f"  not compared (declared absent): {skips.fields_text(result['absent'])}")
    if result["status"] == "partial":
        lines.append(
            "  the fields it has match; a partial answer is never a pass "
            '(an expectations ledger can record it: fails {"absent": [...]})'
        )
    groups = _group_by_value(result.get("diff", []))
    for d, variants in groups[:limit]:
        where = bound(d["pointer"] or "(whole output)", 200) + _chunkings(variants)
        expected = shown(d["expected"]) if "expected" in d else "(absent)"
        actual = shown(d["actual"]) if "actual" in d else "(absent)"
        lines.append(f"  {where}: expected {expected}, actual {actual}")
    if len(groups) > limit:
        lines.append(f"  … and {len(groups) - limit} more differences")
    schema_groups = _group_schema_errors(result.get("schema_errors", []))
    for s, variants in schema_groups[:limit]:
        where = bound(s["pointer"] or "(root)", 200)
        message = bound(s["message"])
        lines.append(f"  {violation_kind(s)}: {where}: {message}{_chunkings(variants)}")
    if len(schema_groups) > limit:
        lines.append(f"  … and {len(schema_groups) - limit} more schema violations")
    if result.get("detail"):
        tail = result["detail"].rstrip().splitlines()[-15:]
        lines.append("  detail:")
        lines.extend("    " + bound(line) for line in tail)
    return "\n".join(lines)


def _platform_messages(summary: Mapping[str, Any]) -> dict[tuple[str, str], str]:
    """(platform, message) -> why: the messages a platform gives many cases at once."""
    shared = {}
    for name, info in summary["platforms"].items():
        if info.get("failure"):
            shared[(name, info["failure"])] = "unavailable"
        if info.get("broken"):
            shared[(name, info["broken"])] = "broken"
    return shared


def _render_shared(platform: str, message: str, count: int, names: Sequence[str]) -> str:
    """Cases that failed for one platform-level reason: one block, not one per case."""
    listed = ", ".join(names[:5]) + (f", … ({count - 5} more)" if count > 5 else "")
    return f"ERROR {count} case(s) [{platform}]\n  {bound(message)}\n  cases: {listed}"


class Problems:
    """The text report's failure blocks, built one result at a time.

    Errors a platform gave many cases at once (``shared(platform, message)``: it did
    not start, it was declared broken) make one block each, counted; every other
    failure is a block of its own. The first ``keep`` blocks are kept (None: all); with a
    ``sink``, every block is also written there (a full report of any size). With
    ``marks``, a block shows the markers of its case's clauses.
    """

    def __init__(
        self,
        shared: Callable[[str, str], bool],
        keep: int | None,
        sink: IO[str] | None = None,
        marks: ClauseMarks | None = None,
    ) -> None:
        self.shared = shared
        self.keep = keep
        self.sink = sink
        self.marks = marks
        self.count = 0
        self.kept: list[str] = []
        self.groups: dict[tuple[str, str], tuple[list[int], list[str]]] = {}

    def add(self, r: Mapping[str, Any], info: Mapping[str, Any] | None) -> None:
        status = r["status"]
        if status != "fail" and status != "error":
            return
        platform = r["platform"]
        message = r.get("message", "")
        if status == "error" and self.shared(platform, message):
            count, names = self.groups.setdefault((platform, message), ([0], []))
            count[0] += 1
            if len(names) < 5:
                names.append(f"{r['domain']}::{r['case']}")
            return
        self.count += 1
        wanted = self.keep is None or len(self.kept) < self.keep
        if wanted or self.sink is not None:
            marked: Sequence[str] = ()
            if self.marks is not None and info is not None:
                marked = self.marks.notes(r["domain"], info.get("clauses", ()))
            text = render_problem(r, r.get("input"), case_info=info, marked=marked)
            if wanted:
                self.kept.append(text)
            if self.sink is not None:
                self.sink.write(text + "\n\n")

    def shared_blocks(self) -> list[str]:
        return [
            _render_shared(platform, message, count[0], names)
            for (platform, message), (count, names) in self.groups.items()
        ]


def shared_messages(summary: Mapping[str, Any]) -> Callable[[str, str], bool]:
    found = _platform_messages(summary)
    return lambda platform, message: (platform, message) in found


def _render_platform(name: str, info: Mapping[str, Any]) -> list[str]:
    """The platform's line, then what went wrong with it as a whole (bounded, escaped)."""
    if "failure" in info:
        lines = [f"  {name}: UNAVAILABLE: {bound(info['failure'])}"]
        if info.get("detail"):
            lines.append("    stderr:")
            lines.extend(
                "      " + bound(line) for line in info["detail"].rstrip().splitlines()[-15:]
            )
        return lines
    lines = [
        f"  {name}: {bound(info['implementation'], 200)} {bound(info['version'], 200)}"
        f" ({bound(info['language'], 200)})"
        + (f" commit {bound(info['commit'], 200)}" if info.get("commit") else "")
    ]
    if info.get("broken"):
        lines.append(f"    BROKEN: {bound(info['broken'])}")
    for p in info.get("problems", []):
        lines.append(f"    PROBLEM ({bound(p['kind'], 200)}): {bound(p['message'])}")
        lines.extend("      " + bound(line) for line in p.get("detail", "").splitlines()[:5])
    return lines


def render_text(
    doc: Mapping[str, Any], max_problems: int | None = 50, rest: str = "see the full report"
) -> str:
    """The text report; ``max_problems`` None: every problem, cluster, skip and partial
    group (a report written to a file), else a bounded view whose cuts say ``rest`` (how
    to see them)."""
    summary = doc["summary"]
    cases = doc.get("cases", {})
    marks = ClauseMarks.from_summary(summary)
    causes = ClusterTally(keep=3)
    touched = MarkTally(marks)
    problems = Problems(shared_messages(summary), max_problems, marks=marks)
    for r in doc["results"]:
        if r["status"] in ("pass", "skip", "not_run"):
            continue
        info = cases.get(case_key(r["domain"], r["case"]))
        clauses = (info or {}).get("clauses", ())
        causes.add(r, clauses, info)
        touched.add(r, clauses)
        problems.add(r, info)
    head, tail = text_report(
        summary, causes.clusters(), problems, max_problems, touched, rest, skips.groups(doc)
    )
    return "\n\n".join([*head, *problems.kept, *tail])


def text_report(
    summary: Mapping[str, Any],
    causes: Sequence[Any],
    problems: Problems,
    max_problems: int | None,
    marks: MarkTally | None = None,
    rest: str = "see the full report",
    incomplete: Mapping[str, Any] | None = None,
) -> tuple[list[str], list[str]]:
    """The text report around its failure blocks: (what comes before them, what after).

    ``max_problems`` None is the full report (every cluster, skip and partial group too);
    otherwise the view is bounded and each cut says ``rest``. Clusters touching a
    security-relevant clause (``marks``) come first, are never cut, and the verdict line
    names them. ``incomplete``: the skip and partial groups (``skips.groups``; default
    the summary's)."""
    head = []
    ordered = marks.ordered(causes) if marks is not None else list(causes)
    limit = None if max_problems is None else CLUSTERS_SHOWN
    by_cause = render_clusters(ordered, limit, marks, rest)
    if by_cause:
        head.append(by_cause)
    head.extend(problems.shared_blocks())
    tail = []
    if max_problems is not None and problems.count > max_problems:
        tail.append(f"… {problems.count - max_problems} more problems ({rest})")
    tail.append(render_table({"summary": summary}))
    found = incomplete if incomplete is not None else skips.groups({"summary": summary})
    tail.extend(skips.render_text(found, None if max_problems is None else skips.SHOWN))
    platform_lines = [
        line for name, info in summary["platforms"].items() for line in _render_platform(name, info)
    ]
    if platform_lines:
        tail.append("platforms:\n" + "\n".join(platform_lines))
    tail.extend(_gate_sections({"summary": summary}))
    unfinished = summary.get("not_run", 0)
    verdict = "INTERRUPTED" if unfinished else "DIVERGED" if summary["diverged"] else "OK"
    if verdict == "OK" and summary.get("expectations", {}).get("problems"):
        verdict = "GATE FAILED"
    if verdict == "OK" and summary.get("partial_unrecorded"):
        verdict = "PARTIAL"  # fields not compared that no ledger records: not a green gate
    xfail = f", {summary['xfail']} xfail" if summary.get("xfail") else ""
    partial = f", {summary['partial']} partial" if summary.get("partial") else ""
    tail.append(
        f"{verdict}: {summary['total']} results: {summary['pass']} pass{partial}, "
        f"{summary['fail']} fail, {summary['error']} error, {summary['skip']} skip{xfail}"
        + (f", {unfinished} not run" if unfinished else "")
        + (marks.verdict_note(ordered) if marks is not None else "")
    )
    return head, tail


def _gate_sections(doc: Mapping[str, Any]) -> list[str]:
    """Ledger problems, triage suspects and what the run can be reproduced from."""
    summary = doc["summary"]
    parts = []
    problems = summary.get("expectations", {}).get("problems", [])
    if problems:
        lines = [f"expectations: {len(problems)} problem{'s' if len(problems) != 1 else ''}"]
        lines.extend(f"  {p['kind'].upper()}: {bound(p['message'], 600)}" for p in problems)
        if any(p["kind"] in ("stale", "changed") for p in problems):
            lines.append(
                "  (`hanzo-conformance expectations --update LEDGER --results RESULTS.json` "
                "rewrites a ledger from a run's results, keeping the reviews that still hold)"
            )
        parts.append("\n".join(lines))
    suspects = summary.get("triage", [])
    if suspects:
        lines = ["triage (every other platform agrees; suspect the vector or the reference):"]
        lines.extend(f"  {s['domain']}::{s['case']}: {bound(s['message'], 400)}" for s in suspects)
        parts.append("\n".join(lines))
    run = summary.get("run")
    if run:
        vectors = run["vectors"]
        line = f"vectors {vectors['version']}"
        if vectors.get("commit"):
            line += f" (commit {vectors['commit']})"
        parts.append(line + f", harness {run['harness'].get('version', '?')}")
        if run.get("isolation"):
            parts.append(f"isolation: {bound(run['isolation'], 400)}")
    return parts
