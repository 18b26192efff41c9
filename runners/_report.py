"""Summaries and renderings of a run, computed from its JSON results.

Everything here works on the JSON document a run writes
(``{"summary": ..., "results": [...]}``), so a saved run renders the same as a live one.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

STATUSES = ("pass", "fail", "error", "skip", "not_run")


def summarize(
    results: Sequence[Mapping[str, Any]], platforms: Mapping[str, Mapping[str, Any]]
) -> dict[str, Any]:
    totals = Counter(r["status"] for r in results)
    cells: dict[str, dict[str, Counter[str]]] = defaultdict(lambda: defaultdict(Counter))
    for r in results:
        cells[r["domain"]][r["platform"]][r["status"]] += 1
    return {
        "total": len(results),
        **{s: totals.get(s, 0) for s in STATUSES},
        "diverged": totals.get("fail", 0) + totals.get("error", 0) > 0,
        "platforms": dict(platforms),
        "matrix": {
            domain: {
                platform: {s: c.get(s, 0) for s in STATUSES} for platform, c in by_platform.items()
            }
            for domain, by_platform in cells.items()
        },
    }


def document(
    results: Sequence[Mapping[str, Any]], platforms: Mapping[str, Mapping[str, Any]]
) -> dict[str, Any]:
    return {"summary": summarize(results, platforms), "results": list(results)}


def _cell(counts: Mapping[str, int]) -> str:
    ran = counts["pass"] + counts["fail"] + counts["error"]
    unfinished = counts.get("not_run", 0)
    if ran == 0 and counts["skip"] and not unfinished:
        return "not implemented"
    text = f"{counts['pass']}/{ran + counts['skip'] + unfinished}"
    bad = [f"{counts.get(s, 0)} {s}" for s in ("fail", "error", "skip", "not_run") if counts.get(s)]
    return text + (" (" + ", ".join(bad) + ")" if bad else " ok")


def render_table(doc: Mapping[str, Any]) -> str:
    summary = doc["summary"]
    matrix = summary["matrix"]
    platforms = list(summary["platforms"]) or sorted({p for row in matrix.values() for p in row})
    cases = (
        Counter(r["domain"] for r in doc["results"] if r["platform"] == platforms[0])
        if platforms
        else {}
    )
    header = ["domain", "cases", *platforms]
    rows = [header]
    for domain, row in matrix.items():
        empty: dict[str, int] = dict.fromkeys(STATUSES, 0)
        rows.append(
            [domain, str(cases.get(domain, 0)), *(_cell(row.get(p, empty)) for p in platforms)]
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _short(value: Any, limit: int = 160) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"


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


def _chunkings(variants: list[str | None]) -> str:
    named = [v for v in variants if v is not None]
    if not named:
        return ""
    listed = ", ".join(named[:4]) + (", …" if len(named) > 4 else "")
    if None in variants:
        return f"  [original and {len(named)} chunking{'s' if len(named) > 1 else ''}: {listed}]"
    return f"  [chunking{'s' if len(named) > 1 else ''} {listed}]"


def render_problem(result: Mapping[str, Any], case_input: Any = None, limit: int = 20) -> str:
    """One failing or erroring result: the case, the input, and each differing pointer."""
    head = f"{result['status'].upper()} {result['domain']}::{result['case']} [{result['platform']}]"
    lines = [head]
    if case_input is not None:
        lines.append(f"  input: {_short(case_input, 400)}")
    if result.get("message"):
        lines.append(f"  {result['message']}")
    groups = _group_by_value(result.get("diff", []))
    for d, variants in groups[:limit]:
        where = (d["pointer"] or "(whole output)") + _chunkings(variants)
        expected = _short(d["expected"]) if "expected" in d else "(absent)"
        actual = _short(d["actual"]) if "actual" in d else "(absent)"
        lines.append(f"  {where}: expected {expected}, actual {actual}")
    if len(groups) > limit:
        lines.append(f"  … and {len(groups) - limit} more differences")
    for s in result.get("schema_errors", [])[:limit]:
        suffix = f"  [chunking {s['variant']}]" if "variant" in s else ""
        lines.append(f"  output schema: {s['pointer'] or '(root)'}: {s['message']}{suffix}")
    if result.get("detail"):
        tail = result["detail"].rstrip().splitlines()[-15:]
        lines.append("  detail:")
        lines.extend("    " + line for line in tail)
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


def _render_shared(platform: str, message: str, results: Sequence[Mapping[str, Any]]) -> str:
    """Cases that failed for one platform-level reason: one block, not one per case."""
    names = [f"{r['domain']}::{r['case']}" for r in results]
    listed = ", ".join(names[:5]) + (f", … ({len(names) - 5} more)" if len(names) > 5 else "")
    return f"ERROR {len(results)} case(s) [{platform}]\n  {message}\n  cases: {listed}"


def _render_platform(name: str, info: Mapping[str, Any]) -> list[str]:
    if "failure" in info:
        lines = [f"  {name}: UNAVAILABLE: {info['failure']}"]
        if info.get("detail"):
            lines.append("    stderr:")
            lines.extend("      " + line for line in info["detail"].rstrip().splitlines()[-15:])
        return lines
    lines = [f"  {name}: {info['implementation']} {info['version']} ({info['language']})"]
    if info.get("broken"):
        lines.append(f"    BROKEN: {info['broken']}")
    for p in info.get("problems", []):
        lines.append(f"    PROBLEM ({p['kind']}): {p['message']}")
        lines.extend("      " + line for line in p.get("detail", "").splitlines()[:5])
    return lines


def render_text(doc: Mapping[str, Any], max_problems: int = 50) -> str:
    summary = doc["summary"]
    shared_messages = _platform_messages(summary)
    shared: dict[tuple[str, str], list[Mapping[str, Any]]] = defaultdict(list)
    problems = []
    for r in doc["results"]:
        if r["status"] not in ("fail", "error"):
            continue
        key = (r["platform"], r.get("message", ""))
        if r["status"] == "error" and key in shared_messages:
            shared[key].append(r)
        else:
            problems.append(r)
    parts = [_render_shared(p, m, rs) for (p, m), rs in shared.items()]
    for r in problems[:max_problems]:
        parts.append(render_problem(r, r.get("input")))
    if len(problems) > max_problems:
        parts.append(f"… {len(problems) - max_problems} more problems (see --format json)")
    parts.append(render_table(doc))
    platform_lines = [
        line for name, info in summary["platforms"].items() for line in _render_platform(name, info)
    ]
    if platform_lines:
        parts.append("platforms:\n" + "\n".join(platform_lines))
    unfinished = summary.get("not_run", 0)
    verdict = "INTERRUPTED" if unfinished else "DIVERGED" if summary["diverged"] else "OK"
    parts.append(
        f"{verdict}: {summary['total']} results: {summary['pass']} pass, {summary['fail']} fail, "
        f"{summary['error']} error, {summary['skip']} skip"
        + (f", {unfinished} not run" if unfinished else "")
    )
    return "\n\n".join(parts)
