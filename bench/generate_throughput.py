"""Differential cases per second of ``hanzo-conformance generate``, per domain.

One case = one distinct generated input, run on python (the reference), rust and
js, and compared. Inputs drawn again within a search are not run again and not
counted ("drawn" counts every draw: the all-zero first batch and steering's variants
repeat a few). The search is the real one (``runners.generate.search.Search``: Hypothesis
on the search's backend drawing batches, one ``Adapter.run`` per platform per
chunk, comparison, clause attribution, ``target()`` and steering), with no platform
disagreeing, so no shrinking.

    .venv/bin/python bench/generate_throughput.py [--domain D ...] [--examples N] [--batch B]
        [--in-process] [--repeat R] [--judge-at-once]

Besides wall-clock rate it reports CPU time: the harness process's own, and that of
its child processes (the served python and rust platforms, the Node worker), read
from /proc while they run. Cases per CPU-second of all of them is the figure that
depends least on how busy the machine is. With ``--repeat R`` every domain is
searched R times (the same seed: the same inputs), interleaved with the other
domains, and the best and median wall-clock rates are printed: on a shared machine
the best run is the one the others' load disturbed least. "draw us" is the
harness's CPU per input to draw and decode it alone (Hypothesis, no platform).
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time

import hypothesis
import proctree  # bench/, this script's folder

from runners.generate import search as _generate
from runners.generate.cli import case_tmpdir
from runners.generate.search import Search, input_batches
from runners.run.platforms import factories, start_all, stop_all


def _children_cpu() -> float:
    """CPU seconds of this process's live descendants (Linux /proc; 0 elsewhere)."""
    table = list(proctree.processes())
    cpu = {pid: seconds for pid, _, seconds in table}
    return sum(cpu[pid] for pid in proctree.tree(os.getpid(), table)[1:])


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
    parser.add_argument("--examples", type=int, default=60)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=1, help="searches per domain (interleaved)")
    parser.add_argument(
        "--in-process", action="store_true", help="python and rust inside the harness"
    )
    parser.add_argument("--tmpdir", default="auto", help="as generate --tmpdir")
    parser.add_argument(
        "--judge-at-once",
        action="store_true",
        help="judge each batch before the next is drawn (as before late judging), to compare",
    )
    args = parser.parse_args()
    _generate.JUDGE_LATE = not args.judge_at_once
    with case_tmpdir(args.tmpdir) as folder:
        print(f"case directories in {folder or 'the system temporary directory'}")
        run(args)


def draw_cost(domain: str, examples: int, seed: int, batch: int) -> float:
    """Harness CPU microseconds per input to draw and decode a batch, no platform running."""
    module = strategies_module(domain)
    drawn = [0]

    def count(inputs: list[object]) -> None:
        drawn[0] += len(inputs)

    cpu = time.process_time()
    _generate._drive(input_batches(module, batch), count, examples, seed)
    return (time.process_time() - cpu) / max(1, drawn[0]) * 1e6


def strategies_module(domain: str) -> object:
    import strategies

    return strategies.load(domain)


def run(args: argparse.Namespace) -> None:
    platforms = start_all(factories(["python", "rust", "js"], in_process=args.in_process))
    domains = args.domain or DOMAINS
    rows: dict[str, list[tuple[float, int, int, float, float, float, bool, int]]] = {}
    try:
        reference, *others = platforms
        served = "in-process" if args.in_process else "served from children"
        print(
            f"python and rust {served}; Python {platform.python_version()}, Hypothesis "
            f"{hypothesis.__version__}, {os.cpu_count()} CPUs, switch interval "
            f"{_generate.SWITCH_INTERVAL * 1e3:g} ms (default {sys.getswitchinterval() * 1e3:g}), "
            f"batches judged {'late' if _generate.JUDGE_LATE else 'at once'}"
        )
        print(f"load average before: {os.getloadavg()[0]:.1f}")
        for _ in range(args.repeat):
            for domain in domains:
                search = Search(domain, reference, others)
                children = _children_cpu()
                started, cpu = time.perf_counter(), time.process_time()
                finding = search.search(args.examples, args.seed, args.batch)
                seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
                children = _children_cpu() - children
                search.close()
                stats = search.stats
                rows.setdefault(domain, []).append(
                    (
                        seconds,
                        stats.examples,
                        stats.cases,
                        cpu,
                        children,
                        os.getloadavg()[0],
                        finding is not None,
                        stats.drawn,
                    )
                )
        print(f"load average after: {os.getloadavg()[0]:.1f}")
    finally:
        stop_all(platforms)
    print(
        "| domain | examples | drawn | cases | best cases/s | median cases/s | load "
        "| harness CPU us/case | children CPU us/case | cases per CPU-s | draw us |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for domain, runs in rows.items():
        rates = [cases / seconds for seconds, _, cases, *_ in runs]
        best = max(range(len(runs)), key=lambda i: rates[i])
        _, examples, cases, cpu, children, load, found, drawn = runs[best]
        note = " (a disagreement: shrinking included)" if found else ""
        print(
            f"| {domain} | {examples} | {drawn} | {cases} | {rates[best]:,.0f}{note} | "
            f"{statistics.median(rates):,.0f} | {load:.1f} | {cpu / cases * 1e6:.0f} | "
            f"{children / cases * 1e6:.0f} | {cases / (cpu + children):,.0f} | "
            f"{draw_cost(domain, args.examples, args.seed, args.batch):.0f} |"
        )


if __name__ == "__main__":
    main()
