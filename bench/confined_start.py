"""What confining the harness's own platforms costs (issue 32, adapters/isolation.py):
the start of a served worker (spawn to completed handshake) and a hooks run, plain,
confined in namespaces, and confined without them, in alternating rounds.

    python bench/confined_start.py [--rounds 15] [--hooks-rounds 3]

Prints a Markdown table of medians (and the lowest) per way and platform.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from adapters import isolation  # noqa: E402
from adapters.js import _command as js_command  # noqa: E402
from adapters.serve import MAX_GROUP  # noqa: E402
from adapters.worker import WorkerAdapter  # noqa: E402

WAYS = {"plain": (False, ""), "confined": (True, ""), "confined, no namespaces": (True, "1")}


def worker_start(platform: str, confined: bool, no_namespaces: str) -> float:
    os.environ[isolation.NO_NAMESPACES_ENV] = no_namespaces
    isolation.namespace_prefix.cache_clear()
    command = (
        js_command() if platform == "js" else [sys.executable, "-m", "adapters.serve", platform]
    )
    adapter = WorkerAdapter(
        platform, command, answers_in_groups=MAX_GROUP, expect=True, confined=confined
    )
    isolation.namespace_prefix()  # probed once per harness, not per worker
    started = time.perf_counter()
    adapter.start()
    elapsed = time.perf_counter() - started
    adapter.stop()
    return elapsed


def hooks_run(no_namespaces: str) -> float:
    env = {**os.environ, isolation.NO_NAMESPACES_ENV: no_namespaces}
    command = [sys.executable, "-m", "runners", "run", "-q", "--domain", "hooks"]
    started = time.perf_counter()
    subprocess.run(command, cwd=ROOT, env=env, capture_output=True, check=True)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--hooks-rounds", type=int, default=3)
    args = parser.parse_args()
    times: dict[tuple[str, str], list[float]] = {}
    for _ in range(args.rounds):
        for platform in ("python", "js"):
            for way, (confined, no_ns) in WAYS.items():
                times.setdefault((platform, way), []).append(
                    worker_start(platform, confined, no_ns)
                )
    for _ in range(args.hooks_rounds):
        for way, no_ns in (("confined", ""), ("confined, no namespaces", "1")):
            times.setdefault(("hooks run, 3 platforms", way), []).append(hooks_run(no_ns))
    print("| what | way | median ms | lowest ms |")
    print("|---|---|---|---|")
    for (what, way), found in times.items():
        median, lowest = statistics.median(found) * 1000, min(found) * 1000
        print(f"| {what} | {way} | {median:.0f} | {lowest:.0f} |")


if __name__ == "__main__":
    main()
