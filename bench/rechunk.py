"""Cost of one long sse-frames case with the file's rechunk variant, per platform.

    python3 bench/rechunk.py [--platform python --platform rust --platform js] [--runs 3]

Writes two one-case vector files into a temporary folder: `sse-20k` (20 KB: 500
events of `data: ...` lines) and `line-1m` (one `data:` line of 1 MB), both with
`variants: [rechunk /chunks]` and an expectation built from how the text was made.
Each (case, platform) runs `hanzo-conformance run` in a fresh process; reported
are its wall time (median of --runs) and peak RSS: the harness process's own and
its largest child's (the Node worker, for js). Not part of the test suite.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

_MEASURE = """
import resource, sys
from runners._cli import main
code = main(sys.argv[1:])
own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
child = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(f"RSS {own} {child}", file=sys.stderr)
sys.exit(code)
"""


def frame(data: str) -> dict[str, Any]:
    return {"event": None, "data": data, "id": None, "retry": None}


def case(case_id: str, chunks: list[str], frames: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "id": case_id,
        "description": "A long input for bench/rechunk.py.",
        "tags": ["bench"],
        "source": {"kind": "generated", "ref": "bench/rechunk.py"},
        "clauses": ["SSE-1"],
        "input": {"chunks": chunks},
        "expected": {"frames": frames},
    }


def workloads() -> dict[str, dict[str, Any]]:
    tokens = [f"token {i:05d} " + "x" * 24 for i in range(500)]
    text = "".join(f"data: {t}\n\n" for t in tokens)
    line = "y" * 1_000_000
    return {
        "sse-20k": case("sse-20k", [text[:7000], text[7000:]], [frame(t) for t in tokens]),
        "line-1m": case("line-1m", [f"data: {line}\n\n"], [frame(line)]),
    }


def write_file(folder: Path, body: dict[str, Any]) -> Path:
    document = {
        "domain": "sse-frames",
        "version": 1,
        "description": "bench/rechunk.py",
        "tags": {"bench": "a long input made by bench/rechunk.py"},
        "variants": [{"kind": "rechunk", "path": "/chunks"}],
        "cases": [body],
    }
    path = folder / f"{body['id']}.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def measure(path: Path, platform: str) -> tuple[float, int, int, int]:
    """(seconds, exit code, own peak RSS KiB, largest child's peak RSS KiB)."""
    argv = [sys.executable, "-c", _MEASURE, "run", "--no-default-vectors"]
    argv += ["--vectors", str(path), "--platform", platform, "--case-timeout", "120"]
    started = time.perf_counter()
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - started
    rss = [line for line in done.stderr.splitlines() if line.startswith("RSS ")]
    if not rss:
        raise SystemExit(f"{platform} {path.name}: no measurement\n{done.stderr[-2000:]}")
    own, child = (int(x) for x in rss[-1].split()[1:])
    if done.returncode != 0:
        print(f"warning: {platform} {path.name} exited {done.returncode}")
        print(done.stdout[-1500:], done.stderr[-1500:])
    return seconds, done.returncode, own, child


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--platform", action="append", default=[])
    parser.add_argument("--case", action="append", default=[], choices=["sse-20k", "line-1m"])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    platforms = args.platform or ["python", "rust", "js"]
    print("| case | platform | seconds (median) | harness peak RSS MB | worker peak RSS MB |")
    print("|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for name, body in workloads().items():
            if args.case and name not in args.case:
                continue
            path = write_file(Path(tmp), body)
            for platform in platforms:
                runs = [measure(path, platform) for _ in range(args.runs)]
                seconds = statistics.median(r[0] for r in runs)
                own = max(r[2] for r in runs) / 1024
                child = max(r[3] for r in runs) / 1024
                worker = f"{child:.0f}" if platform == "js" else "-"
                codes = {r[1] for r in runs}
                flag = "" if codes == {0} else f" (exit {sorted(codes)})"
                print(f"| {name} | {platform} | {seconds:.2f}{flag} | {own:.0f} | {worker} |")


if __name__ == "__main__":
    main()
