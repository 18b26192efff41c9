"""Hanzo's published runtime, hanzoai 8.5.914, as a foreign platform on
mcp-normalization (examples/hanzoai-runtime/): installed from PyPI into its own
Python >= 3.12 (the package requires it), found as ci/bootstrap finds Node."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from python_examples import EXAMPLES, installed_python_example

from runners._cli import main

EXAMPLE = EXAMPLES / "hanzoai-runtime"
LEDGER = str(EXAMPLE / "expectations.json")


@pytest.fixture(scope="module")
def worker() -> str:
    python = installed_python_example("hanzoai-runtime", (3, 12))
    return f"hanzoai-runtime={python} {EXAMPLE / 'worker.py'}"


def _run(worker: str, out: Path, *extra: str) -> tuple[int, dict[str, Any]]:
    argv = ["run", "-q", "--worker", worker, "--platform", "hanzoai-runtime"]
    argv += ["--domain", "mcp-normalization", "--format", "json", "--output", str(out), *extra]
    code = main(argv)
    return code, json.loads(out.read_text(encoding="utf-8"))


def test_its_ledger_records_every_divergence_and_its_gaps_are_skips(
    worker: str, tmp_path: Path
) -> None:
    code, doc = _run(worker, tmp_path / "r.json", "--expectations", LEDGER)
    assert code == 0
    platform = doc["summary"]["platforms"]["hanzoai-runtime"]
    assert (platform["implementation"], platform["version"]) == ("hanzoai", "8.5.914")
    counts = doc["summary"]["matrix"]["mcp-normalization"]["hanzoai-runtime"]
    assert counts == {"pass": 27, "fail": 0, "error": 0, "skip": 39, "xfail": 19, "not_run": 0}
    skipped = {r["message"] for r in doc["results"] if r["status"] == "skip"}
    assert len(skipped) == 2 and all(
        "has no function" in m or "no tool table" in m for m in skipped
    )


def test_without_its_ledger_the_gate_fails(worker: str, tmp_path: Path) -> None:
    code, doc = _run(worker, tmp_path / "r.json")
    assert code == 1
    failing = [r for r in doc["results"] if r["status"] == "fail"]
    assert len(failing) == 19
    empty = {r["case"] for r in failing if r["case"].startswith("empty-")}
    assert empty == {"empty-server", "empty-tool", "empty-both"}
