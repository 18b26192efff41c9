"""bench/lsp_positions.py's Python side: impl_python's TextDocument against pygls 2.1.1's
(run by examples/pygls/.venv's interpreter); prints one JSON line. argv[1]: the directory."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from lsprotocol import types
from pygls.workspace import TextDocument as Pygls
from pygls.workspace.position_codec import PositionCodec

from impl_python.lsp_positions import Position, TextDocument

folder = Path(sys.argv[1])
doc = (folder / "doc.txt").read_text(encoding="utf-8")
rows = lambda name: [  # noqa: E731
    [int(n) for n in line.split()] for line in (folder / name).read_text().splitlines()
]
positions, offsets = rows("positions.txt"), rows("offsets.txt")
# pygls re-splits the whole source on every call (TextDocument.lines), so it gets fewer.
their_positions = positions[: int(sys.argv[2])]
their_offsets = offsets[: int(sys.argv[2])]


def per_op_ns(work, ops: int) -> float:  # type: ignore[no-untyped-def]
    start = time.perf_counter_ns()
    work()
    return (time.perf_counter_ns() - start) / ops


start = time.perf_counter_ns()
ours = TextDocument(doc, "utf-16")
ours.offset_at(Position(0, 0), "utf-32")  # its per-line unit starts, made on first use
ours_build = (time.perf_counter_ns() - start) / 1e6
start = time.perf_counter_ns()
theirs = Pygls("file:///bench.txt", source=doc, position_codec=PositionCodec("utf-16"))
theirs_build = (time.perf_counter_ns() - start) / 1e6
total = [0]


def ours_to_offset() -> None:
    for line, character in positions:
        total[0] += ours.offset_at(Position(line, character), "utf-32")


def theirs_to_offset() -> None:
    for line, character in their_positions:
        total[0] += theirs.offset_at_position(types.Position(line=line, character=character))


def ours_to_position() -> None:
    for _, _, code_points in offsets:
        total[0] += ours.position_at(code_points, "utf-32").character


def theirs_to_position() -> None:
    for _, _, code_points in their_offsets:
        total[0] += theirs.client_position_at_offset(code_points).character


print(
    json.dumps(
        {
            "ours_build_ms": ours_build,
            "theirs_build_ms": theirs_build,
            "ours_to_offset_ns": per_op_ns(ours_to_offset, len(positions)),
            "theirs_to_offset_ns": per_op_ns(theirs_to_offset, len(their_positions)),
            "ours_to_position_ns": per_op_ns(ours_to_position, len(offsets)),
            "theirs_to_position_ns": per_op_ns(theirs_to_position, len(their_offsets)),
            "sum": total[0],
        }
    )
)
