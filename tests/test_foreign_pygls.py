"""A published Python LSP library as a foreign platform: pygls 2.1.1 on lsp-positions.

Its worker (examples/pygls/worker.py) runs each case through pygls's own
TextDocument / PositionCodec, its stdio header loop and its position-encoding choice,
and corrects nothing. pygls is installed from PyPI once, into examples/pygls/.venv
(the pins of examples/pygls/requirements.txt), by the interpreter running the tests.
With its reviewed ledger the gate is green; without it the divergences are reported,
among them the two issue 28 names.
"""

from __future__ import annotations

import fcntl
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

from runners._cli import main

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "pygls"


@pytest.fixture(scope="module")
def pygls_worker() -> str:
    python = EXAMPLE / ".venv" / "bin" / "python"
    lock = Path(tempfile.gettempdir()) / "hanzo-conformance-example-pygls.lock"
    with lock.open("w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        if not python.is_file():
            subprocess.run([sys.executable, "-m", "venv", str(EXAMPLE / ".venv")], check=True)
        pip = [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
        subprocess.run([*pip, "-r", str(EXAMPLE / "requirements.txt")], check=True, timeout=600)
    return f"pygls={python} {EXAMPLE / 'worker.py'}"


def _run(worker: str, out: Path, *extra: str) -> tuple[int, dict[str, Any]]:
    argv = ["run", "--worker", worker, "--platform", "pygls", "--domain", "lsp-positions"]
    code = main([*argv, "--format", "json", "--output", str(out), *extra])
    return code, json.loads(out.read_text(encoding="utf-8"))


def test_its_ledger_makes_the_gate_green(pygls_worker: str, tmp_path: Path, capsys: Any) -> None:
    ledger = EXAMPLE / "expectations.json"
    code, doc = _run(pygls_worker, tmp_path / "gated.json", "--expectations", str(ledger))
    assert code == 0, capsys.readouterr().out
    assert doc["summary"]["platforms"]["pygls"]["version"] == "2.1.1"
    statuses = {r["status"] for r in doc["results"]}
    assert statuses == {"pass", "xfail", "skip"}


def test_without_its_ledger_the_clamping_and_line_break_bugs_are_reported(
    pygls_worker: str, tmp_path: Path, capsys: Any
) -> None:
    code, doc = _run(pygls_worker, tmp_path / "ungated.json")
    capsys.readouterr()
    assert code == 1
    by_case = {r["case"]: r for r in doc["results"]}
    # Character 10 on the last line "abc": 2 in pygls (issue 28), 3 by LSP 3.17.
    last_line = by_case["character-past-end-of-last-line"]
    assert last_line["status"] == "fail"
    assert [(d["pointer"], d["expected"], d["actual"]) for d in last_line["diff"]] == [
        ("/results/0", 3, 2)
    ]
    # str.splitlines: U+2028 ends a line in pygls.
    assert by_case["u2028-is-not-a-line-end"]["status"] == "fail"
    # What pygls has no call for is skipped with a reason, never passed.
    skipped = by_case["accept-offered-answer"]
    assert skipped["status"] == "skip"
    # and what it does the contract's way passes
    assert by_case["spec-example-utf16"]["status"] == "pass"
    assert by_case["frame-length-counts-bytes"]["status"] == "pass"
