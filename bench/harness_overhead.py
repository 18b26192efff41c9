"""What the harness costs per case, beyond the implementations' own work (issue 13).

    python3 bench/harness_overhead.py [--cases 50000] [--platform python --platform rust ...]
                                      [--domain oauth-pkce --domain mcp-normalization]
                                      [--in-process] [--keep DIR]

Writes synthetic vector files of N small cases into a temporary folder:

* ``oauth-pkce``: random verifiers of 43-128 unreserved characters (expected: the
  challenge, base64url(SHA-256), worked out here from PKCE-4) and one in eight too
  short (expected: ``invalid_verifier``);
* ``mcp-normalization``: the checked-in cases of vectors/mcp-normalization.json,
  repeated under fresh ids (their expectations are the reviewed ones).

Then, per file:

* **load**: ``load_vector_file`` (parse, I-JSON walk, whole-file and per-case schema
  checks, clause ids), in microseconds per case;
* **own work**, per platform, on the same inputs, in process: the time the
  platform's JSON layer alone takes, which is what the harness cannot save:
  python, ``impl_python.conformance.<domain>.run(input)`` per case; rust, the
  extension's ``run_batch(json_text)`` on batches of 1000 (serde in, the JSON
  layer, serde out: the crate side of the boundary); js, ``DOMAINS[domain](input)``
  per case in a Node process (``bench/harness_overhead_js.mjs``);
* **harness**: ``runners.run.batches.run_cases`` on a started platform (served from its
  child unless ``--in-process``; js through its worker), then the outcomes made into
  what the CLI makes of them (``runners.run.stream.encode_chunk`` with results lines
  wanted: a results line per pass, a record per other result), all of it checked to
  pass. The cases' own lines of the results document (``case_lines``, one per case
  whatever the number of platforms) are made by the same call; their CPU time is
  measured alone and taken off, so what is counted is what a platform adds. The
  file's cases are frozen out of the collector's sight after loading
  (``gc.freeze``), as the CLI's stream does for each file;
* **overhead** = harness - own work, per case-platform, twice: from the run's wall
  time, and from its CPU time (this process, all threads, plus the served child or
  the Node worker, read from /proc), which a shared machine disturbs less. The
  own work is CPU time too (Node: its own clock around the calls). Those runs make
  each case's request anew, as the first platform of a run does; one more run
  reuses them, as the second and third platforms do ("requests reused"); "in a run
  of three platforms" weighs the two as such a run does (one in three makes them).

Figures and the load average at the time go to stdout; bench/history-2026-11.md ("Harness
overhead") records them.
"""

from __future__ import annotations

import argparse
import base64
import gc
import hashlib
import importlib
import json
import os
import random
import shutil
import string
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from adapters import registry  # noqa: E402 - after the path setup above
from adapters.js import find_node  # noqa: E402
from runners.run.batches import (  # noqa: E402
    OWN_REQUEST,
    StartedPlatform,
    run_cases,
    start_platform,
)
from runners.run.stream import encode_chunk  # noqa: E402
from runners.vectors.load import VectorFile, load_vector_file  # noqa: E402

UNRESERVED = string.ascii_letters + string.digits + "-._~"
DOMAINS = ("oauth-pkce", "mcp-normalization")


def _challenge(verifier: str) -> str:
    digest = hashlib.sha256(verifier.encode("ascii")).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def pkce_cases(count: int, rng: random.Random, prefix: str = "") -> Iterator[dict[str, Any]]:
    for i in range(count):
        if i % 8 == 7:
            verifier = "".join(rng.choices(UNRESERVED, k=rng.randint(1, 42)))
            outcome: dict[str, Any] = {"error": "invalid_verifier"}
            clauses = ["PKCE-1", "PKCE-3"]
        else:
            verifier = "".join(rng.choices(UNRESERVED, k=rng.randint(43, 128)))
            outcome = {"expected": {"challenge": _challenge(verifier)}}
            clauses = ["PKCE-1", "PKCE-2", "PKCE-4"]
        yield {
            "id": f"{prefix}synthetic-{i}",
            "description": "A random verifier (bench/harness_overhead.py).",
            "tags": ["length"],
            "source": {"kind": "derived", "ref": "PKCE-4, computed with hashlib"},
            "clauses": clauses,
            "input": {"verifier": verifier},
            **outcome,
        }


def repeated_cases(domain: str, count: int, prefix: str = "") -> Iterator[dict[str, Any]]:
    document = json.loads((ROOT / "vectors" / f"{domain}.json").read_text(encoding="utf-8"))
    base = document["cases"]
    for i in range(count):
        case = dict(base[i % len(base)])
        case["id"] = f"{prefix}{case['id']}-{i}"
        yield case


def write_file(folder: Path, domain: str, count: int, seed: int = 13, prefix: str = "") -> Path:
    document = json.loads((ROOT / "vectors" / f"{domain}.json").read_text(encoding="utf-8"))
    cases = (
        pkce_cases(count, random.Random(seed), prefix)
        if domain == "oauth-pkce"
        else repeated_cases(domain, count, prefix)
    )
    document["cases"] = list(cases)
    path = folder / f"{domain}.json"
    path.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    return path


def _timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    began = time.perf_counter()
    result = fn()
    return time.perf_counter() - began, result


def _cpu(fn: Callable[[], Any]) -> float:
    """CPU seconds of this process (all threads) running ``fn``: steadier than wall time
    on a shared machine, and what "work" means for the own-work baselines."""
    began = time.process_time()
    fn()
    return time.process_time() - began


def _process_tree(pid: int) -> list[int]:
    """``pid`` and its descendants: a confined worker runs under ``unshare``/``prlimit``
    (adapters/isolation.py), so the platform's process is a grandchild."""
    found, todo = [], [pid]
    while todo:
        p = todo.pop()
        found.append(p)
        try:
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/children", encoding="ascii") as f:
                    todo.extend(int(c) for c in f.read().split())
        except OSError:
            pass
    return found


def _child_cpu(pid: int | None) -> float:
    """CPU seconds of a child process and its descendants so far, all their threads (0
    without one): from ``/proc/PID/task/*/schedstat`` (nanoseconds) where the kernel has
    it, else utime + stime from ``/proc/PID/stat`` (clock ticks: 10 ms, too coarse for
    short slices)."""
    if pid is None:
        return 0.0
    return sum(_one_cpu(p) for p in _process_tree(pid))


def _one_cpu(pid: int) -> float:
    try:
        total = 0
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/schedstat", encoding="ascii") as f:
                total += int(f.read().split()[0])
        return total / 1e9
    except (OSError, ValueError, IndexError):
        try:
            with open(f"/proc/{pid}/stat", encoding="ascii") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            return 0.0  # ended meanwhile
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def own_work_python(vector_file: VectorFile) -> float:
    all_cases = own_slice_python(vector_file.domain, list(vector_file.cases))
    all_cases()  # warm-up
    return min(_cpu(all_cases) for _ in range(3))


def own_work_rust(vector_file: VectorFile) -> float:
    all_batches = own_slice_rust(vector_file.domain, list(vector_file.cases))
    all_batches()
    return min(_cpu(all_batches) for _ in range(3))


def own_work_js(vector_file: VectorFile, folder: Path) -> float:
    inputs = folder / f"{vector_file.domain}.inputs.json"
    inputs.write_text(json.dumps([c.input for c in vector_file.cases]), encoding="utf-8")
    script = ROOT / "bench" / "harness_overhead_js.mjs"
    out = subprocess.run(
        [find_node(), str(script), vector_file.domain, str(inputs)],
        capture_output=True,
        text=True,
        check=True,
    )
    return float(out.stdout.strip()) * 1e-6 * len(vector_file.cases)


def own_slice_python(domain: str, cases: list[Any]) -> Callable[[], None]:
    """The python implementation's own work on ``cases``, as a function to time."""
    from impl_python.errors import HanzoError

    run = importlib.import_module(f"impl_python.conformance.{domain.replace('-', '_')}").run
    inputs = [c.input for c in cases]

    def all_cases() -> None:
        for case_input in inputs:
            try:  # noqa: SIM105 - contextlib.suppress would add its own cost to the timing
                run(case_input)
            except HanzoError:
                pass

    return all_cases


def own_slice_rust(domain: str, cases: list[Any]) -> Callable[[], None]:
    """The rust extension's own work on ``cases`` (batches of 1000), as a function to time."""
    import hanzo_conformance_rust as ext

    texts = [
        json.dumps([{"id": c.id, "domain": c.domain, "input": c.input} for c in batch])
        for batch in (cases[i : i + 1000] for i in range(0, len(cases), 1000))
    ]

    def all_batches() -> None:
        for text in texts:
            ext.run_batch(text)

    return all_batches


def paired(platform: StartedPlatform, vector_file: VectorFile, slices: int) -> list[float]:
    """Overhead in seconds per case of each of ``slices`` slices of the file: the
    harness's CPU on the slice (this process and the child, requests made anew) minus
    the platform's own work on the same slice, timed just before and just after it.
    A slow phase of the machine (seconds long here) then weighs on both sides of one
    difference instead of on one side of the whole-file figure."""
    own_for = {"python": own_slice_python, "rust": own_slice_rust}[platform.name]
    cases = list(vector_file.cases)
    size = len(cases) // slices

    def never_named(domain: str, case: str) -> bool:
        return False

    worker = getattr(platform.adapter, "_worker", None)
    pid = worker.proc.pid if worker is not None else None
    run_cases(platform, vector_file, tuple(cases[:size]))  # warm-up
    overheads = []
    for k in range(slices):
        part = tuple(cases[k * size : (k + 1) * size])
        own = own_for(vector_file.domain, list(part))
        own()  # warm-up
        for case in part:
            case.__dict__.pop(OWN_REQUEST, None)
            case.__dict__.pop("_run_own_plain_request", None)
        case_lines = _cpu(lambda p=part: encode_chunk(p, [], never_named, True))
        before = _cpu(own)
        child = _child_cpu(pid)
        cpu = time.process_time()
        outcomes = run_cases(platform, vector_file, part)
        encode_chunk(part, [outcomes], never_named, True)
        cpu = time.process_time() - cpu - case_lines
        child = _child_cpu(pid) - child
        after = _cpu(own)
        overheads.append((cpu + child - (before + after) / 2) / len(part))
    return overheads


def harness(
    platform: StartedPlatform, vector_file: VectorFile
) -> tuple[tuple[float, float, float], float]:
    """(wall seconds, CPU seconds of this process, of the platform's child) of a run
    that makes its requests, and the CPU seconds of this process in a run that reuses
    them (as the second and third platform of a run do)."""

    cases = vector_file.cases

    def never_named(domain: str, case: str) -> bool:
        return False

    def run() -> int:
        outcomes = run_cases(platform, vector_file, cases)
        chunk = encode_chunk(cases, [outcomes], never_named, True)
        _, passes, _, records = chunk.platforms[0]
        if passes != len(cases) or records:
            statuses = [r["status"] for _, r in records]
            raise SystemExit(f"{platform.name} {vector_file.domain}: not all pass: {statuses[:5]}")
        return passes

    # The cases' own lines (once per case, not per platform): measured alone, taken off.
    case_lines = min(_cpu(lambda: encode_chunk(cases, [], never_named, True)) for _ in range(3))
    run()  # warm-up (the JIT, caches, the child's imports)
    worker = getattr(platform.adapter, "_worker", None)
    pid = worker.proc.pid if worker is not None else None
    best = (float("inf"), float("inf"), float("inf"))
    reused = float("inf")
    for attempt in range(3):
        # Runs 0 and 1 make their requests (and their lines) anew, as the first
        # platform of a run does; run 2 reuses them, as later platforms do (_own_request).
        if attempt < 2:
            for case in vector_file.cases:
                case.__dict__.pop(OWN_REQUEST, None)
                case.__dict__.pop("_run_own_plain_request", None)
        child = _child_cpu(pid)
        cpu = time.process_time()
        wall = time.perf_counter()
        run()
        wall = time.perf_counter() - wall - case_lines
        cpu = time.process_time() - cpu
        cpu -= case_lines
        if attempt == 2:
            reused = cpu
        else:
            best = min(best, (wall, cpu, _child_cpu(pid) - child), key=lambda t: t[1] + t[2])
    return best, reused


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=50_000)
    parser.add_argument("--platform", action="append", default=[])
    parser.add_argument("--domain", action="append", default=[])
    parser.add_argument("--in-process", action="store_true")
    parser.add_argument("--keep", type=Path, help="write the files here (kept) instead")
    parser.add_argument(
        "--paired",
        type=int,
        default=0,
        metavar="SLICES",
        help="also the overhead of python and rust from SLICES slices, each paired with its"
        " own work timed just before and after it (median and range)",
    )
    args = parser.parse_args()
    platforms = args.platform or ["python", "rust", "js"]
    domains = args.domain or list(DOMAINS)

    folder = args.keep or Path(tempfile.mkdtemp(prefix="harness-overhead-"))
    folder.mkdir(parents=True, exist_ok=True)
    print(f"load average {os.getloadavg()[0]:.2f}; {args.cases} cases per file; {folder}")
    try:
        for domain in domains:
            path = write_file(folder, domain, args.cases)
            gc.collect()
            load_s, vector_file = _timed(lambda p=path: load_vector_file(p))
            gc.collect()
            gc.freeze()  # as runners.run.stream does with each file it runs
            n = len(vector_file.cases)
            print(f"\n{domain}: load {load_s / n * 1e6:.1f} us/case ({load_s:.2f} s)")
            for name in platforms:
                own = {
                    "python": lambda vf=vector_file: own_work_python(vf),
                    "rust": lambda vf=vector_file: own_work_rust(vf),
                    "js": lambda vf=vector_file: own_work_js(vf, folder),
                }[name]()
                adapter = registry.create(name, timeout=10.0, in_process=args.in_process)
                platform = start_platform(name, adapter)
                if platform.failure:
                    raise SystemExit(platform.failure)
                try:
                    (wall, cpu, child), reused = harness(platform, vector_file)
                    slices = (
                        paired(platform, vector_file, args.paired)
                        if args.paired and name in ("python", "rust")
                        else []
                    )
                finally:
                    adapter.stop()
                print(
                    f"  {name:7} own {own / n * 1e6:6.1f} us | wall {wall / n * 1e6:6.1f} us,"
                    f" overhead {(wall - own) / n * 1e6:6.1f} us | CPU {cpu / n * 1e6:6.1f} us"
                    f" + child {child / n * 1e6:5.1f} us, overhead"
                    f" {(cpu + child - own) / n * 1e6:6.1f} us  (per case);"
                    f" CPU with requests reused {reused / n * 1e6:6.1f} us, overhead"
                    f" {(reused + child - own) / n * 1e6:6.1f} us; in a run of three platforms"
                    f" {((cpu + 2 * reused) / 3 + child - own) / n * 1e6:6.1f} us"
                )
                if slices:
                    us = sorted(x * 1e6 for x in slices)
                    print(
                        f"  {name:7} paired over {len(us)} slices: overhead median"
                        f" {us[len(us) // 2]:6.1f} us (range {us[0]:.1f}-{us[-1]:.1f})"
                    )
            gc.unfreeze()
    finally:
        if args.keep is None:
            shutil.rmtree(folder, ignore_errors=True)
    print(f"\nload average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
