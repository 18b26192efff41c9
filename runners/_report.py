"""Summaries and renderings of a run, computed from its JSON results.

Everything here works on the JSON document a run writes
(``{"summary": ..., "results": [...]}``), so a saved run renders the same as a live one.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

STATUSES = ("pass", "fail", "error", "skip")


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
            domain: {platform: {s: c.get(s, 0) for s in STATUSES} for platform, c in by_platform.items()}
            for domain, by_platform in cells.items()
        },
    }


def document(results: Sequence[Mapping[str, Any]], platforms: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    return {"summary": summarize(results, platforms), "results": list(results)}


def _cell(counts: Mapping[str, int]) -> str:
    ran = counts["pass"] + counts["fail"] + counts["error"]
    if ran == 0 and counts["skip"]:
        return "not implemented"
    text = f"{counts['pass']}/{ran + counts['skip']}"
    bad = [f"{counts[s]} {s}" for s in ("fail", "error", "skip") if counts[s]]
    return text + (" (" + ", ".join(bad) + ")" if bad else " ok")


def render_table(doc: Mapping[str, Any]) -> str:
    summary = doc["summary"]
    matrix = summary["matrix"]
    platforms = list(summary["platforms"]) or sorted({p for row in matrix.values() for p in row})
    cases = Counter(r["domain"] for r in doc["results"] if r["platform"] == platforms[0]) if platforms else {}
    header = ["domain", "cases", *platforms]
    rows = [header]
    for domain, row in matrix.items():
        empty = dict.fromkeys(STATUSES, 0)
        rows.append([domain, str(cases.get(domain, 0)), *(_cell(row.get(p, empty)) for p in platforms)])
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _short(value: Any, limit: int = 160) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def render_problem(result: Mapping[str, Any], case_input: Any = None, limit: int = 20) -> str:
    """One failing or erroring result: the case, the input, and each differing pointer."""
    head = f"{result['status'].upper()} {result['domain']}::{result['case']} [{result['platform']}]"
    lines = [head]
    if case_input is not None:
        lines.append(f"  input: {_short(case_input, 400)}")
    if result.get("message"):
        lines.append(f"  {result['message']}")
    for d in result.get("diff", [])[:limit]:
        where = d["pointer"] or "(whole output)"
        if "variant" in d:
            where += f"  [chunking {d['variant']}]"
        expected = _short(d["expected"]) if "expected" in d else "(absent)"
        actual = _short(d["actual"]) if "actual" in d else "(absent)"
        lines.append(f"  {where}: expected {expected}, actual {actual}")
    hidden = len(result.get("diff", [])) - limit
    if hidden > 0:
        lines.append(f"  … and {hidden} more differences")
    for s in result.get("schema_errors", [])[:limit]:
        suffix = f"  [chunking {s['variant']}]" if "variant" in s else ""
        lines.append(f"  output schema: {s['pointer'] or '(root)'}: {s['message']}{suffix}")
    if result.get("detail"):
        tail = result["detail"].rstrip().splitlines()[-15:]
        lines.append("  detail:")
        lines.extend("    " + line for line in tail)
    return "\n".join(lines)


def render_text(doc: Mapping[str, Any], inputs: Mapping[tuple[str, str], Any] | None = None,
                max_problems: int = 50) -> str:
    summary = doc["summary"]
    problems = [r for r in doc["results"] if r["status"] in ("fail", "error")]
    parts = []
    for r in problems[:max_problems]:
        parts.append(render_problem(r, (inputs or {}).get((r["domain"], r["case"]))))
    if len(problems) > max_problems:
        parts.append(f"… {len(problems) - max_problems} more problems (see --format json)")
    parts.append(render_table(doc))
    platform_lines = [
        f"  {name}: {info.get('implementation', '?')} {info.get('version', '')} ({info.get('language', '')})"
        if "failure" not in info else f"  {name}: UNAVAILABLE: {info['failure']}"
        for name, info in summary["platforms"].items()
    ]
    if platform_lines:
        parts.append("platforms:\n" + "\n".join(platform_lines))
    verdict = "DIVERGED" if summary["diverged"] else "OK"
    parts.append(
        f"{verdict}: {summary['total']} results: {summary['pass']} pass, {summary['fail']} fail, "
        f"{summary['error']} error, {summary['skip']} skip"
    )
    return "\n\n".join(parts)


def case_inputs(files: Iterable[Any]) -> dict[tuple[str, str], Any]:
    return {(vf.domain, c.id): c.input for vf in files for c in vf.cases}
