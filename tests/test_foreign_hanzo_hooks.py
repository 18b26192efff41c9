"""Hanzo's published hook runner, hanzo-hooks 0.1.0, as a foreign platform on hooks
(examples/hanzo-hooks/): installed from PyPI into its own Python >= 3.12 (the package
requires it). Its worker asks the harness to lay the cases out (docs/protocol.md,
"Harness-laid cases") and has no layout code of its own."""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

import pytest
from python_examples import EXAMPLES, installed_python_example

from adapters.worker import WorkerAdapter
from runners._cli import main

EXAMPLE = EXAMPLES / "hanzo-hooks"
LEDGER = str(EXAMPLE / "expectations.json")
# What a copy of the harness's case layout would need (impl_python/conformance/layout.py).
LAYOUT_WORDS = (
    "{root}",
    "{fixtures}",
    "tempfile",
    "mkdtemp",
    "rmtree",
    "makedirs",
    "rglob",
    ".pids",
    "observe",
    "create_cwd",
    "tool_input_fill",
    "SIGKILL",
)


@pytest.fixture(scope="module")
def python() -> str:
    return installed_python_example("hanzo-hooks", (3, 12))


def _run(python: str, out: Path, *extra: str) -> tuple[int, dict[str, Any]]:
    worker = f"hanzo-hooks={python} {EXAMPLE / 'worker.py'}"
    argv = ["run", "-q", "--worker", worker, "--platform", "hanzo-hooks", "--domain", "hooks"]
    code = main([*argv, "--format", "json", "--output", str(out), *extra])
    return code, json.loads(out.read_text(encoding="utf-8"))


def test_it_asks_the_harness_to_lay_out_and_has_no_layout_of_its_own(python: str) -> None:
    adapter = WorkerAdapter("hanzo-hooks", [python, str(EXAMPLE / "worker.py")])
    try:
        implementation = adapter.start()
        assert (implementation.name, implementation.version) == ("hanzo-hooks", "0.1.0")
        assert adapter.laid_out == {"hooks"}
    finally:
        adapter.stop()
    tree = ast.parse((EXAMPLE / "worker.py").read_text(encoding="utf-8"))
    for node in ast.walk(tree):  # its docstrings may say what the harness does
        body = getattr(node, "body", None)
        first = body[0] if isinstance(body, list) and body else None
        if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
            body[0] = ast.Pass()  # type: ignore[index]
    code = ast.unparse(tree)  # and comments are gone
    assert "HookRunner(" in code
    for word in LAYOUT_WORDS:
        assert word not in code, word


def test_its_ledger_records_every_divergence_and_the_rest_is_partial(
    python: str, tmp_path: Path
) -> None:
    code, doc = _run(python, tmp_path / "r.json", "--expectations", LEDGER)
    assert code == 0
    platform = doc["summary"]["platforms"]["hanzo-hooks"]
    assert (platform["implementation"], platform["version"]) == ("hanzo-hooks", "0.1.0")
    counts = doc["summary"]["matrix"]["hooks"]["hanzo-hooks"]
    assert counts == {
        "pass": 0,
        "partial": 11,
        "fail": 0,
        "error": 0,
        "skip": 10,
        "xfail": 78,
        "not_run": 0,
    }
    partial = [r for r in doc["results"] if r["status"] == "partial"]
    assert all(sorted(r["absent"]) == ["/log", "/ran"] for r in partial)
    skipped = {r["message"] for r in doc["results"] if r["status"] == "skip"}
    assert len(skipped) == 2 and all("hanzo-hooks 0.1.0" in m for m in skipped)
    # Every reason was reviewed and cites the HIP-301 text the package breaks.
    ledger = json.loads(Path(LEDGER).read_text(encoding="utf-8"))
    assert all(e["reason"].count("HIP-301") >= 1 for e in ledger["entries"])


def test_without_its_ledger_the_gate_fails_on_the_security_hole(
    python: str, tmp_path: Path
) -> None:
    code, doc = _run(python, tmp_path / "r.json")
    assert code == 1
    by_case = {r["case"]: r for r in doc["results"]}
    # HIP-301 §9: "Any other code = error (deny + log)"; hanzo-hooks allows the tool.
    exit_1 = by_case["exit-1-is-error"]
    assert exit_1["status"] == "fail" and exit_1["actual"]["decision"] == "allow"
    # The harness's observations: the daemon's child, left holding stderr, hung it.
    assert by_case["background-child-killed-after-allow"]["status"] == "error"
