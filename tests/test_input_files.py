"""A device named as a vector, results or ledger file is refused at once with exit 2
(one such read of /dev/zero grew to 24 GB before the kernel killed it)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from runners._cli import main

DEVICE = "/dev/zero"


@pytest.mark.parametrize(
    "argv",
    [
        ["validate", "--vectors", DEVICE],
        ["fmt", "--check", "--vectors", DEVICE],
        ["run", "--platform", "python", "--vectors", DEVICE],
        ["report", DEVICE],
        ["run", "--platform", "python", "--domain", "oauth-pkce", "--expectations", DEVICE],
    ],
)
def test_a_device_is_refused_with_exit_2_and_named(argv: list[str], capsys: Any) -> None:
    assert Path(DEVICE).exists()
    assert main(argv) == 2
    out = capsys.readouterr()
    assert f"{DEVICE}" in out.err + out.out and "not a regular file" in out.err + out.out


def test_a_key_given_twice_in_a_results_file_or_ledger_is_refused(
    tmp_path: Path, capsys: Any
) -> None:
    """Plain JSON keeps the last of two equal keys, so the gate would read a summary (or a
    ledger entry) other than the one a reviewer read above it."""
    results = tmp_path / "results.json"
    run = ["run", "-q", "--platform", "python", "--domain", "oauth-pkce", "--format", "json"]
    assert main([*run, "--output", str(results)]) == 0
    text = results.read_text(encoding="utf-8")
    assert main(["report", str(results)]) == 0
    results.write_text(text.replace('"summary":', '"summary": {}, "summary":', 1), encoding="utf-8")
    assert main(["report", str(results)]) == 2
    assert "'summary' is given twice" in capsys.readouterr().err
    ledger = tmp_path / "ledger.json"
    ledger.write_text('{"platform": "python", "platform": "js", "entries": []}', encoding="utf-8")
    argv = ["run", "-q", "--platform", "python", "--domain", "oauth-pkce", "--expectations"]
    assert main([*argv, str(ledger)]) == 2
    assert "'platform' is given twice" in capsys.readouterr().err
