"""Differential cases per second of ``hanzo-conformance generate``, per domain.

One case = one generated input, run on python (the reference), rust and js, and
compared. The search is the real one (``runners._generate.Search``: Hypothesis
drawing batches, one ``Adapter.run`` per platform per batch, comparison, clause
attribution and ``target()``), with no platform disagreeing, so no shrinking.

    .venv/bin/python bench/generate_throughput.py [--domain D ...] [--examples N] [--batch B]
"""

from __future__ import annotations

import argparse
import os
import resource
import time

from runners._generate import Search
from runners._platforms import factories, start_all, stop_all

DOMAINS = (
    "sse-frames",
    "mcp-normalization",
    "permission-policy",
    "oauth-pkce",
    "backoff-timing",
    "session-compaction",
    "config-merge",
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--domain", action="append", default=[])
    parser.add_argument("--examples", type=int, default=200)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    platforms = start_all(factories(["python", "rust", "js"]))
    try:
        reference, *others = platforms
        print(f"load average before: {os.getloadavg()[0]:.1f}")
        print("| domain | batch | examples | cases | seconds | cases/s | harness CPU s |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        for domain in args.domain or DOMAINS:
            search = Search(domain, reference, others)
            started, cpu = time.perf_counter(), time.process_time()
            finding = search.search(args.examples, args.seed, args.batch)
            seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
            search.close()
            stats = search.stats
            note = " (a disagreement: shrinking included)" if finding else ""
            print(
                f"| {domain} | {args.batch} | {stats.examples} | {stats.cases} | "
                f"{seconds:.2f} | {stats.cases / seconds:,.0f}{note} | {cpu:.2f} |"
            )
        print(f"load average after: {os.getloadavg()[0]:.1f}")
    finally:
        stop_all(platforms)
    # The Node worker's CPU, counted once it has exited: the whole run's cost on the machine.
    node = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(f"Node worker CPU over the whole run: {node.ru_utime + node.ru_stime:.2f} s")


if __name__ == "__main__":
    main()
