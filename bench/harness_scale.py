"""A run of 10k, 100k or a million cases on three platforms: time and peak memory (issue 13).

    python3 bench/harness_scale.py --cases 1000000 [--per-file 50000 | --single-file]
                                   [--platform python --platform rust --platform js]
                                   [--library] [--jobs N] [--fmt-check]

Writes ``--cases`` small synthetic cases (as bench/harness_overhead.py does:
oauth-pkce and mcp-normalization, alternating files of ``--per-file`` cases) into a
temporary folder, then runs them through the product: ``hanzo-conformance run
--format json --output results.json`` on those files (a child process; it streams:
files loaded as reached, the platforms working side by side on chunks, each result
written as it is judged; ``--jobs N`` passes ``run --jobs N``: N harness processes).
Reports the wall time of the run (generation excluded), the CPU time of the whole
process tree (the CLI, its jobs, served children and Node, from ``getrusage`` once
they are reaped), the peak RSS of the CLI's tree (the CLI and its descendants, not
this generating process; sampled every 100 ms from /proc) and its peak PSS (pages
shared by forked processes counted once; every 300 ms), the load average, and the
outcome counts from the results' summary.

``--single-file`` writes every case into one file (a file past 16 MiB is read in parts,
issue 32); ``--fmt-check`` measures ``hanzo-conformance fmt --check`` of the files
instead of a run (its wall time and the peak RSS of its tree).

``--library`` measures the library path instead (``runners.run.batches.run_cases`` called
one platform after another on one file at a time, outcomes written as JSON lines),
as the first measurement of this target did.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import proctree  # noqa: E402
from harness_overhead import write_file  # noqa: E402

from adapters import registry  # noqa: E402
from runners.run.batches import run_cases, start_platform  # noqa: E402
from runners.vectors.format import canonical  # noqa: E402
from runners.vectors.load import load_vector_file  # noqa: E402

PAGE = os.sysconf("SC_PAGE_SIZE")


def _rss(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/statm", encoding="ascii") as f:
            return int(f.read().split()[1]) * PAGE
    except OSError:
        return 0


def _pss(pid: int) -> int:
    """Proportional set size: pages shared between processes (a forked ``--jobs`` harness
    shares its parent's) counted once across them, where RSS counts them in each."""
    try:
        with open(f"/proc/{pid}/smaps_rollup", encoding="ascii") as f:
            for line in f:
                if line.startswith("Pss:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


class PeakTreeRss:
    """Samples the RSS (and, every third sample, the PSS) of this process and its
    descendants until stopped; keeps the peaks."""

    def __init__(self, interval: float = 0.1, root: int | None = None) -> None:
        self.peak = 0
        self.peak_pss = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=self._sample, args=(interval, root or os.getpid()), daemon=True
        )
        self._thread.start()

    def _sample(self, interval: float, me: int) -> None:
        tree, rescan, count = [me], 0.0, 0
        while not self._stop.wait(interval):
            if time.monotonic() >= rescan:  # listing /proc costs more than reading RSS
                tree, rescan = proctree.tree(me, proctree.processes()), time.monotonic() + 1.0
            self.peak = max(self.peak, sum(_rss(pid) for pid in tree))
            count += 1
            if count % 3 == 0:  # smaps_rollup walks the page tables: not every time
                self.peak_pss = max(self.peak_pss, sum(_pss(pid) for pid in tree))

    def stop(self) -> int:
        self._stop.set()
        self._thread.join()
        return self.peak


def _library_run(paths: list[Path], names: list[str], results: Path) -> dict[str, int]:
    platforms = [start_platform(name, registry.create(name)) for name in names]
    counts: dict[str, int] = {}
    with results.open("w", encoding="utf-8") as out:
        for path in paths:
            vector_file = load_vector_file(path)
            gc.freeze()  # the cases live until the file is done: never rescan them
            for platform in platforms:
                for outcome in run_cases(platform, vector_file, vector_file.cases):
                    record = outcome.to_json()
                    counts[record["status"]] = counts.get(record["status"], 0) + 1
                    out.write(json.dumps(record, ensure_ascii=False) + "\n")
            del vector_file
            gc.unfreeze()
            gc.collect()
    for platform in platforms:
        if platform.adapter is not None:
            platform.adapter.stop()
    return counts


def _cli_run(
    folder: Path, names: list[str], results: Path, jobs: int = 1
) -> tuple[dict[str, int], int, int]:
    """The run's counts and the peak RSS of its tree (the CLI and its children only: this
    process, which generated the files, is not part of the product's run)."""
    argv = [sys.executable, "-m", "runners", "run", "--no-default-vectors", "-q"]
    argv += ["--vectors", str(folder), "--format", "json", "--output", str(results)]
    argv += ["--jobs", str(jobs)]
    for name in names:
        argv += ["--platform", name]
    with subprocess.Popen(
        argv, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    ) as cli:
        peak = PeakTreeRss(root=cli.pid)
        _, stderr = cli.communicate()
        top = peak.stop()
    if cli.returncode not in (0, 1):
        raise SystemExit(f"the run failed ({cli.returncode}):\n{stderr[-4000:]}")
    # The summary is the document's last line (results format 2).
    with results.open("rb") as stream:
        stream.seek(max(0, results.stat().st_size - (1 << 20)))
        last = stream.read().rstrip().rsplit(b"\n", 1)[-1].decode("utf-8")
    summary = json.loads(last.removeprefix("},").removeprefix('"summary":')[:-1])
    counts = {s: summary[s] for s in ("pass", "fail", "error", "skip") if summary[s]}
    return counts, top, peak.peak_pss


def _fmt_check(folder: Path, args: argparse.Namespace) -> None:
    argv = [sys.executable, "-m", "runners", "fmt", "--no-default-vectors", "--check"]
    argv += ["--vectors", str(folder)]
    size = sum(p.stat().st_size for p in folder.rglob("*.json"))
    began = time.perf_counter()
    with subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.PIPE, text=True) as cli:
        peak = PeakTreeRss(root=cli.pid)
        out, _ = cli.communicate()
        top = peak.stop()
    elapsed = time.perf_counter() - began
    print(
        f"fmt --check: {args.cases} cases in files of {args.per_file} "
        f"({size / 2**20:.0f} MiB): exit {cli.returncode}, wall {elapsed:.1f} s, peak RSS of "
        f"the tree {top / 2**20:.0f} MiB; {out.strip().splitlines()[-1]}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--per-file", type=int, default=50_000)
    parser.add_argument("--single-file", action="store_true", help="every case in one file")
    parser.add_argument("--fmt-check", action="store_true", help="time `fmt --check`, not a run")
    parser.add_argument("--platform", action="append", default=[])
    parser.add_argument("--library", action="store_true", help="the library path, not the CLI")
    parser.add_argument("--jobs", type=int, default=1, help="the CLI's --jobs (harness processes)")
    args = parser.parse_args()
    names = args.platform or ["python", "rust", "js"]
    if args.single_file:
        args.per_file = args.cases

    folder = Path(tempfile.mkdtemp(prefix="harness-scale-"))
    try:
        vectors = folder / "vectors"
        paths = []
        for index, start in enumerate(range(0, args.cases, args.per_file)):
            domain = ("oauth-pkce", "mcp-normalization")[index % 2]
            sub = vectors / f"{index:03d}"
            sub.mkdir(parents=True)
            count = min(args.per_file, args.cases - start)
            paths.append(write_file(sub, domain, count, seed=index, prefix=f"f{index}-"))
            if args.fmt_check:  # in the canonical layout: `fmt --check` reads it all
                paths[-1].write_text(canonical(json.loads(paths[-1].read_text("utf-8"))), "utf-8")
        load_before = os.getloadavg()
        peak = PeakTreeRss()
        cpu_before = (
            resource.getrusage(resource.RUSAGE_SELF),
            resource.getrusage(resource.RUSAGE_CHILDREN),
        )
        began = time.perf_counter()
        results = folder / "results.json"
        if args.fmt_check:
            peak.stop()
            _fmt_check(vectors, args)
            return
        if args.library:
            counts = _library_run(paths, names, results)
            elapsed = time.perf_counter() - began
            top = peak.stop()
            pss = peak.peak_pss
        else:
            peak.stop()
            counts, top, pss = _cli_run(vectors, names, results, args.jobs)
            elapsed = time.perf_counter() - began
        after = (
            resource.getrusage(resource.RUSAGE_SELF),
            resource.getrusage(resource.RUSAGE_CHILDREN),
        )
        # The library path runs in this process; the CLI's tree is all children (this
        # process only waits and samples /proc).
        counted = (
            zip(after, cpu_before, strict=True) if args.library else [(after[1], cpu_before[1])]
        )
        cpu = sum((a.ru_utime - b.ru_utime) + (a.ru_stime - b.ru_stime) for a, b in counted)
        size = results.stat().st_size
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    pairs = args.cases * len(names)
    what = "library" if args.library else f"CLI --jobs {args.jobs}"
    print(
        f"{what}: {args.cases} cases x {len(names)} platforms "
        f"({', '.join(names)}), files of {args.per_file}: wall {elapsed:.1f} s "
        f"({elapsed / pairs * 1e6:.1f} us per case-platform), CPU of the tree {cpu:.1f} s "
        f"({cpu / pairs * 1e6:.1f} us per case-platform), peak RSS of the tree "
        f"{top / 2**20:.0f} MiB (PSS {pss / 2**20:.0f} MiB), results {size / 2**20:.0f} MiB, "
        f"{counts}; load average "
        f"{load_before[0]:.2f} before, {os.getloadavg()[0]:.2f} after"
    )


if __name__ == "__main__":
    main()
