"""The SSE parsers against their anchors, each in its own fresh process per cell (issue 33).

Usage (from the repository root)::

    python3 /work/shared/bench/gen_sse.py --out /tmp/sse-bench-data
    pip install -e '.[bench]'; npm ci --prefix bench
    cargo build --release -p hanzo-sse-bench
    .venv/bin/python bench/sse_cells.py /tmp/sse-bench-data [--rounds 3] [--clock wall|cpu]
        [--platform python|js|rust]... [--workload W]... [--chunking C]... [--instructions]

A cell is a workload (``llm-tokens``, ``big-multiline``, ``mixed-endings``) in a chunking
(``c64k``, ``rand512``, ``c1`` = the first 256 KiB one byte per chunk; bench/README.md). For
every platform and cell, three fresh processes run one after the other, each loading the
data, running its parser once as a warm-up and then ``--runs`` (3) timed runs:

- the project's parser: ``SseFrameBuffer.feed(bytes)`` on the byte chunks (Python
  ``impl_python.sse``, JS ``impl_js/src/sse.js``, Rust ``hanzo_sse`` through ``feed``),
  decoding included, as a caller pays it;
- its anchor, fed the same byte chunks and decoding inside the timed region: httpx-sse
  0.4.3 behind httpx's own ``TextDecoder`` (driven as ``EventSource.iter_sse`` over
  ``Response.iter_text`` does), eventsource-parser 4.1.3 behind one streaming
  ``TextDecoder`` (``decode(chunk, {stream: true})``), eventsource-stream 0.2.3 (which
  decodes itself);
- the line-scan limit: every LF of the same chunks found by the platform's own
  single-character search resumed after each hit, ``str.find("\\n")`` (Python) and
  ``indexOf("\\n")`` (JS) over the chunks' text decoded before the timing, ``memchr(b'\\n')``
  over the bytes (Rust): the least a parser must do to find its lines.

Each Rust parser is a binary of its own (``sse-cell-hanzo``, ``sse-cell-eventsource-stream``,
``sse-cell-memchr``): in one binary, a change to one parser moved another's code and its
speed (bench/README.md, session 20).

MB/s is input bytes / 10^6 / the median of the timed runs. The ratio is the project's
MB/s / the anchor's, the share is the project's MB/s / the scan's. With ``--rounds N``
the three processes of a cell are run N times, their order turned each round, and the
ratio and share are the median over rounds of the ratio within one round (the processes
of a round ran within seconds of each other), lowest and highest beside. Frame counts and
data lengths are checked against manifest.json in every child.

``--instructions`` runs each child under ``valgrind --tool=cachegrind --cache-sim=no``
twice, with 0 and with ``--runs`` timed runs after the warm-up, and reports instructions
per input byte of one run ((Ir(runs) - Ir(0)) / runs / bytes): a figure the machine's
load cannot move. JIT code is counted like any other (valgrind runs Node's threads
serially, so its background compiler and GC are counted too), but a JIT's choices may
differ under valgrind's slower clock; ratios are then anchor Ir / project Ir.
"""

from __future__ import annotations

import argparse
import codecs
import importlib
import importlib.util
import json
import os
import re
import shutil
import statistics
import struct
import subprocess
import sys
import time
import types
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORKLOADS = ("llm-tokens", "big-multiline", "mixed-endings")
CHUNKINGS = ("c64k", "rand512", "c1")
PLATFORMS = ("python", "js", "rust")
ANCHORS = {"python": "httpx-sse", "js": "eventsource-parser", "rust": "eventsource-stream"}
C64K = 65536
C1_PREFIX = 262144

Counts = tuple[int, int]  # frames, data code points


# --- the Python child ---------------------------------------------------------------


def load_chunks(data_dir: Path, workload: str, chunking: str) -> list[bytes]:
    raw = (data_dir / f"{workload}.sse").read_bytes()
    if chunking == "c64k":
        return [raw[i : i + C64K] for i in range(0, len(raw), C64K)]
    if chunking == "c1":
        return [raw[i : i + 1] for i in range(C1_PREFIX)]
    if chunking != "rand512":
        raise SystemExit(f"unknown chunking {chunking}")
    plan = (data_dir / f"{workload}.sse.rand512.u32").read_bytes()
    chunks = []
    at = 0
    for (size,) in struct.iter_unpack("<I", plan):
        chunks.append(raw[at : at + size])
        at += size
    if at != len(raw):
        raise SystemExit(f"{workload}: the rand512 plan covers {at} of {len(raw)} bytes")
    return chunks


def import_httpx_sse() -> tuple[types.ModuleType, type]:
    """httpx-sse's decoders and httpx's ``TextDecoder`` (what ``Response.iter_text`` uses)."""
    try:
        from httpx._decoders import TextDecoder
    except ImportError:
        raise SystemExit("httpx is not installed: pip install -e '.[bench]'") from None
    if importlib.util.find_spec("httpx_sse") is None:
        raise SystemExit("httpx-sse is not installed: pip install -e '.[bench]'")
    return importlib.import_module("httpx_sse._decoders"), TextDecoder


def python_runner(parser: str, chunks: list[bytes]) -> Callable[[], Counts]:
    if parser == "hanzo":
        sys.path.insert(0, str(ROOT))
        from impl_python.sse import SseFrameBuffer

        def run_hanzo() -> Counts:
            buffer = SseFrameBuffer()
            frames = chars = 0
            for chunk in chunks:
                for frame in buffer.feed(chunk):
                    frames += 1
                    chars += len(frame.data)
            return frames, chars

        return run_hanzo
    if parser == "httpx-sse":
        decoders, text_decoder = import_httpx_sse()

        def run_httpx_sse() -> Counts:
            # EventSource.iter_sse over Response.iter_text: httpx decodes each chunk with
            # its TextDecoder and yields the non-empty texts (no chunk size: TextChunker
            # passes them through); httpx-sse splits lines and decodes each.
            utf8 = text_decoder()
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
            text = utf8.flush()
            for line in (*line_decoder.decode(text), *line_decoder.flush()):
                sse = decoder.decode(line.rstrip("\n"))
                if sse is not None:
                    frames += 1
                    chars += len(sse.data)
            return frames, chars

        return run_httpx_sse
    if parser == "scan":
        utf8 = codecs.getincrementaldecoder("utf-8")()
        texts = [utf8.decode(chunk) for chunk in chunks]

        def run_scan() -> Counts:
            endings = 0
            for text in texts:
                at = text.find("\n")
                while at >= 0:
                    endings += 1
                    at = text.find("\n", at + 1)
            return endings, 0

        return run_scan
    raise SystemExit(f"unknown python parser {parser}")


def child(args: argparse.Namespace) -> None:
    parser, workload, chunking = args.child
    chunks = load_chunks(args.data_dir, workload, chunking)
    run = python_runner(parser, chunks)
    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    checked = run()  # the warm-up
    seconds = []
    for _ in range(args.runs):
        began = clock()
        got = run()
        seconds.append(clock() - began)
        if got != checked:
            raise SystemExit("counts differ between runs")
    print(
        json.dumps(
            {
                "bytes": sum(map(len, chunks)),
                "seconds": seconds,
                "frames": checked[0],
                "data_chars": checked[1],
            }
        )
    )


# --- the driver ---------------------------------------------------------------------


def find_node() -> str:
    sys.path.insert(0, str(ROOT))
    from adapters.js import find_node as find

    return str(find())


# One binary per Rust parser (bench/sse-rust/src/cell.rs says why).
RUST_BINARIES = {
    "hanzo": "sse-cell-hanzo",
    "eventsource-stream": "sse-cell-eventsource-stream",
    "scan": "sse-cell-memchr",
}


def rust_binaries() -> dict[str, Path]:
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target")) / "release"
    binaries = {parser: target / name for parser, name in RUST_BINARIES.items()}
    if not all(binary.exists() for binary in binaries.values()):
        raise SystemExit("build them first: cargo build --release -p hanzo-sse-bench")
    return binaries


def command(
    platform: str, parser: str, cell: tuple[str, str], args: argparse.Namespace, runs: int
) -> list[str]:
    workload, chunking = cell
    data = str(args.data_dir)
    if platform == "python":
        return [
            sys.executable,
            str(Path(__file__).resolve()),
            data,
            "--child",
            parser,
            workload,
            chunking,
            "--runs",
            str(runs),
            "--clock",
            args.clock,
        ]
    if platform == "js":
        script = str(ROOT / "bench" / "sse-cell.mjs")
        return [args.node, script, data, parser, workload, chunking, str(runs), args.clock]
    clock = ["--clock", args.clock]
    binary = str(args.rust[parser])
    return [binary, data, *clock, "--cell", parser, workload, chunking, str(runs)]


def run_child(argv: list[str]) -> dict[str, object]:
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    done = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=ROOT, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed:\n{done.stderr}")
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    result["stderr"] = done.stderr
    return result


IR = re.compile(r"I\s+refs:\s+([\d,]+)")


def instructions(argv: list[str]) -> int:
    tool = ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null"]
    stderr = str(run_child([*tool, *argv])["stderr"])
    found = IR.search(stderr)
    if found is None:
        raise SystemExit(f"no instruction count from valgrind for {argv}:\n{stderr[-2000:]}")
    return int(found.group(1).replace(",", ""))


def check(platform: str, parser: str, cell: tuple[str, str], got: dict, manifest: dict) -> None:
    workload, chunking = cell
    info = manifest["workloads"][workload]
    ref = info["reference_c1_prefix" if chunking == "c1" else "reference_full"]
    frames, chars = got["frames"], got["data_chars"]
    problems = []
    if parser == "scan":
        # Every line of a workload's LF-only part ends with LF; CR endings are
        # mixed-endings' only, so there the count is lower than the line count.
        if not 0 < frames <= ref["lines"]:
            problems.append(f"{frames} line feeds for {ref['lines']} lines")
    else:
        if chars != ref["spec_data_chars"]:
            problems.append(f"data chars {chars} != spec_data_chars {ref['spec_data_chars']}")
        # httpx-sse dispatches a block with any field (and carries the id over);
        # eventsource-parser and eventsource-stream only blocks with data (WHATWG); the
        # project dispatches any block with an accepted field, the id not carried (SSE-8).
        wanted = {"httpx-sse": "any_field_events"}.get(parser, "spec_events")
        if parser == "hanzo":
            if not ref["spec_events"] <= frames <= ref["blank_lines"]:
                problems.append(f"frames {frames} outside [spec_events, blank_lines]")
        elif frames != ref[wanted]:
            problems.append(f"frames {frames} != {wanted} {ref[wanted]}")
    if problems:
        raise SystemExit(f"{platform} {parser} {workload} {chunking}: " + "; ".join(problems))


def time_cell(
    platform: str, cell: tuple[str, str], args: argparse.Namespace, manifest: dict
) -> dict[str, list[float]]:
    """MB/s of each of the three parsers, one entry per round."""
    parsers = ["hanzo", ANCHORS[platform], "scan"]
    speeds: dict[str, list[float]] = {p: [] for p in parsers}
    for round_ in range(args.rounds):
        order = parsers if round_ % 2 == 0 else parsers[::-1]
        for parser in order:
            got = run_child(command(platform, parser, cell, args, args.runs))
            check(platform, parser, cell, got, manifest)
            seconds = statistics.median(got["seconds"])  # type: ignore[arg-type]
            speeds[parser].append(int(got["bytes"]) / 1e6 / seconds)  # type: ignore[call-overload]
    return speeds


def count_cell(
    platform: str, cell: tuple[str, str], args: argparse.Namespace, manifest: dict
) -> dict[str, float]:
    """Instructions per input byte of one run of each of the three parsers."""
    per_byte = {}
    for parser in ["hanzo", ANCHORS[platform], "scan"]:
        base = instructions(command(platform, parser, cell, args, 0))
        argv = command(platform, parser, cell, args, args.runs)
        got = run_child(argv)
        check(platform, parser, cell, got, manifest)
        full = instructions(argv)
        per_byte[parser] = (full - base) / args.runs / int(got["bytes"])  # type: ignore[call-overload]
    return per_byte


def spread(values: list[float]) -> str:
    mid = statistics.median(values)
    if len(values) == 1:
        return f"{mid:.2f}"
    return f"{mid:.2f} ({min(values):.2f}-{max(values):.2f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("data_dir", type=Path)
    parser.add_argument("--platform", action="append", choices=PLATFORMS)
    parser.add_argument("--workload", action="append", choices=WORKLOADS)
    parser.add_argument("--chunking", action="append", choices=CHUNKINGS)
    parser.add_argument("--runs", type=int, default=3, help="timed runs per process (3)")
    parser.add_argument("--rounds", type=int, default=1, help="processes per parser and cell")
    parser.add_argument(
        "--clock",
        choices=["wall", "cpu"],
        default="wall",
        help="wall (default) or the child's CPU time (leaves out waiting for a core)",
    )
    parser.add_argument("--instructions", action="store_true", help="count with valgrind")
    parser.add_argument("--node", help="the node to run (default: the harness's, adapters.js)")
    parser.add_argument("--child", nargs=3, metavar=("PARSER", "WORKLOAD", "CHUNKING"))
    args = parser.parse_args()
    if args.child:
        child(args)
        return
    manifest = json.loads((args.data_dir / "manifest.json").read_text())
    platforms = args.platform or list(PLATFORMS)
    cells = [(w, c) for w in args.workload or WORKLOADS for c in args.chunking or CHUNKINGS]
    if "js" in platforms and not args.node:
        args.node = find_node()
    if "rust" in platforms:
        args.rust = rust_binaries()
    if args.instructions and shutil.which("valgrind") is None:
        raise SystemExit("--instructions needs valgrind")
    if args.instructions:
        print(f"instructions per input byte, one run ((Ir({args.runs}) - Ir(0)) / {args.runs})\n")
        print(
            "| platform | workload | chunking | project | anchor | scan | anchor / project "
            "| project share of scan |"
        )
    else:
        print(
            f"MB/s: input bytes / 10^6 / median of {args.runs} timed runs after a warm-up, "
            f"{args.clock} clock, one fresh process per parser and cell, {args.rounds} round(s)\n"
        )
        print(
            "| platform | workload | chunking | project MB/s | anchor MB/s | scan MB/s "
            "| project / anchor | project share of scan |"
        )
    print("|---|---|---|---|---|---|---|---|")
    for platform in platforms:
        anchor = ANCHORS[platform]
        for cell in cells:
            if args.instructions:
                ir = count_cell(platform, cell, args, manifest)
                print(
                    f"| {platform} | {cell[0]} | {cell[1]} | {ir['hanzo']:.1f} | {ir[anchor]:.1f} "
                    f"| {ir['scan']:.2f} | {ir[anchor] / ir['hanzo']:.2f} "
                    f"| {100 * ir['scan'] / ir['hanzo']:.1f}% |",
                    flush=True,
                )
                continue
            speeds = time_cell(platform, cell, args, manifest)
            ratios = [h / a for h, a in zip(speeds["hanzo"], speeds[anchor], strict=True)]
            shares = [100 * h / s for h, s in zip(speeds["hanzo"], speeds["scan"], strict=True)]
            mbps = {p: statistics.median(v) for p, v in speeds.items()}
            print(
                f"| {platform} | {cell[0]} | {cell[1]} | {mbps['hanzo']:.1f} "
                f"| {mbps[anchor]:.1f} | {mbps['scan']:.1f} "
                f"| {spread(ratios)} | {spread(shares)}% |",
                flush=True,
            )


if __name__ == "__main__":
    main()
