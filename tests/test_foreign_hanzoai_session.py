"""A published Python package as a foreign platform: hanzoai 8.5.914's token estimator
(hanzoai.session.estimate_session_tokens) on token-estimation.

hanzoai 8.5.914 needs Python >= 3.12 and this harness runs on 3.10+, so the example
has its own virtualenv (examples/hanzoai-session/.venv, made once from its pinned
requirements.txt, as its README says). Without any Python 3.12+ the test fails and
says so: a platform that cannot be run is not a pass.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest

from runners._cli import main

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "hanzoai-session"
LEDGER = EXAMPLE / "expectations.json"


def _is_312_or_newer(python: str) -> bool:
    # A pyenv shim is on PATH whether or not its version is installed: run it to know.
    check = [python, "-c", "import sys; sys.exit(sys.version_info < (3, 12))"]
    try:
        return subprocess.run(check, capture_output=True, timeout=60).returncode == 0
    except OSError:
        return False


def python_312_or_newer() -> str | None:
    """python3.12 or python3.13 from PATH, else the newest 3.12+ under pyenv's versions/
    (each one run to check that it works)."""
    candidates = [found for name in ("python3.12", "python3.13") if (found := shutil.which(name))]
    versions = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    installed = []
    for folder in versions.glob("3.*"):
        match = re.fullmatch(r"3\.(\d+)\.(\d+)", folder.name)
        if match and int(match[1]) >= 12:
            installed.append(((int(match[1]), int(match[2])), str(folder / "bin" / "python3")))
    candidates += [python for _, python in sorted(installed, reverse=True)]
    return next((python for python in candidates if _is_312_or_newer(python)), None)


@pytest.fixture(scope="module")
def hanzoai_worker() -> str:
    python = python_312_or_newer()
    if python is None:
        pytest.fail(
            "hanzoai 8.5.914 needs Python >= 3.12: none on PATH (python3.12, python3.13) "
            "nor under $PYENV_ROOT/versions (examples/hanzoai-session/README.md)"
        )
    venv = EXAMPLE / ".venv"
    lock = Path(tempfile.gettempdir()) / "hanzo-conformance-example-hanzoai-session.lock"
    with lock.open("w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        if not (venv / "installed").is_file():
            subprocess.run([python, "-m", "venv", "--clear", str(venv)], check=True, timeout=300)
            pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q"]
            requirements = str(EXAMPLE / "requirements.txt")
            subprocess.run([*pip, "-r", requirements], check=True, timeout=600)
            (venv / "installed").write_text("", encoding="utf-8")
    return f"hanzoai-session={venv / 'bin' / 'python'} {EXAMPLE / 'worker.py'}"


def run_results(worker: str, out: Path, *extra: str) -> tuple[int, dict[str, Any]]:
    argv = ["run", "--worker", worker, "--platform", "hanzoai-session"]
    argv += ["--domain", "token-estimation", "--format", "json", "--output", str(out)]
    code = main([*argv, *extra])
    return code, json.loads(out.read_text(encoding="utf-8"))


def statuses(results: dict[str, Any]) -> dict[str, str]:
    return {r["case"]: r["status"] for r in results["results"]}


def test_it_gates_green_on_its_ledger(hanzoai_worker: str, tmp_path: Path) -> None:
    code, results = run_results(
        hanzoai_worker, tmp_path / "results.json", "--expectations", str(LEDGER)
    )
    assert code == 0
    counted = statuses(results)
    assert list(counted.values()).count("pass") == 10
    assert list(counted.values()).count("xfail") == 13
    assert list(counted.values()).count("skip") == 56


def test_without_its_ledger_it_counts_code_points_and_leaves_names_out(
    hanzoai_worker: str, tmp_path: Path
) -> None:
    code, results = run_results(hanzoai_worker, tmp_path / "results.json")
    assert code == 1
    by_case = {r["case"]: r for r in results["results"]}
    # Issue 28: こんにちは is 15 UTF-8 bytes (cost 4) but 5 code points (cost 2).
    history = by_case["bytes-not-code-points-in-history"]
    assert history["status"] == "fail"
    assert {d["pointer"]: d["actual"] for d in history["diff"]}["/token_counts/0"] == 2
    # A tool name of 32 bytes costs 9 in the contract; hanzoai does not count it.
    name = {d["pointer"]: d["actual"] for d in by_case["tool-name-counted"]["diff"]}
    assert name["/token_counts/0"] == 1
    # What hanzoai has no counterpart for is skipped, never passed.
    assert by_case["cjk-three-chars"]["status"] == "skip"
    assert by_case["negative-given-count"]["status"] == "skip"
