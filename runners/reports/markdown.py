"""The Markdown report: parity matrix, causes, then every divergence with its diff.

Fit for a pull-request comment and for ``$GITHUB_STEP_SUMMARY`` (which takes at
most 1 MiB): values are bounded like the text report's, and in the bounded view
(stdout) past ``MAX_DIVERGENCES_SHOWN`` divergences the rest are counted, not shown;
a report written to a file (``--output``) has every one. Clusters touching a
security-relevant clause come first and are never cut (``runners/judge/marks.py``).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from typing import Any

from .._textsafe import bound, shown
from ..judge.clusters import Cluster, clusters
from ..judge.keys import case_key, violation_kind
from ..judge.marks import ClauseMarks, MarkTally, tally_of
from . import skips
from .text import (
    STATUSES,
    _chunkings,
    _group_by_value,
    skipped_whole,
)

MAX_DIVERGENCES_SHOWN = 200
_ICON = {
    "pass": "✅",
    "partial": "🧩",
    "fail": "❌",
    "error": "💥",
    "xfail": "🟡",
    "skip": "⏭️",
    "not_run": "⏸️",
}


def _cell(counts: Mapping[str, int], whole_skip: str) -> str:
    ran = sum(counts.get(s, 0) for s in ("pass", "partial", "fail", "error", "xfail"))
    if ran == 0 and counts.get("skip") and not counts.get("not_run"):
        return f"⏭️ {whole_skip}"
    parts = [f"{_ICON[s]} {counts[s]} {s}" for s in STATUSES if counts.get(s)]
    return " · ".join(parts) or "-"


def _escape(text: str, limit: int = 300) -> str:
    """Text safe inside a Markdown table cell or heading."""
    return bound(text, limit).replace("|", "\\|").replace("\n", " ").replace("<", "&lt;")


def _code(text: str) -> str:
    """``text`` as an inline code span: fenced by more backticks than its longest run
    of them (CommonMark), so a name holding one cannot end the span early."""
    text = bound(text, 300).replace("\n", " ")
    ticks = "`" * (max((len(run) for run in re.findall("`+", text)), default=0) + 1)
    pad = " " if text[:1] == "`" or text[-1:] == "`" else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def _fence(text: str) -> str:
    return "```\n" + text.replace("```", "`\u200b``") + "\n```"


def render_markdown(
    doc: Mapping[str, Any], bounded: bool = True, rest: str = "see the JSON results"
) -> str:
    """The report; ``bounded`` (stdout, a step summary): past ``MAX_DIVERGENCES_SHOWN``
    divergences the rest are counted, and ``rest`` says how to see them."""
    summary = doc["summary"]
    platforms = list(summary["platforms"])
    problems = summary.get("expectations", {}).get("problems", [])
    verdict = "❌ diverged" if summary["diverged"] else "✅ ok"
    if not summary["diverged"] and problems:
        verdict = "❌ gate failed (expectations)"
    if verdict == "✅ ok" and summary.get("partial_unrecorded"):
        verdict = "❌ partial answers no ledger records"
    if summary.get("not_run"):
        verdict = "⏸️ interrupted"
    out = [
        "# hanzo-conformance parity report",
        "",
        f"**{verdict}**: {summary['total']} results: "
        + ", ".join(f"{summary.get(s, 0)} {s}" for s in STATUSES),
        "",
    ]
    run = summary.get("run")
    if run:
        commit = f", commit `{run['vectors']['commit']}`" if run["vectors"].get("commit") else ""
        out += [f"Vectors version `{run['vectors']['version']}`{commit}.", ""]
        if run.get("isolation"):
            out += [f"Isolation: {_escape(run['isolation'])}.", ""]
    out += ["| platform | implementation | version | commit |", "|---|---|---|---|"]
    for name, info in summary["platforms"].items():
        if "failure" in info:
            out.append(f"| {_escape(name)} | unavailable: {_escape(info['failure'])} | | |")
        else:
            out.append(
                f"| {_escape(name)} | {_escape(info['implementation'])} | "
                f"{_escape(info['version'])} | {_escape(info.get('commit', ''))} |"
            )
    out += _platform_problems(summary["platforms"])
    out += ["", "## Matrix", "", "| domain | " + " | ".join(map(_escape, platforms)) + " |"]
    out.append("|---|" + "---|" * len(platforms))
    for domain, row in summary["matrix"].items():
        out.append(
            f"| {_escape(domain)} | "
            + " | ".join(
                _cell(row.get(p, {}), skipped_whole(summary["platforms"].get(p, {}), domain))
                for p in platforms
            )
            + " |"
        )
    out.append("")
    if problems:
        out += ["## Expectations ledger problems", ""]
        out += [f"- **{_escape(p['kind'])}**: {_escape(p['message'])}" for p in problems]
        out.append("")
    if summary.get("triage"):
        out += ["## Triage: suspect the vector or the reference", ""]
        out += [
            f"- {_code(case_key(t['domain'], t['case']))}: {_escape(t['message'])}"
            for t in summary["triage"]
        ]
        out.append("")
    marks = ClauseMarks.from_summary(summary)
    touched = tally_of(doc["results"], doc.get("cases"), marks)
    found = touched.ordered(clusters(doc["results"], doc.get("cases")))
    out += _security(found, touched)
    if found:
        out += [
            "## Divergences by cause",
            "",
            "| platform | cases | where | kind | clauses | e.g. |",
        ]
        out.append("|---|---|---|---|---|---|")
        for c in found:
            security = touched.security(c)
            flag = f"🔒 security ({', '.join(security)}): " if security else ""
            others = sorted(c.other_clauses)
            also = f" (also cited by some cases: {', '.join(others)})" if others else ""
            out.append(
                f"| {_escape(c.platform)} | {c.size} | `{_escape(c.pattern or '(whole)')}` "
                f"| {flag}{_escape(c.kind)} | {_escape(', '.join(sorted(c.clauses)) + also)} "
                f"| {_escape(', '.join(c.cases[:3]))} |"
            )
        out.append("")
        out += _reproducers(found)
    out += _incomplete(skips.groups(doc))
    out += _divergences(doc, marks, touched, bounded, rest)
    return "\n".join(out).rstrip() + "\n"


def _security(found: list[Any], touched: MarkTally) -> list[str]:
    """The clusters touching a security-relevant clause, each with why (never cut)."""
    named = [c for c in found if touched.security(c)]
    if not named:
        return []
    out = ["## Security-relevant divergences", ""]
    for c in named:
        ledgered = " (all xfail)" if c.expected == c.size else ""
        out.append(
            f"- **{_escape(c.platform)}** `{c.id}`: {c.size} case{'s' if c.size != 1 else ''}"
            f"{ledgered}, `{_escape(c.pattern or '(whole)')}` {_escape(c.kind)}"
        )
        out += [f"  - {_escape(note, 800)}" for note in touched.notes(c)]
    out.append("")
    return out


def _incomplete(found: Mapping[str, Any]) -> list[str]:
    """Skip reasons and partial answers, grouped: every group (they are few)."""
    out: list[str] = []
    if found.get("skips"):
        out += ["## Skipped, by reason", "", "| platform | domain | cases | reason | e.g. |"]
        out.append("|---|---|---|---|---|")
        out += [
            f"| {_escape(g['platform'])} | {_escape(g['domain'])} | {g['count']} "
            f"| {_escape(g['reason'])} | {_escape(', '.join(g['cases']))} |"
            for g in found["skips"]
        ]
        out.append("")
    if found.get("partials"):
        out += [
            "## Partial answers",
            "",
            "The platform declared these output fields absent: the rest of each output was "
            "compared and matched; a partial answer is never a pass.",
            "",
            "| platform | domain | cases | not compared | e.g. |",
            "|---|---|---|---|---|",
        ]
        out += [
            f"| {_escape(g['platform'])} | {_escape(g['domain'])} | {g['count']} "
            f"| {_escape(skips.fields_text(g['absent']))} | {_escape(', '.join(g['cases']))} |"
            for g in found["partials"]
        ]
        out.append("")
    return out


# Each part of a cluster's reproducer is bounded like the report's other values.
MAX_REPRODUCER_CHARS = 600


def _fenced(text: str) -> list[str]:
    """``text`` as a fenced code block longer than any backtick run inside it."""
    fence = "`" * max(3, max((len(run) for run in re.findall("`+", text)), default=0) + 1)
    return [fence + "json", text, fence]


def _reproducers(found: Sequence[Cluster]) -> list[str]:
    """Each cluster's smallest case: its input, expected and actual answer."""
    out = []
    for c in found:
        r = c.reproducer
        if r is None:
            continue
        head = f"{c.platform}: {c.pattern or '(whole output)'}: {c.kind}"
        out += [
            f"<details><summary>[{c.id}] {_escape(head)}: smallest case "
            f"{_escape(r['case'])}</summary>",
            "",
        ]
        for part in ("input", "expected", "actual"):
            if part in r:
                out += [f"{part}:", "", *_fenced(shown(r[part], MAX_REPRODUCER_CHARS)), ""]
        out += ["</details>", ""]
    return ["### Smallest case of each cause", "", *out] if out else []


def _platform_problems(platforms: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """What went wrong with a platform as a whole: the cutoff and protocol problems."""
    lines = []
    for name, info in platforms.items():
        if info.get("broken"):
            lines.append(f"- **{_escape(name)}** broken: {_escape(info['broken'])}")
        for p in info.get("problems", []):
            lines.append(f"- **{_escape(name)}** {_escape(p['kind'])}: {_escape(p['message'])}")
    return ["", "## Platform problems", "", *lines] if lines else []


def _divergences(
    doc: Mapping[str, Any], marks: ClauseMarks, touched: MarkTally, bounded: bool, rest: str
) -> list[str]:
    bad = [r for r in doc["results"] if r["status"] in ("fail", "error", "xfail")]
    if not bad:
        return []
    cases = doc.get("cases", {})

    def clauses_of(r: Mapping[str, Any]) -> Any:
        return cases.get(case_key(r["domain"], r["case"]), {}).get("clauses", ())

    # Divergences on a security-relevant clause first, so a bounded view keeps them.
    bad.sort(key=lambda r: not marks.security(r["domain"], clauses_of(r)))
    escaped = functools.lru_cache(maxsize=1024)(lambda note: _escape(note, 800))
    out = ["## Divergences", ""]
    for r in bad[:MAX_DIVERGENCES_SHOWN] if bounded else bad:
        info = cases.get(case_key(r["domain"], r["case"]), {})
        where = f"{_code(case_key(r['domain'], r['case']))} [{r['platform']}]"
        title = f"{_ICON[r['status']]} {r['status']} {where}"
        out += ["<details>", f"<summary>{_escape(title)}</summary>", ""]
        if info.get("description"):
            out.append(f"{_escape(info['description'])} (clauses: {', '.join(info['clauses'])})")
            out.append("")
        notes = marks.notes(r["domain"], info.get("clauses", ()))
        if notes:
            out += [f"- {escaped(note)}" for note in notes] + [""]
        if r.get("expectation"):
            out += [f"Expected by the ledger: {_escape(r['expectation']['reason'])}", ""]
        if "input" in info:
            out += ["Input:", "", _fence(shown(info["input"])), ""]
        lines = []
        if r.get("message"):
            lines.append(bound(r["message"]))
        for d, variants in _group_by_value(r.get("diff", ()))[:50]:
            where = d["pointer"] or "(whole output)"
            lines.append(f"@ {where}{_chunkings(variants)}")
            lines.append("- " + (shown(d["expected"]) if "expected" in d else "(absent)"))
            lines.append("+ " + (shown(d["actual"]) if "actual" in d else "(absent)"))
        for s in r.get("schema_errors", ())[:20]:
            kind = violation_kind(s)
            lines.append(f"! {kind} {s['pointer'] or '(root)'}: {bound(s['message'])}")
        safe = [line.replace("```", "`\u200b``") for line in lines]
        out += ["```diff", *safe, "```", "", "</details>", ""]
    if bounded and len(bad) > MAX_DIVERGENCES_SHOWN:
        more = len(bad) - MAX_DIVERGENCES_SHOWN
        out.append(f"… and {more} more divergences: {_escape(rest)}, or see the HTML report.")
    return out
