"""Differential cases per second of ``hanzo-conformance generate``, per domain.

One case = one generated input, run on python (the reference), rust and js, and
compared. The search is the real one (``runners._generate.Search``: Hypothesis
drawing batches, one ``Adapter.run`` per platform per batch, comparison, clause
attribution and ``target()``), with no platform disagreeing, so no shrinking.

    .venv/bin/python bench/generate_throughput.py [--domain D ...] [--examples N] [--batch B]
        [--in-process]

Besides wall-clock rate it reports CPU time: the harness process's own, and that of
its child processes (the served python and rust platforms, the Node worker), read
from /proc while they run. Cases per CPU-second of all of them is the figure that
does not depend on how busy the machine is.
"""

from __future__ import annotations

import argparse
import os
import time

from runners._generate import Search
from runners._generate_cli import case_tmpdir
from runners._platforms import factories, start_all, stop_all


def _children_cpu() -> float:
    """CPU seconds of this process's live descendants (Linux /proc; 0 elsewhere)."""
    ticks = os.sysconf("SC_CLK_TCK")
    parents: dict[int, int] = {}
    cpu: dict[int, float] = {}
    for entry in os.listdir("/proc") if os.path.isdir("/proc") else ():
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents[int(entry)] = int(fields[1])
        cpu[int(entry)] = (int(fields[11]) + int(fields[12])) / ticks
    mine, total = {os.getpid()}, 0.0
    grew = True
    while grew:
        grew = False
        for pid, parent in parents.items():
            if parent in mine and pid not in mine:
                mine.add(pid)
                total += cpu[pid]
                grew = True
    return total


DOMAINS = (
    "sse-frames",
    "mcp-normalization",
    "permission-policy",
    "oauth-pkce",
    "backoff-timing",
    "session-compaction",
    "config-merge",
    "hooks",
    "sandbox-paths",
    "tool-call-pipeline",
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--domain", action="append", default=[])
    parser.add_argument("--examples", type=int, default=200)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--in-process", action="store_true", help="python and rust inside the harness"
    )
    parser.add_argument("--tmpdir", default="auto", help="as generate --tmpdir")
    args = parser.parse_args()
    with case_tmpdir(args.tmpdir) as folder:
        print(f"case directories in {folder or 'the system temporary directory'}")
        run(args)


def run(args: argparse.Namespace) -> None:
    platforms = start_all(factories(["python", "rust", "js"], in_process=args.in_process))
    try:
        reference, *others = platforms
        served = "in-process" if args.in_process else "served from children"
        print(f"python and rust {served}; load average before: {os.getloadavg()[0]:.1f}")
        print(
            "| domain | examples | cases | seconds | cases/s | load | harness CPU s "
            "| children CPU s | cases per CPU-s |"
        )
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
        for domain in args.domain or DOMAINS:
            search = Search(domain, reference, others)
            children = _children_cpu()
            started, cpu = time.perf_counter(), time.process_time()
            finding = search.search(args.examples, args.seed, args.batch)
            seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
            children = _children_cpu() - children
            search.close()
            stats = search.stats
            note = " (a disagreement: shrinking included)" if finding else ""
            print(
                f"| {domain} | {stats.examples} | {stats.cases} | {seconds:.2f} | "
                f"{stats.cases / seconds:,.0f}{note} | {os.getloadavg()[0]:.1f} | {cpu:.2f} | "
                f"{children:.2f} | {stats.cases / (cpu + children):,.0f} |"
            )
        print(f"load average after: {os.getloadavg()[0]:.1f}")
    finally:
        stop_all(platforms)


if __name__ == "__main__":
    main()
