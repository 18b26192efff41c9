"""What a vector case costs under pytest, beside the CLI and the implementation's own work.

    python3 bench/pytest_items.py [--platform python|rust|js] [--cases N] [--base M]
                                  [--runs R] [--in-process] [--baselines]

Writes a synthetic oauth-pkce file of N small valid cases (and one of M) into a
temporary project and times, each as a fresh process (the median of R runs):

- ``pytest`` over the file with the plugin (``-q -p no:cacheprovider``), batched
  (the default) and with ``--batch-cases 1`` (one request per item, as before batching);
- ``pytest`` over N no-op tests (``parametrize``): pytest's own floor per item;
- ``hanzo-conformance run`` over the same file (``--format json --output``);
- the implementation's own work: its JSON layer called in a loop over the same
  inputs (python: ``impl_python.conformance.oauth_pkce.run``; rust: the extension's
  ``run_batch`` over the whole batch; js: ``impl_js/conformance`` in one node process).

``--baselines`` times instead where an item's cost goes: no-op tests with each
auto-loaded plugin left out in turn (ours, hypothesis's, xdist's), with none of them,
with pytest's own logging and capture off too, as N plain functions rather than one
parametrized one, under ``-v``, ``--import-mode=importlib``, ``--assert=plain`` and
``--junitxml``; and the vector items with only our plugin loaded.

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
    (folder / "plain").mkdir()
    plain = "".join(f"def test_{n}():\n    pass\n\n\n" for n in range(count))
    (folder / "plain" / "test_plain.py").write_text(plain)
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


NO_AUTOLOAD = {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
"""Only pytest's own plugins (and those named with -p): hypothesis, xdist and ours left out."""


def baseline_commands(platform: str) -> dict[str, tuple[list[str], dict[str, str]]]:
    """Where an item's time goes: no-op tests under each plugin set, then the vector items."""
    pytest_ = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rN"]
    ours = ["-p", "runners.pytest_plugin"]
    xdist = ["-p", "no:xdist", "-p", "no:xdist.looponfail"]
    return {
        "no-op, all plugins": ([*pytest_, "noop"], {}),
        "  without ours": ([*pytest_, "-p", "no:hanzo_conformance", "noop"], {}),
        "  without hypothesis": ([*pytest_, "-p", "no:hypothesispytest", "noop"], {}),
        "  without xdist": ([*pytest_, *xdist, "noop"], {}),
        "no-op, pytest only": ([*pytest_, "noop"], NO_AUTOLOAD),
        "  + ours": ([*pytest_, *ours, "noop"], NO_AUTOLOAD),
        "  -s, no logging": ([*pytest_, "-s", "-p", "no:logging", "noop"], NO_AUTOLOAD),
        "  plain functions": ([*pytest_, "plain"], NO_AUTOLOAD),
        "  -v": ([*pytest_[:-1], "-v", "noop"], NO_AUTOLOAD),
        "  importlib": ([*pytest_, "--import-mode=importlib", "noop"], NO_AUTOLOAD),
        "  --assert=plain": ([*pytest_, "--assert=plain", "noop"], NO_AUTOLOAD),
        "  --junitxml": ([*pytest_, "--junitxml=out.xml", "noop"], NO_AUTOLOAD),
        "vectors, all plugins": ([*pytest_, "vectors", "--platform", platform], {}),
        "vectors, ours only": ([*pytest_, *ours, "vectors", "--platform", platform], NO_AUTOLOAD),
        "vectors, ours, -s, no logging": (
            [*pytest_, *ours, "-s", "-p", "no:logging", "vectors", "--platform", platform],
            NO_AUTOLOAD,
        ),
    }


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
    parser.add_argument("--baselines", action="store_true", help="where an item's time goes")
    args = parser.parse_args()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "CI": ""}
    if args.baselines:
        baselines(args, env)
        return
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


def baselines(args: argparse.Namespace, env: dict[str, str]) -> None:
    """Print the per-item slope (wall, CPU) of each baseline command."""
    span = args.cases - args.base
    runs: dict[str, list[tuple[float, float]]] = {}
    with tempfile.TemporaryDirectory(prefix="pytest-items-") as tmp:
        big, small = project(Path(tmp), args.cases), project(Path(tmp), args.base)
        for _ in range(args.runs):  # interleaved, so load changes hit every command alike
            for label, (argv, extra_env) in baseline_commands(args.platform).items():
                pair = [timed(argv, folder, {**env, **extra_env}) for folder in (big, small)]
                slope = tuple((b - s) / span * 1e6 for b, s in zip(*pair, strict=True))
                runs.setdefault(label, []).append(slope)  # type: ignore[arg-type]
    print(f"baselines, {args.platform}: {args.cases} vs {args.base} items, median of {args.runs}, "
          f"load average {os.getloadavg()[0]:.1f}")  # fmt: skip
    print(f"  {'us per item':24s} {'wall':>8s} {'cpu':>8s}")
    for label, slopes in runs.items():
        wall = statistics.median(s[0] for s in slopes)
        cpu = statistics.median(s[1] for s in slopes)
        print(f"  {label:24s} {wall:8.1f} {cpu:8.1f}")


if __name__ == "__main__":
    main()
