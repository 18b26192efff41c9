"""A checkout or temp dir whose path holds a space, a quote or a `$` runs every hooks and
tool-call-pipeline case the same on every platform: `{fixtures}` and `{root}` go into a
hook's `/bin/sh -c` command as one word each (HOOK-4). It failed 198 of 498 results."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from runners._cli import main

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "hooks"


@pytest.mark.slow
def test_paths_with_shell_characters_change_no_result(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    awkward = tmp_path / "a dir with 'quotes', spaces and $HOME"
    shutil.copytree(FIXTURES, awkward / "hooks", symlinks=True)
    (awkward / "tmp").mkdir()
    monkeypatch.setenv("HANZO_HOOK_FIXTURES", str(awkward / "hooks"))
    monkeypatch.setenv("TMPDIR", str(awkward / "tmp"))  # the case roots, in the children
    out = tmp_path / "results.json"
    argv = ["run", "-q", "--domain", "hooks", "--domain", "tool-call-pipeline"]
    assert main([*argv, "--format", "json", "--output", str(out)]) == 0
    summary = json.loads(out.read_text(encoding="utf-8"))["summary"]
    assert set(summary["platforms"]) == {"python", "rust", "js"}
    assert summary["fail"] == summary["error"] == 0 and summary["pass"] == summary["total"]
