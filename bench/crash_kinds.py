"""CPU per crashing result of clustering it (ClusterTally.add + annotate_result).

    .venv/bin/python bench/crash_kinds.py [REPO]

REPO (default: this checkout) is the tree whose ``runners`` is measured, e.g. main
exported with ``git archive`` into a temp dir, to compare old and new in pairs.
"same": 100,000 crashes with one message (a platform that did not start); "distinct":
100,000 ``UnicodeDecodeError`` reprs, each with its own bytes and positions.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent)
sys.path.insert(0, str(ROOT))

from runners.judge.clusters import ClusterTally, annotate_result  # noqa: E402

COUNT = 100_000


def results(kind: str) -> Iterator[dict[str, Any]]:
    for i in range(COUNT):
        if kind == "same":
            platform, message = "gone", "gone did not start: cannot run worker ['x']: [Errno 2]"
        else:
            platform = "hz"
            message = f"hz crashed: UnicodeDecodeError('utf-8', b'\\x{i % 256:02x}', {i}, {i + 1})"
        yield {
            "domain": "sse-frames",
            "case": f"c{i}",
            "platform": platform,
            "status": "error",
            "message": message,
            "detail": "Traceback ...",
        }


def main() -> None:
    for kind in ("same", "distinct"):
        batch = list(results(kind))
        start = time.process_time()
        tally = ClusterTally(keep=3)
        for r in batch:
            tally.add(r)
            annotate_result(r)
        per = (time.process_time() - start) * 1e6 / COUNT
        print(f"{kind}: {per:.2f} us CPU per crashing result, {len(tally.clusters())} cluster(s)")


if __name__ == "__main__":
    main()
