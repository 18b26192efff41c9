"""What clause markers cost the reports: 20,000 failing results (with their cluster ids,
as a results file has them) whose cases cite three marked clauses, rendered with and
without ``summary.marked_clauses``.

    .venv/bin/python bench/report_marks.py [RESULTS]

Times the full text report (a file), the bounded text view and the bounded Markdown
view, best of three each.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any

from runners.judge.clusters import annotate_result
from runners.reports.markdown import render_markdown
from runners.reports.text import document, render_text
from runners.vectors.clauses import marked_clauses


def failing_document(n: int) -> dict[str, Any]:
    domain = "session-compaction"
    platforms = {"p": {"implementation": "p", "version": "1", "language": "x", "domains": [domain]}}
    results, cases = [], {}
    for i in range(n):
        cases[f"{domain}::c{i}"] = {
            "description": "d",
            "clauses": ["COMP-12", "COMP-9", "COMP-7"],
            "tags": [],
            "input": {},
            "expected": {},
        }
        results.append(
            {
                "domain": domain,
                "case": f"c{i}",
                "case_hash": "0" * 64,
                "platform": "p",
                "status": "fail",
                "diff": [{"pointer": f"/messages/{i % 5}/role", "expected": "user", "actual": "x"}],
            }
        )
    for r in results:  # as a results file has them
        annotate_result(r)
    return document(results, platforms, cases)


def best(f: Callable[[], object]) -> float:
    times = []
    for _ in range(3):
        start = time.perf_counter()
        f()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 20_000
    doc = failing_document(n)
    for label, marked in (("without", {}), ("with", marked_clauses(["session-compaction"]))):
        doc["summary"]["marked_clauses"] = marked
        text_full = best(lambda: render_text(doc, None))
        text_bounded = best(lambda: render_text(doc, 50))
        markdown = best(lambda: render_markdown(doc))
        print(
            f"{label} markers: text full {text_full:.2f}s, text bounded {text_bounded:.2f}s, "
            f"markdown bounded {markdown:.2f}s"
        )


if __name__ == "__main__":
    main()
