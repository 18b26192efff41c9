"""The providers' published Python SDKs as foreign platforms on stream-assembly.

openai 3.57.0 and anthropic 2.15.0 (PyPI), each read through its public stream helper
with the case's frames served by httpx2.MockTransport (examples/openai-python-stream/,
examples/anthropic-python-stream/). Each is installed from PyPI into a virtualenv of its
own (its requirements.txt; once per machine, under the temp folder), so the harness's
environment is not changed. Each must gate green with its reviewed ledger, and the
divergences of issue 27 must be the SDK's actual answers.
"""

from __future__ import annotations

import fcntl
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from runners._cli import main

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def example_python(name: str) -> Path:
    """The interpreter of examples/<name>'s own virtualenv, its requirements installed."""
    venv = Path(tempfile.gettempdir()) / f"hanzo-conformance-example-{name}-venv"
    python = venv / "bin" / "python"
    requirements = EXAMPLES / name / "requirements.txt"
    stamp = venv / "installed-requirements.txt"
    lock = Path(tempfile.gettempdir()) / f"hanzo-conformance-example-{name}.lock"
    with lock.open("w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        wanted = requirements.read_text(encoding="utf-8")
        if not stamp.is_file() or stamp.read_text(encoding="utf-8") != wanted:
            subprocess.run(
                [sys.executable, "-m", "venv", "--clear", str(venv)], check=True, timeout=300
            )
            pip = [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
            subprocess.run([*pip, "-r", str(requirements)], check=True, timeout=600)
            stamp.write_text(wanted, encoding="utf-8")
    return python


def run_example(name: str, platform: str, tmp_path: Path) -> tuple[int, dict[str, Any]]:
    python = example_python(name)
    worker = f"{platform}={python} {EXAMPLES / name / 'worker.py'}"
    out = tmp_path / "results.json"
    ledger = EXAMPLES / name / "expectations.json"
    argv = ["run", "--worker", worker, "--platform", platform, "--domain", "stream-assembly"]
    argv += ["--expectations", str(ledger), "--format", "json", "--output", str(out)]
    # A fresh venv's first import of the SDK compiles it: the handshake may take past 10 s.
    argv += ["--case-timeout", "30"]
    code = main(argv)
    return code, json.loads(out.read_text(encoding="utf-8"))


def by_case(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {r["case"]: r for r in doc["results"]}


def test_openai_python_gates_green_with_its_ledger(tmp_path: Path) -> None:
    code, doc = run_example("openai-python-stream", "openai-py", tmp_path)
    assert code == 0
    platform = doc["summary"]["platforms"]["openai-py"]
    assert (platform["implementation"], platform["version"]) == ("openai", "3.57.0")
    results = by_case(doc)
    statuses = {r["status"] for r in results.values()}
    assert statuses == {"pass", "skip", "xfail"}, statuses
    # The anthropic dialect is not applicable to it, never passed.
    assert all(r["status"] == "skip" for c, r in results.items() if c.startswith("anthropic-"))
    assert results["openai-tool-call-basic"]["status"] == "pass"
    # Issue 27: ids and names appended; a first fragment for index 1 raises IndexError.
    repeated = results["openai-repeated-id-and-name"]
    assert repeated["status"] == "xfail"
    assert repeated["actual"]["events"][0]["id"] == "call_1call_1"
    assert repeated["actual"]["events"][0]["name"] == "getget"
    assert "IndexError" in results["openai-out-of-order-indices"]["message"]


def test_anthropic_python_gates_green_with_its_ledger(tmp_path: Path) -> None:
    code, doc = run_example("anthropic-python-stream", "anthropic-py", tmp_path)
    assert code == 0
    platform = doc["summary"]["platforms"]["anthropic-py"]
    assert (platform["implementation"], platform["version"]) == ("anthropic", "2.15.0")
    results = by_case(doc)
    assert {r["status"] for r in results.values()} == {"pass", "skip", "xfail"}
    assert all(r["status"] == "skip" for c, r in results.items() if c.startswith("openai-"))
    assert results["anthropic-text-basic"]["status"] == "pass"
    # jiter's partial mode turns a cut input into {}: the call is reported as complete.
    cut = results["anthropic-whole-invalid-arguments"]
    assert cut["status"] == "xfail" and cut["actual"]["events"][0]["input"] == {}
