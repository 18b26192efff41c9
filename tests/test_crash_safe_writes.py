"""Every file the harness writes goes to a temporary file beside it and is renamed into
place: a write that fails halfway (a full disk) leaves the old file as it was, and no
partial or temporary file behind (issue 32: `fmt` and `expectations --update` truncated
the file they rewrote)."""

from __future__ import annotations

import errno
import json
from pathlib import Path
from typing import IO, Any

import pytest

import runners._output as output
from runners._cli import main

VECTORS = Path(__file__).resolve().parent.parent / "vectors"


@pytest.fixture
def full_disk(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every write the harness makes stops halfway with ENOSPC."""

    def half_then_full(stream: IO[str], text: str) -> None:
        stream.write(text[: len(text) // 2])
        stream.flush()
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(output, "_write", half_then_full)


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def test_fmt_on_a_full_disk_leaves_the_vector_file_whole(
    tmp_path: Path, full_disk: None, capsys: Any
) -> None:
    vector = tmp_path / "oauth-pkce.json"
    doc = json.loads((VECTORS / "oauth-pkce.json").read_text(encoding="utf-8"))
    before = json.dumps(doc)  # valid, but not the canonical layout: fmt rewrites it
    vector.write_text(before, encoding="utf-8")
    assert main(["fmt", "--no-default-vectors", "--vectors", str(vector)]) == 2
    assert vector.read_text(encoding="utf-8") == before
    assert _leftovers(tmp_path) == []


def test_expectations_update_on_a_full_disk_leaves_the_ledger_whole(
    tmp_path: Path, capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    results = tmp_path / "results.json"
    argv = ["run", "-q", "--platform", "python", "--domain", "oauth-pkce", "--format", "json"]
    assert main([*argv, "--output", str(results)]) == 0
    ledger = tmp_path / "ledger.json"
    before = '{"platform": "python", "entries": []}\n'
    ledger.write_text(before, encoding="utf-8")

    def half_then_full(stream: IO[str], text: str) -> None:
        stream.write(text[: len(text) // 2])
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(output, "_write", half_then_full)
    update = ["expectations", "--update", str(ledger), "--results", str(results)]
    assert main(update) == 2
    assert ledger.read_text(encoding="utf-8") == before
    assert _leftovers(tmp_path) == []
    out = tmp_path / "report.md"
    out.write_text("old report\n", encoding="utf-8")
    assert main(["report", str(results), "--format", "markdown", "--output", str(out)]) == 2
    assert out.read_text(encoding="utf-8") == "old report\n"
    assert _leftovers(tmp_path) == []
