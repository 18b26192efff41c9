"""mcp-stdio: ``generate`` finds a decoder that drops a line split across chunks, run as
a foreign worker (tests/fake_workers/mcp_stdio_split_line_dropper.py), and shrinks it;
the three platforms agree with the reference on the same search."""

from __future__ import annotations

import itertools
import json
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("hypothesis", reason="hypothesis is in the test extra")

from runners._cli import main

WORKER = Path(__file__).resolve().parent / "fake_workers" / "mcp_stdio_split_line_dropper.py"
VECTORS = Path(__file__).resolve().parent.parent / "vectors"


def _vectors_copy(tmp_path: Path) -> Path:
    folder = tmp_path / "vectors"
    folder.mkdir()
    for name in ("mcp-stdio.json", "mcp-stdio-client.json"):
        (folder / name).write_text((VECTORS / name).read_text(encoding="utf-8"), encoding="utf-8")
    return folder


def test_a_dropped_split_line_is_found_and_shrunk(tmp_path: Path, capsys: Any) -> None:
    vectors = _vectors_copy(tmp_path)
    argv = ["generate", "--domain", "mcp-stdio", "--platform", "python"]
    argv += ["--worker", f"dropper={sys.executable} {WORKER}", "--no-properties"]
    argv += ["--seed", "7", "--max-examples", "60", "--batch", "16", "--vectors-dir", str(vectors)]
    code = main(argv)
    out = capsys.readouterr().out
    assert code == 1, out
    assert "dropper: differs at" in out, out
    candidates = json.loads((vectors / "candidates" / "mcp-stdio.json").read_text(encoding="utf-8"))
    (case,) = candidates["cases"]
    chunks = case["input"]["chunks"]
    # Shrunk: a few chunks, one of which ends inside a line the next one completes.
    assert 2 <= len(chunks) <= 3, chunks
    assert len("".join(chunks)) <= 80, chunks
    pairs = itertools.pairwise(chunks)
    assert any(a and not a.endswith("\n") and "\n" in b for a, b in pairs), chunks


def test_the_three_platforms_agree_with_the_reference(capsys: Any) -> None:
    argv = ["generate", "--domain", "mcp-stdio", "--platform", "rust", "--platform", "js"]
    argv += ["--seed", "11", "--max-examples", "40", "--batch", "32", "--no-write"]
    code = main(argv)
    out = capsys.readouterr().out
    assert code == 0, out
    assert "no disagreement, every property held" in out, out
