"""What a vector case costs under pytest, beside the CLI and the implementation's own work.

    python3 bench/pytest_items.py [--platform python|rust|js] [--cases N] [--base M]
                                  [--runs R] [--in-process]

Writes a synthetic oauth-pkce file of N small valid cases (and one of M) into a
temporary project and times, each as a fresh process (the median of R runs):

- ``pytest`` over the file with the plugin (``-q -p no:cacheprovider``), batched
  (the default) and with ``--batch-cases 1`` (one request per item, as before batching);
- ``pytest`` over N no-op tests (``parametrize``): pytest's own floor per item;
- ``hanzo-conformance run`` over the same file (``--format json --output``);
- the implementation's own work: its JSON layer called in a loop over the same
  inputs (python: ``impl_python.conformance.oauth_pkce.run``; rust: the extension's
  ``run_batch`` over the whole batch; js: ``impl_js/conformance`` in one node process).

Per-case figures are slopes, ``(time(N) - time(M)) / (N - M)``, so process start,
imports and platform start-up cancel out. Nothing here is a test.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"


def challenge(verifier: str) -> str:
    digest = hashlib.sha256(verifier.encode("ascii")).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def vector_file(count: int, seed: int = 13) -> dict[str, Any]:
    rng = random.Random(seed)
    cases = []
    for n in range(count):
        verifier = "".join(rng.choice(ALPHABET) for _ in range(rng.randint(43, 64)))
        cases.append(
            {
                "id": f"synthetic-{n}",
                "description": "A random valid verifier (bench/pytest_items.py).",
                "tags": ["challenge"],
                "source": {"kind": "derived", "ref": "bench/pytest_items.py"},
                "clauses": ["PKCE-1"],
                "input": {"verifier": verifier},
                "expected": {"challenge": challenge(verifier)},
            }
        )
    return {
        "domain": "oauth-pkce",
        "version": 1,
        "description": "Synthetic small cases for the pytest benchmark.",
        "tags": {"challenge": "the derived PKCE challenge itself"},
        "comparison": [],
        "variants": [],
        "cases": cases,
    }


def project(base: Path, count: int) -> Path:
    folder = base / f"p{count}"
    (folder / "vectors").mkdir(parents=True)
    document = vector_file(count)
    (folder / "vectors" / "oauth-pkce.json").write_text(json.dumps(document), encoding="utf-8")
    (folder / "pytest.ini").write_text("[pytest]\nhanzo_conformance_vectors = vectors\n")
    noop = (
        "import pytest\n\n@pytest.mark.parametrize('n', range(%d))\ndef test_noop(n):\n    pass\n"
    )
    (folder / "noop").mkdir()
    (folder / "noop" / "test_noop.py").write_text(noop % count)
    return folder


def timed(argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    """Wall seconds, and CPU seconds (user + system) of the process and every child it reaped.

    Output goes to a file, as a CI log would: a pipe read by a busy machine's scheduler
    made pytest's one write per item cost more than the item itself.
    """
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    with open(cwd / "out.txt", "w") as out:
        done = subprocess.run(argv, cwd=cwd, env=env, stdout=out, stderr=out, check=False)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        text = (cwd / "out.txt").read_text()[-3000:]
        raise SystemExit(f"{' '.join(argv)} exited {done.returncode}:\n{text}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return elapsed, cpu


def commands(platform: str, in_process: bool) -> dict[str, list[str]]:
    extra = ["--in-process"] if in_process else []
    py = sys.executable
    return {
        "pytest": [py, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rN", "vectors",
                   "--platform", platform, *extra],
        "pytest, 1/batch": [py, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rN", "vectors",
                            "--platform", platform, "--batch-cases", "1", *extra],
        "pytest no-op": [py, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rN", "noop"],
        "cli": [py, "-m", "runners", "run", "--no-default-vectors", "--vectors", "vectors",
                "--platform", platform, "--format", "json", "--output", "out.json", *extra],
    }  # fmt: skip


def implementation_seconds(platform: str, folder: Path) -> float:
    """The JSON layer's own time over every input of the folder's file (in one process)."""
    inputs = [
        c["input"] for c in json.loads((folder / "vectors/oauth-pkce.json").read_text())["cases"]
    ]
    if platform == "python":
        sys.path.insert(0, str(ROOT))
        from impl_python.conformance.oauth_pkce import run

        start = time.perf_counter()
        for case_input in inputs:
            run(case_input)
        return time.perf_counter() - start
    if platform == "rust":
        import hanzo_conformance_rust

        batch = json.dumps(
            [{"id": str(n), "domain": "oauth-pkce", "input": i} for n, i in enumerate(inputs)]
        )
        start = time.perf_counter()
        hanzo_conformance_rust.run_batch(batch)
        return time.perf_counter() - start
    script = (
        f"import {{ DOMAINS }} from {json.dumps(str(ROOT / 'impl_js/conformance/index.js'))};"
        "import { readFileSync } from 'node:fs';"
        "const inputs = JSON.parse(readFileSync(process.argv[1], 'utf8')).cases.map(c => c.input);"
        "const run = DOMAINS['oauth-pkce']; const t = process.hrtime.bigint();"
        "for (const i of inputs) run(i);"
        "console.log(Number(process.hrtime.bigint() - t) / 1e9);"
    )
    node = shutil.which("node") or str(Path(sys.executable).parent / "node")
    out = subprocess.run(
        [node, "--input-type=module", "-e", script, str(folder / "vectors/oauth-pkce.json")],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    return float(out.stdout.strip())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--platform", default="python")
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--base", type=int, default=1_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--in-process", action="store_true")
    args = parser.parse_args()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "CI": ""}
    with tempfile.TemporaryDirectory(prefix="pytest-items-") as tmp:
        big, small = project(Path(tmp), args.cases), project(Path(tmp), args.base)
        times: dict[str, dict[Path, list[tuple[float, float]]]] = {}
        for _ in range(args.runs):  # interleaved, so load changes hit every command alike
            for label, argv in commands(args.platform, args.in_process).items():
                for folder in (small, big):
                    times.setdefault(label, {}).setdefault(folder, []).append(
                        timed(argv, folder, env)
                    )
        impl = [
            implementation_seconds(args.platform, big)
            - implementation_seconds(args.platform, small)
            for _ in range(args.runs)
        ]
    span = args.cases - args.base

    def slope(label: str, which: int) -> float:
        big_s = statistics.median(t[which] for t in times[label][big])
        small_s = statistics.median(t[which] for t in times[label][small])
        return (big_s - small_s) / span * 1e6

    own = statistics.median(impl) / span * 1e6
    mode = " --in-process" if args.in_process else ""
    print(f"{args.platform}{mode}: {args.cases} vs {args.base} cases, median of {args.runs}, "
          f"load average {os.getloadavg()[0]:.1f}")  # fmt: skip
    print(f"  {'us per case':15s} {'wall':>8s} {'cpu':>8s}")
    for label in times:
        print(f"  {label:15s} {slope(label, 0):8.1f} {slope(label, 1):8.1f}")
    print(f"  {'impl own':15s} {own:8.1f}")
    for which, kind in ((0, "wall"), (1, "cpu")):
        pytest_us, cli_us, noop_us = (slope(x, which) for x in ("pytest", "cli", "pytest no-op"))
        print(f"  {kind}: pytest beyond impl {pytest_us - own:.1f} us; "
              f"pytest / cli {pytest_us / cli_us:.2f}x; "
              f"pytest beyond a no-op test {pytest_us - noop_us:.1f} us")  # fmt: skip


if __name__ == "__main__":
    main()
