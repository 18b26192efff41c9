"""Loading a vector file, per case: the issue 13 target is at most 20 us.

    python3 bench/vector_load.py [--cases 50000] [--repeat 3]

Writes the synthetic files bench/harness_overhead.py writes (oauth-pkce and
mcp-normalization, ``--cases`` small cases each) and times ``load_vector_file`` on
each: parse (with the I-JSON and nesting checks), the schema checks, and the cases;
then what a run computes for each case before it runs it (``_stream._warm``: request
text and size, expected text, content hash; since issue 13's third pass made at
load). Reports the first (cold) load and the best of ``--repeat``, as CPU time of
this process (steadier than wall time on a shared machine) and wall time, and the
load average.
"""

from __future__ import annotations

import argparse
import gc
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from harness_overhead import DOMAINS, write_file  # noqa: E402

from runners.run.stream import _warm  # noqa: E402
from runners.vectors.load import load_vector_file  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=50_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="vector-load-"))
    try:
        print(f"load average {os.getloadavg()[0]:.2f}; {args.cases} cases per file")
        for domain in DOMAINS:
            sub = folder / domain
            sub.mkdir()
            path = write_file(sub, domain, args.cases)
            runs = []
            for _ in range(args.repeat):
                gc.collect()
                cpu, wall = time.process_time(), time.perf_counter()
                vector_file = load_vector_file(path)
                loaded = time.process_time() - cpu
                _warm(vector_file)
                runs.append((loaded, time.process_time() - cpu, time.perf_counter() - wall))
                assert len(vector_file.cases) == args.cases
                del vector_file
            per = 1e6 / args.cases
            print(
                f"{domain}: load cold {runs[0][0] * per:.1f} us/case CPU, best of "
                f"{args.repeat} {min(r[0] for r in runs) * per:.1f}; with the per-case "
                f"values cold {runs[0][1] * per:.1f} ({runs[0][2] * per:.1f} wall), best "
                f"{min(r[1] for r in runs) * per:.1f} ({min(r[2] for r in runs) * per:.1f} wall)"
            )
        print(f"load average {os.getloadavg()[0]:.2f}")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
