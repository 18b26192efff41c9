"""Round-trip cost of one case through a platform, batched versus unbatched.

    python3 bench/worker_roundtrip.py [--platform js|python|rust] [--in-process]
                                      [--cases N] [--runs R] [--domain D]

Runs the first case of vectors/<domain>.json N times: once as a single
``run()`` batch of N requests (pipelined), and as N ``run()`` calls of one
request each. Reports the median over R runs of microseconds per case, and
checks every response against the vector's expectation. ``python`` and ``rust``
are served from a supervised child (adapters/served.py) unless ``--in-process``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from adapters import registry  # noqa: E402 - after the path setup above
from adapters.protocol import Request, Response  # noqa: E402

PREFERRED = ["oauth-pkce", "mcp-normalization", "sse-frames", "config-merge"]


def pick_case(domains: frozenset[str], wanted: str | None) -> tuple[str, dict[str, Any]]:
    for domain in [wanted] if wanted else PREFERRED:
        path = ROOT / "vectors" / f"{domain}.json"
        if domain in domains and path.exists():
            document = json.loads(path.read_text(encoding="utf-8"))
            for case in document["cases"]:
                if "expected" in case and not document.get("comparison"):
                    return domain, case
    raise SystemExit(f"no usable vector case for any of {wanted or PREFERRED} in {sorted(domains)}")


def check(responses: list[Response], expected: Any) -> None:
    for response in responses:
        if response.get("output") != expected:
            raise SystemExit(f"unexpected response: {response}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--domain", default=None)
    parser.add_argument("--platform", default="js")
    parser.add_argument("--in-process", action="store_true")
    args = parser.parse_args()

    adapter = registry.create(args.platform, timeout=10.0, in_process=args.in_process)
    implementation = adapter.start()
    try:
        domain, case = pick_case(implementation.domains, args.domain)
        requests: list[Request] = [
            {"id": f"{case['id']}#{i}", "domain": domain, "input": case["input"]}
            for i in range(args.cases)
        ]
        check(adapter.run(requests[:50]), case["expected"])  # warm-up: JIT, caches
        batched: list[float] = []
        unbatched: list[float] = []
        for _ in range(args.runs):
            began = time.perf_counter()
            responses = adapter.run(requests)
            batched.append((time.perf_counter() - began) / len(requests))
            check(responses, case["expected"])
            began = time.perf_counter()
            responses = [r for request in requests for r in adapter.run([request])]
            unbatched.append((time.perf_counter() - began) / len(requests))
            check(responses, case["expected"])
    finally:
        adapter.stop()
    size = len(json.dumps(case["input"]))
    b = statistics.median(batched) * 1e6
    u = statistics.median(unbatched) * 1e6
    how = "in-process" if args.in_process else "served" if args.platform != "js" else "worker"
    print(
        f"{args.platform} ({how}): {implementation.name} {implementation.version}, "
        f"domain {domain}, case {case['id']} "
        f"({size} bytes of input), {args.cases} cases x {args.runs} runs"
    )
    print(f"batched:   {b:8.1f} us/case")
    print(f"unbatched: {u:8.1f} us/case  ({u / b:.1f}x)")


if __name__ == "__main__":
    main()
