"""Position conversion on a large document: impl_python vs pygls 2.1.1, impl_js vs
vscode-languageserver-textdocument 1.0.16, hanzo-lsp vs line-index 0.1.2, in one run.

    python bench/lsp_positions.py [--lines 20000] [--queries 20000] [--pygls-queries 200]

Needs the three examples installed (examples/pygls/.venv, `npm ci` in
examples/vscode-textdocument) and cargo (bench/lsp-rust is built here, release). One
document of mixed scripts (ASCII code, accented Latin, CJK, emoji; LF and some CRLF line
ends) is written once with the queries; each pair runs in its own process on the same
files. Each direction: UTF-16 positions to each library's own offsets (code points,
UTF-16 units, bytes), and the reverse from the same boundaries. Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORDS = ["fn", "let", "x", "value", "résumé", "naïve", "日本語", "変数", "😀", "🚀", "Ω", "—",
         "print(", ")", "{", "}", "// note", "ß", "é", "über"]  # fmt: skip


def document(lines: int, draw: random.Random) -> str:
    out = []
    for _ in range(lines):
        text = " ".join(draw.choice(WORDS) for _ in range(draw.randint(0, 14)))
        out.append(text + ("\r\n" if draw.random() < 0.1 else "\n"))
    return "".join(out)


def queries(doc: str, count: int, draw: random.Random) -> tuple[list[str], list[str]]:
    lines = doc.split("\n")
    positions = []
    for _ in range(count):
        line = draw.randrange(len(lines))
        width = len(lines[line].encode("utf-16-le")) // 2
        positions.append(f"{line} {draw.randint(0, width + 2)}")
    offsets = []
    for _ in range(count):
        k = draw.randrange(len(doc) + 1)  # a boundary, as code points
        prefix = doc[:k]
        offsets.append(f"{len(prefix.encode())} {len(prefix.encode('utf-16-le')) // 2} {k}")
    return positions, offsets


def run(argv: list[str]) -> dict[str, float]:
    done = subprocess.run(argv, check=True, capture_output=True, text=True, timeout=600)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--lines", type=int, default=20000)
    parser.add_argument("--queries", type=int, default=20000)
    parser.add_argument("--pygls-queries", type=int, default=200)
    args = parser.parse_args()
    draw = random.Random(28)
    doc = document(args.lines, draw)
    positions, offsets = queries(doc, args.queries, draw)
    from adapters.js import find_node

    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "doc.txt").write_text(doc, encoding="utf-8", newline="")
        Path(folder, "positions.txt").write_text("\n".join(positions) + "\n")
        Path(folder, "offsets.txt").write_text("\n".join(offsets) + "\n")
        manifest = ROOT / "bench" / "lsp-rust" / "Cargo.toml"
        subprocess.run(
            ["cargo", "build", "-q", "--release", "--manifest-path", str(manifest)], check=True
        )
        results = {
            "python: impl_python vs pygls 2.1.1": run(
                [
                    str(ROOT / "examples/pygls/.venv/bin/python"),
                    str(ROOT / "bench/lsp_positions_py_child.py"),
                    folder,
                    str(args.pygls_queries),
                ]
            ),
            "js: impl_js vs vscode-languageserver-textdocument 1.0.16": run(
                [find_node(), str(ROOT / "bench/lsp-positions-js.mjs"), folder]
            ),
            "rust: hanzo-lsp vs line-index 0.1.2": run(
                [str(ROOT / "bench/lsp-rust/target/release/lsp-positions-bench"), folder]
            ),
        }
    size = len(doc.encode())
    print(f"document: {args.lines} lines, {len(doc)} code points, {size} bytes; "
          f"{args.queries} queries each way (pygls: {args.pygls_queries})\n")  # fmt: skip
    print("| pair | build ms (ours / theirs) | position->offset ns (ours / theirs, ratio) "
          "| offset->position ns (ours / theirs, ratio) |")  # fmt: skip
    print("|---|---|---|---|")
    for name, r in results.items():
        to_offset = r["theirs_to_offset_ns"] / r["ours_to_offset_ns"]
        to_position = r["theirs_to_position_ns"] / r["ours_to_position_ns"]
        print(
            f"| {name} | {r['ours_build_ms']:.1f} / {r['theirs_build_ms']:.1f} "
            f"| {r['ours_to_offset_ns']:,.0f} / {r['theirs_to_offset_ns']:,.0f} ({to_offset:.2f}x) "
            f"| {r['ours_to_position_ns']:,.0f} / {r['theirs_to_position_ns']:,.0f} "
            f"({to_position:.2f}x) |"
        )
    print("\nratio = theirs / ours (above 1: ours is faster)")


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    main()
