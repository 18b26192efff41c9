"""rust-analyzer's line-index 0.1.2 as a foreign lsp-positions platform.

Its worker is a small standalone Rust program (examples/line-index: its own workspace and
Cargo.lock), built here with ``cargo build --locked`` (crates from crates.io). With its
reviewed ledger the gate is green; without it the divergences issue 28 names are reported:
a lone CR is no line end, and character 10 on the last line ``abc`` is byte 10.
"""

from __future__ import annotations

import fcntl
import json
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest

from runners._cli import main

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "line-index"


@pytest.fixture(scope="module")
def line_index_worker() -> str:
    cargo = shutil.which("cargo")
    assert cargo, "cargo is needed to build examples/line-index (install Rust: rustup.rs)"
    lock = Path(tempfile.gettempdir()) / "hanzo-conformance-example-line-index.lock"
    with lock.open("w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        manifest = str(EXAMPLE / "Cargo.toml")
        build = [cargo, "build", "--quiet", "--locked", "--manifest-path", manifest]
        subprocess.run(build, check=True, timeout=600)
    return f"line-index={EXAMPLE / 'target' / 'debug' / 'line-index-worker'}"


def _run(worker: str, out: Path, *extra: str) -> tuple[int, dict[str, Any]]:
    argv = ["run", "--worker", worker, "--platform", "line-index", "--domain", "lsp-positions"]
    code = main([*argv, "--format", "json", "--output", str(out), *extra])
    return code, json.loads(out.read_text(encoding="utf-8"))


def test_its_ledger_makes_the_gate_green(
    line_index_worker: str, tmp_path: Path, capsys: Any
) -> None:
    ledger = EXAMPLE / "expectations.json"
    code, doc = _run(line_index_worker, tmp_path / "gated.json", "--expectations", str(ledger))
    assert code == 0, capsys.readouterr().out
    assert {r["status"] for r in doc["results"]} == {"pass", "xfail", "skip"}


def test_without_its_ledger_lone_cr_and_no_clamping_are_reported(
    line_index_worker: str, tmp_path: Path, capsys: Any
) -> None:
    code, doc = _run(line_index_worker, tmp_path / "ungated.json")
    capsys.readouterr()
    assert code == 1
    by_case = {r["case"]: r for r in doc["results"]}
    lone_cr = by_case["lines-cr"]
    assert lone_cr["status"] == "fail"
    assert {"pointer": "/results/0/1/text", "expected": "b", "actual": "a\rb"} in [
        {k: d[k] for k in ("pointer", "expected", "actual") if k in d} for d in lone_cr["diff"]
    ]
    past_end = by_case["character-past-end-of-last-line"]
    assert past_end["status"] == "error" and "byte offset 10" in past_end["message"], past_end
    assert by_case["u2029-is-not-a-line-end"]["status"] == "pass"
    assert by_case["change-insert"]["status"] == "skip"
