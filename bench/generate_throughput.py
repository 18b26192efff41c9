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
        print("| domain | batch | examples | cases | seconds | cases/s |")
        print("|---|---:|---:|---:|---:|---:|")
        for domain in args.domain or DOMAINS:
            search = Search(domain, reference, others)
            started = time.perf_counter()
            finding = search.search(args.examples, args.seed, args.batch)
            seconds = time.perf_counter() - started
            stats = search.stats
            note = " (a disagreement: shrinking included)" if finding else ""
            print(
                f"| {domain} | {args.batch} | {stats.examples} | {stats.cases} | "
                f"{seconds:.2f} | {stats.cases / seconds:,.0f}{note} |"
            )
        print(f"load average after: {os.getloadavg()[0]:.1f}")
    finally:
        stop_all(platforms)


if __name__ == "__main__":
    main()
