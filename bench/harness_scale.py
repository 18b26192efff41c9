"""A run of 10k, 100k or a million cases on three platforms: time and peak memory (issue 13).

    python3 bench/harness_scale.py --cases 1000000 [--per-file 50000]
                                   [--platform python --platform rust --platform js]

Writes ``--cases`` small synthetic cases (as bench/harness_overhead.py does:
oauth-pkce and mcp-normalization, alternating files of ``--per-file`` cases) into a
temporary folder, then runs them the streaming way: one file at a time is loaded,
run on every platform (``runners._run.run_cases``; python and rust served from their
children, js through its worker, each started once) and every outcome written as
one JSON line to a results file as soon as it is judged; nothing of a file is kept
once its outcomes are written. Reports the wall time of the run (generation
excluded), the peak RSS of the whole process tree (this process, the served
children, Node: sampled every 100 ms from /proc), and the outcome counts.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from harness_overhead import write_file  # noqa: E402

from adapters import registry  # noqa: E402
from runners._run import run_cases, start_platform  # noqa: E402
from runners._vectors import load_vector_file  # noqa: E402

PAGE = os.sysconf("SC_PAGE_SIZE")


def _tree(root: int) -> list[int]:
    """``root`` and every process descended from it (from /proc)."""
    parents: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents.setdefault(int(fields[1]), []).append(int(entry))
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(parents.get(pid, []))
    return found


def _rss(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/statm", encoding="ascii") as f:
            return int(f.read().split()[1]) * PAGE
    except OSError:
        return 0


class PeakTreeRss:
    """Samples the RSS of this process and its descendants until stopped; keeps the peak."""

    def __init__(self, interval: float = 0.1) -> None:
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, args=(interval,), daemon=True)
        self._thread.start()

    def _sample(self, interval: float) -> None:
        me = os.getpid()
        tree, rescan = [me], 0.0
        while not self._stop.wait(interval):
            if time.monotonic() >= rescan:  # listing /proc costs more than reading RSS
                tree, rescan = _tree(me), time.monotonic() + 1.0
            self.peak = max(self.peak, sum(_rss(pid) for pid in tree))

    def stop(self) -> int:
        self._stop.set()
        self._thread.join()
        return self.peak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--per-file", type=int, default=50_000)
    parser.add_argument("--platform", action="append", default=[])
    args = parser.parse_args()
    names = args.platform or ["python", "rust", "js"]

    folder = Path(tempfile.mkdtemp(prefix="harness-scale-"))
    try:
        paths = []
        for index, start in enumerate(range(0, args.cases, args.per_file)):
            domain = ("oauth-pkce", "mcp-normalization")[index % 2]
            sub = folder / f"{index:03d}"
            sub.mkdir()
            count = min(args.per_file, args.cases - start)
            paths.append(write_file(sub, domain, count, seed=index, prefix=f"f{index}-"))
        load_average = os.getloadavg()[0]
        peak = PeakTreeRss()
        began = time.perf_counter()
        platforms = [start_platform(name, registry.create(name)) for name in names]
        counts: dict[str, int] = {}
        with (folder / "results.jsonl").open("w", encoding="utf-8") as results:
            for path in paths:
                vector_file = load_vector_file(path)
                gc.freeze()  # the cases live until the file is done: never rescan them
                for platform in platforms:
                    for outcome in run_cases(platform, vector_file, vector_file.cases):
                        record = outcome.to_json()
                        counts[record["status"]] = counts.get(record["status"], 0) + 1
                        results.write(json.dumps(record, ensure_ascii=False) + "\n")
                del vector_file
                gc.unfreeze()
                gc.collect()
        for platform in platforms:
            if platform.adapter is not None:
                platform.adapter.stop()
        elapsed = time.perf_counter() - began
        top = peak.stop()
        size = (folder / "results.jsonl").stat().st_size
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    print(
        f"{args.cases} cases x {len(names)} platforms ({', '.join(names)}), "
        f"files of {args.per_file}: {elapsed:.1f} s "
        f"({elapsed / (args.cases * len(names)) * 1e6:.1f} us per case-platform), "
        f"peak RSS of the process tree {top / 2**20:.0f} MiB, results {size / 2**20:.0f} MiB, "
        f"{counts}; load average {load_average:.2f} before, {os.getloadavg()[0]:.2f} after"
    )


if __name__ == "__main__":
    main()
