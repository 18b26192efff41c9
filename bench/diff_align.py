"""What naming a failing result's differences costs when its arrays are aligned.

    python3 bench/diff_align.py [--frames 50 200 500 5000] [--repeat 5]

Per frame count N, the best of ``--repeat`` timings of ``runners.judge.compare.diff(...,
align=True)`` on sse-frames-like outputs (four-member frames): one frame dropped from
the middle (the usual shape: equal ends, one difference), and every frame changed with
the first dropped (nothing equal at either end: the least-cost search itself, or, past
``ALIGN_LIMIT`` pairs, the position-by-position fallback). Beside each, the plain
positional diff of the same pair. Only failing results are diffed at all.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from runners.judge.compare import diff  # after the path setup above


def best(repeat: int, expected: Any, actual: Any, align: bool) -> float:
    times = []
    for _ in range(repeat):
        began = time.perf_counter()
        diff(expected, actual, align=align)
        times.append(time.perf_counter() - began)
    return min(times) * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--frames", type=int, nargs="+", default=[50, 200, 500, 5000])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    columns = ["one dropped, aligned", "positional", "all changed + one dropped, aligned"]
    print("| frames | " + " | ".join(f"{c} ms" for c in [*columns, "positional"]) + " |")
    print("|---|---|---|---|---|")
    for n in args.frames:
        frames = [{"event": None, "data": f"d{i}", "id": None, "retry": None} for i in range(n)]
        expected = {"frames": frames}
        dropped = {"frames": frames[: n // 2] + frames[n // 2 + 1 :]}
        changed = {"frames": [{**f, "data": f["data"] + "x"} for f in frames[1:]]}
        cells = [
            best(args.repeat, expected, actual, align)
            for actual in (dropped, changed)
            for align in (True, False)
        ]
        print(f"| {n} | " + " | ".join(f"{c:.2f}" for c in cells) + " |")


if __name__ == "__main__":
    main()
