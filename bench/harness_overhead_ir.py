"""Instructions per case-platform of the harness process (issue 13), a figure load cannot move.

    python3 bench/harness_overhead_ir.py [--domain oauth-pkce ...] [--platform python ...]

Needs valgrind. For each file of ``bench/harness_overhead.py`` (same synthetic cases)
at 2,000 and 6,000 cases, runs one script under callgrind (the harness process only;
the platform's child runs at full speed beside it) that loads the file, starts the
platform and then, by mode, stops (``load``), runs its cases once as the first
platform of a run does (``anew``: requests and their lines made), or twice
(``reused``: the second run reuses them, as the second and third platforms do). Each
run ends as the CLI's does, the outcomes made into results lines (``encode_chunk``).
Prints, per case-platform, (Ir(6,000) - Ir(2,000)) / 4,000 of ``anew`` minus ``load``
and of ``reused`` minus ``anew``, and their mean in a run of three platforms.

``PYTHONHASHSEED=0`` keeps the count steady; bytecode is written by a first run
outside valgrind. The platform's child is measured by
``bench/harness_overhead_child_ir.py``.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

import harness_overhead  # noqa: E402 - after the path setup above

SCRIPT = """
import gc, sys
sys.path.insert(0, sys.argv[4])
from adapters import registry
from runners.run.batches import run_cases, start_platform
from runners.run.stream import encode_chunk
from runners.vectors.load import load_vector_file
path, name, mode = sys.argv[1:4]
from pathlib import Path
vector_file = load_vector_file(Path(path))
gc.collect()
gc.freeze()
platform = start_platform(name, registry.create(name, timeout=600.0))
assert platform.failure is None, platform.failure
for _ in range({"load": 0, "anew": 1, "reused": 2}[mode]):
    outcomes = run_cases(platform, vector_file, vector_file.cases)
    chunk = encode_chunk(vector_file.cases, [outcomes], lambda d, c: False, True)
    assert chunk.platforms[0][1] == len(vector_file.cases), chunk.platforms[0][1]
platform.adapter.stop()
"""


def instructions(path: Path, platform: str, mode: str, callgrind: bool = True) -> int:
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    tool = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"] if callgrind else []
    done = subprocess.run(
        [*tool, sys.executable, "-c", SCRIPT, str(path), platform, mode, str(ROOT)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env=env,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"{platform} {mode} failed:\n{done.stderr[-2000:]}")
    if not callgrind:
        return 0
    found = re.search(r"Collected : (\d+)", done.stderr)
    if found is None:
        raise SystemExit(f"no callgrind total in:\n{done.stderr[-2000:]}")
    return int(found.group(1))


def _made(folder: Path) -> Path:
    folder.mkdir(exist_ok=True)
    return folder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--domain", action="append", choices=harness_overhead.DOMAINS)
    parser.add_argument("--platform", action="append", choices=["python", "rust", "js"])
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        for domain in args.domain or harness_overhead.DOMAINS:
            small, large = (
                harness_overhead.write_file(_made(Path(folder) / str(n)), domain, n)
                for n in (2000, 6000)
            )
            for platform in args.platform or ["python", "rust", "js"]:
                instructions(small, platform, "anew", callgrind=False)  # bytecode written
                per_case = {}
                for mode in ("load", "anew", "reused"):
                    per_case[mode] = (
                        instructions(large, platform, mode) - instructions(small, platform, mode)
                    ) / 4000
                anew = per_case["anew"] - per_case["load"]
                reused = per_case["reused"] - per_case["anew"]
                print(
                    f"{domain} {platform}: harness process {anew:,.0f} Ir per case-platform"
                    f" (requests made), {reused:,.0f} (reused), {(anew + 2 * reused) / 3:,.0f}"
                    " in a run of three platforms",
                    flush=True,
                )


if __name__ == "__main__":
    main()
