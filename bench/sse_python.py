"""Throughput of impl_python's SseFrameBuffer beside httpx-sse 0.4.3, on the shared SSE workloads.

Usage (from the repository root)::

    pip install httpx-sse==0.4.3          # or: pip install '.[bench]'
    python3 /work/shared/bench/gen_sse.py --out /tmp/sse-bench-data
    python3 bench/sse_python.py /tmp/sse-bench-data [--repeat 9] [--clock cpu]

Chunkings follow the bench README: ``c64k`` (65,536-byte chunks), ``rand512`` (chunk sizes
from ``<file>.rand512.u32``) and ``c1`` (first 256 KiB, one byte at a time). Both parsers get
the same byte chunks and both timings include UTF-8 decoding: SseFrameBuffer.feed takes bytes
(SSE-11); httpx-sse gets each chunk through one incremental UTF-8 decoder first (empty decoder
outputs are dropped, as httpx's ``iter_text`` does). MB/s is input bytes / 10^6 per
second, median of ``--repeat`` runs, both parsers interleaved in one process; the paired
ratio is the median over repetitions of httpx-sse's time / SseFrameBuffer's time in that
repetition (the two runs of one repetition share the machine's load at that moment).

httpx-sse is driven exactly as its ``EventSource.iter_sse`` does: each text chunk goes through
``SSELineDecoder.decode`` (``flush`` at the end), each line through ``line.rstrip("\\n")`` and
``SSEDecoder.decode``. httpx-sse imports httpx at package level; only its ``_decoders`` and
``_models`` modules are needed, so they are loaded without executing the package ``__init__``.

Frame counts are checked against manifest.json: httpx-sse must produce ``any_field_events``;
SseFrameBuffer dispatches on any accepted field without carrying the id over (SSE-8), so its
count lies between ``spec_events`` and ``blank_lines``, and both parsers' data lengths must sum
to ``spec_data_chars`` (blocks without a data line contribute "").
"""

from __future__ import annotations

import argparse
import codecs
import importlib
import importlib.util
import json
import statistics
import struct
import sys
import time
import types
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from impl_python.sse import SseFrameBuffer

C64K = 65536
C1_PREFIX = 262144


def load_httpx_sse_decoders() -> types.ModuleType:
    """Import ``httpx_sse._decoders`` without running ``httpx_sse/__init__.py`` (needs httpx)."""
    spec = importlib.util.find_spec("httpx_sse")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("httpx-sse is not installed: pip install httpx-sse==0.4.3")
    if "httpx_sse" not in sys.modules:
        package = types.ModuleType("httpx_sse")
        package.__path__ = list(spec.submodule_search_locations)
        sys.modules["httpx_sse"] = package
    return importlib.import_module("httpx_sse._decoders")


def chunkings(data_dir: Path, name: str, raw: bytes) -> dict[str, tuple[int, list[bytes]]]:
    """Chunking name -> (input bytes, byte chunks)."""
    sizes_raw = (data_dir / f"{name}.sse.rand512.u32").read_bytes()
    sizes = struct.unpack(f"<{len(sizes_raw) // 4}I", sizes_raw)
    rand: list[bytes] = []
    pos = 0
    for size in sizes:
        rand.append(raw[pos : pos + size])
        pos += size
    if pos != len(raw):
        raise SystemExit(f"{name}: rand512 plan covers {pos} of {len(raw)} bytes")
    prefix = raw[:C1_PREFIX]
    return {
        "c64k": (len(raw), [raw[i : i + C64K] for i in range(0, len(raw), C64K)]),
        "rand512": (len(raw), rand),
        "c1": (len(prefix), [prefix[i : i + 1] for i in range(len(prefix))]),
    }


Result = tuple[int, int]  # (frames, total data chars)


def run_hanzo(chunks: list[bytes]) -> Result:
    buffer = SseFrameBuffer()
    frames = chars = 0
    for chunk in chunks:
        for frame in buffer.feed(chunk):
            frames += 1
            chars += len(frame.data)
    return frames, chars


def make_run_httpx(decoders: types.ModuleType) -> Callable[[list[bytes]], Result]:
    def run_httpx(chunks: list[bytes]) -> Result:
        utf8 = codecs.getincrementaldecoder("utf-8")()
        line_decoder = decoders.SSELineDecoder()
        decoder = decoders.SSEDecoder()
        frames = chars = 0
        for chunk in chunks:
            text = utf8.decode(chunk)
            if not text:
                continue
            for line in line_decoder.decode(text):
                sse = decoder.decode(line.rstrip("\n"))
                if sse is not None:
                    frames += 1
                    chars += len(sse.data)
        for line in line_decoder.flush():
            sse = decoder.decode(line.rstrip("\n"))
            if sse is not None:
                frames += 1
                chars += len(sse.data)
        return frames, chars

    return run_httpx


def check(parser: str, name: str, chunking: str, got: Result, reference: dict[str, int]) -> None:
    frames, chars = got
    problems = []
    if chars != reference["spec_data_chars"]:
        problems.append(f"data chars {chars} != spec_data_chars {reference['spec_data_chars']}")
    if parser == "httpx-sse" and frames != reference["any_field_events"]:
        problems.append(f"frames {frames} != any_field_events {reference['any_field_events']}")
    if parser == "hanzo" and not reference["spec_events"] <= frames <= reference["blank_lines"]:
        problems.append(f"frames {frames} outside [spec_events, blank_lines]")
    if problems:
        raise SystemExit(f"{parser} {name} {chunking}: " + "; ".join(problems))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("data_dir", type=Path)
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--workload", action="append", help="only these workloads")
    parser.add_argument("--chunking", action="append", help="only these chunkings")
    parser.add_argument(
        "--clock",
        choices=["wall", "cpu"],
        default="wall",
        help="wall: perf_counter; cpu: this process's CPU time (steadier on a shared machine)",
    )
    args = parser.parse_args()
    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    manifest = json.loads((args.data_dir / "manifest.json").read_text())
    parsers: dict[str, Callable[[list[bytes]], Result]] = {
        "hanzo": run_hanzo,
        "httpx-sse": make_run_httpx(load_httpx_sse_decoders()),
    }
    print(
        "| workload | chunking | hanzo MB/s | httpx-sse MB/s | ratio | paired ratio (min-max) "
        "| hanzo frames |"
    )
    print("|---|---|---|---|---|---|---|")
    for name, info in manifest["workloads"].items():
        if args.workload and name not in args.workload:
            continue
        raw = (args.data_dir / info["file"]).read_bytes()
        for chunking, (nbytes, chunks) in chunkings(args.data_dir, name, raw).items():
            if args.chunking and chunking not in args.chunking:
                continue
            reference = info["reference_c1_prefix" if chunking == "c1" else "reference_full"]
            times: dict[str, list[float]] = {p: [] for p in parsers}
            results: dict[str, Result] = {}
            for _ in range(args.repeat):
                for pname, run in parsers.items():  # interleaved: same machine noise for both
                    start = clock()
                    results[pname] = run(chunks)
                    times[pname].append(clock() - start)
            for pname, got in results.items():
                check(pname, name, chunking, got, reference)
            mbps = {p: nbytes / 1e6 / statistics.median(t) for p, t in times.items()}
            # Each repetition times both parsers back to back, so the ratio within one
            # repetition sees the same machine load; its median drops the disturbed pairs.
            paired = [h / z for z, h in zip(times["hanzo"], times["httpx-sse"], strict=True)]
            print(
                f"| {name} | {chunking} | {mbps['hanzo']:.1f} | {mbps['httpx-sse']:.1f} | "
                f"{mbps['hanzo'] / mbps['httpx-sse']:.2f} | {statistics.median(paired):.2f} "
                f"({min(paired):.2f}-{max(paired):.2f}) | {results['hanzo'][0]} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
