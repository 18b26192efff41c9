"""Instructions per case of the served python child (issue 13), a figure load cannot move.

    python3 bench/harness_overhead_child_ir.py [--domain oauth-pkce --domain mcp-normalization]

Needs valgrind. For each file of ``bench/harness_overhead.py`` (same synthetic cases),
writes the run lines the harness sends its child (the expect, expect-error and tab-run
extensions offered, each case's line as ``runners.run.batches`` makes it) for 2,000 and
6,000 cases, replays each into ``python -m adapters.serve python`` under callgrind,
and prints (Ir(6,000) - Ir(2,000)) / 4,000: the child's instructions per case, the
start-up cancelled out. Also the implementation's own work the same way (the inputs
decoded, then ``run`` on each or not), so the difference is the child's cost beyond
it.

Settings that keep the count steady: ``PYTHONHASHSEED=0`` (string hashing moves the
count by hundreds per case otherwise); bytecode written and a warm-up run first
(else the first replay compiles the modules and the difference comes out too low);
and the flush age ``FLUSH_AFTER_S`` set to an hour, as under valgrind a case takes
some 50 times its time, so groups written by age (a timing effect, rare at full
speed) would otherwise add a varying share.
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
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import harness_overhead  # noqa: E402 - after the path setup above

from adapters.messages import (  # noqa: E402
    EXTENSIONS_LINE,
    START_LINE,
    encode_request,
    expect_error_line,
    expect_line,
    tab_line,
)
from runners.run.batches import _own_request  # noqa: E402
from runners.vectors.load import load_vector_file  # noqa: E402

SERVE = "import sys, adapters.serve as s; s.FLUSH_AFTER_S = 3600.0; sys.exit(s.main(['python']))"
OWN = """
import gc, importlib, json, sys
from impl_python.errors import HanzoError
lines = open(sys.argv[1], "rb").read().splitlines()[2:]
inputs = [
    json.loads(line)["input"] if line.startswith(b"{") else json.loads(line.split(b"\\t")[3])
    for line in lines
]
run = importlib.import_module("impl_python.conformance." + sys.argv[2]).run
gc.freeze()
if sys.argv[3] == "run":
    for case_input in inputs:
        try:
            run(case_input)
        except HanzoError as e:
            str(e)
"""


def write_lines(folder: Path, domain: str, cases: int) -> Path:
    """The child's input for ``cases`` cases of ``domain``: handshake, extensions, runs."""
    vector_file = load_vector_file(harness_overhead.write_file(folder, domain, cases))
    path = folder / f"{domain}-{cases}.lines"
    with path.open("wb") as out:
        out.write(START_LINE + EXTENSIONS_LINE)
        for case in vector_file.cases:
            request = _own_request(case, True)
            out.write(
                tab_line(request)
                or expect_line(request)
                or expect_error_line(request)
                or encode_request(request)
            )
    return path


def instructions(argv: list[str], stdin: Path | None = None, callgrind: bool = True) -> int:
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    tool = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"] if callgrind else []
    with open(stdin or os.devnull, "rb") as given:
        done = subprocess.run(
            [*tool, sys.executable, *argv],
            stdin=given,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
            env=env,
            check=True,
        )
    if not callgrind:
        return 0
    found = re.search(r"Collected : (\d+)", done.stderr)
    if found is None:
        raise SystemExit(f"no callgrind total in:\n{done.stderr[-2000:]}")
    return int(found.group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--domain", action="append", choices=harness_overhead.DOMAINS)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        for domain in args.domain or harness_overhead.DOMAINS:
            small, large = (write_lines(Path(folder), domain, n) for n in (2000, 6000))
            instructions(["-c", SERVE], small, callgrind=False)  # warm-up: bytecode written
            child = (instructions(["-c", SERVE], large) - instructions(["-c", SERVE], small)) / 4000
            module = domain.replace("-", "_")
            own = [
                instructions(["-c", OWN, str(path), module, mode])
                for path in (small, large)
                for mode in ("parse", "run")
            ]
            own_per_case = ((own[3] - own[2]) - (own[1] - own[0])) / 4000
            print(
                f"{domain}: served python child {child:,.0f} Ir per case; own work "
                f"{own_per_case:,.0f}; beyond it {child - own_per_case:,.0f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
