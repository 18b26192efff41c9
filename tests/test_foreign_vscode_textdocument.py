"""Microsoft's vscode-languageserver-textdocument 1.0.16 as a foreign lsp-positions platform.

Its worker (examples/vscode-textdocument/worker.mjs) runs each case through the package's
TextDocument and corrects nothing; it counts UTF-16 units only, so other encodings, framing
and negotiation are skipped with reasons. With its reviewed ledger the gate is green;
without it, the divergences are reported, among them the lone surrogate an edit inside a
surrogate pair leaves.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from npm_examples import installed_example

from adapters.js import find_node
from runners._cli import main


@pytest.fixture(scope="module")
def vscode_worker() -> tuple[str, Path]:
    node = find_node()
    example = installed_example("vscode-textdocument", "vscode-languageserver-textdocument", node)
    return f"vscode={node} {example / 'worker.mjs'}", example


def _run(worker: str, out: Path, *extra: str) -> tuple[int, dict[str, Any]]:
    argv = ["run", "--worker", worker, "--platform", "vscode", "--domain", "lsp-positions"]
    code = main([*argv, "--format", "json", "--output", str(out), *extra])
    return code, json.loads(out.read_text(encoding="utf-8"))


def test_its_ledger_makes_the_gate_green(
    vscode_worker: tuple[str, Path], tmp_path: Path, capsys: Any
) -> None:
    worker, example = vscode_worker
    ledger = example / "expectations.json"
    code, doc = _run(worker, tmp_path / "gated.json", "--expectations", str(ledger))
    assert code == 0, capsys.readouterr().out
    assert doc["summary"]["platforms"]["vscode"]["version"] == "1.0.16"
    assert {r["status"] for r in doc["results"]} == {"pass", "xfail", "skip"}


def test_without_its_ledger_the_split_surrogate_pair_is_reported(
    vscode_worker: tuple[str, Path], tmp_path: Path, capsys: Any
) -> None:
    worker, _ = vscode_worker
    code, doc = _run(worker, tmp_path / "ungated.json")
    capsys.readouterr()
    assert code == 1
    by_case = {r["case"]: r for r in doc["results"]}
    inside = by_case["inside-surrogate-pair-utf16"]
    assert [(d["pointer"], d["expected"], d["actual"]) for d in inside["diff"]] == [
        ("/results/0", 0, 1)
    ]
    cut = by_case["change-end-inside-surrogate-pair"]
    assert cut["status"] == "fail" and "I-JSON" in cut["message"], cut
    # The line-end and clamping cases agree with LSP 3.17.
    for case in ("lines-cr", "u2028-is-not-a-line-end", "character-past-end-of-last-line"):
        assert by_case[case]["status"] == "pass", by_case[case]
    assert by_case["frame-single"]["status"] == "skip"
