"""The official MCP Python SDK, `mcp` 2.3.0 (PyPI), on oauth-authorize, through
examples/mcp-python-oauth/worker.py: a second `?` after an endpoint with a query (issue
26), and more, as its ledger records; the run gates green on that ledger.

The SDK is installed, exactly as examples/mcp-python-oauth/requirements.txt pins it
(every package, with pip), into examples/mcp-python-oauth/.venv, made on first use with
this interpreter (mcp needs Python >= 3.10). A failing install fails the test.
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

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "mcp-python-oauth"
VENV = EXAMPLE / ".venv"


@pytest.fixture(scope="module")
def python() -> Path:
    interpreter = VENV / "bin" / "python"
    marker = VENV / "installed.txt"
    wanted = (EXAMPLE / "requirements.txt").read_text(encoding="utf-8")
    # xdist workers may both get here: one installs, the other waits for it.
    lock = Path(tempfile.gettempdir()) / "hanzo-conformance-example-mcp-python-oauth.lock"
    with lock.open("w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        if not interpreter.exists() or not marker.exists() or marker.read_text() != wanted:
            subprocess.run([sys.executable, "-m", "venv", "--clear", str(VENV)], check=True)
            pip = [str(interpreter), "-m", "pip", "install", "-q", "--no-deps"]
            done = subprocess.run(
                [*pip, "-r", str(EXAMPLE / "requirements.txt")], capture_output=True, text=True
            )
            assert done.returncode == 0, f"pip install of the pinned mcp failed:\n{done.stderr}"
            marker.write_text(wanted, encoding="utf-8")
    return interpreter


def run(capsys: Any, python: Path, *extra: str) -> tuple[int, str]:
    worker = f"mcp={python} {EXAMPLE / 'worker.py'}"
    argv = ["run", "--worker", worker, "--platform", "mcp", "--domain", "oauth-authorize"]
    code = main([*argv, *extra])
    return code, capsys.readouterr().out


def test_mcp_gates_green_on_its_ledger(capsys: Any, python: Path) -> None:
    code, out = run(capsys, python, "--expectations", str(EXAMPLE / "expectations.json"))
    assert code == 0, out[-3000:]
    assert "71 pass, 0 fail, 0 error, 56 skip, 110 xfail" in out, out[-2000:]


def test_mcp_writes_a_second_question_mark(capsys: Any, python: Path, tmp_path: Path) -> None:
    """Issue 26: `?tenant=a%20b` then `?response_type=code`; the callback is skipped."""
    results = tmp_path / "results.json"
    code, out = run(capsys, python, "--format", "json", "--output", str(results))
    assert code == 1, out[-2000:]
    by_case = {r["case"]: r for r in json.loads(results.read_text("utf-8"))["results"]}
    url = by_case["existing-query-kept-percent-20"]["actual"]["url"]
    assert url.startswith("https://as.example/authorize?tenant=a%20b?response_type=code&"), url
    assert by_case["callback-rfc6749-example"]["status"] == "skip"
    assert by_case["prompt-login"]["status"] == "skip"
