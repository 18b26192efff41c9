"""A published JS client's parser as a foreign platform: @microsoft/fetch-event-source 2.0.1.

Its worker (examples/fetch-event-source/worker.mjs) feeds each case's bytes to the
`getLines` + `getMessages` pair `fetchEventSource` reads a body with, and corrects
nothing but the package's spelling of "unset". Its ledger records seven causes; with it
the gate is green, and without it the harness reports the causes found by running it,
among them an empty first data line lost and a BOM dropped from an id (the vector
bom-in-id-value-kept, which `generate` found on it). The package is installed from
npm once, into examples/fetch-event-source/node_modules, as its header says.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from npm_examples import installed_example, run_on_sse_frames

from adapters.js import find_node


@pytest.fixture(scope="module")
def fes_worker() -> tuple[str, Path]:
    node = find_node()
    example = installed_example("fetch-event-source", "@microsoft/fetch-event-source", node)
    return f"fes={node} {example / 'worker.mjs'}", example


def _run(worker: str, out: Path, *extra: str) -> tuple[int, dict[str, Any]]:
    return run_on_sse_frames(worker, "fes", out, *extra)


def test_its_ledger_makes_the_gate_green(
    fes_worker: tuple[str, Path], tmp_path: Path, capsys: Any
) -> None:
    worker, example = fes_worker
    code, doc = _run(
        worker, tmp_path / "gated.json", "--expectations", str(example / "expectations.json")
    )
    assert code == 0, capsys.readouterr().out
    assert doc["summary"]["platforms"]["fes"]["version"] == "2.0.1"
    assert (doc["summary"]["pass"], doc["summary"]["xfail"]) == (119, 54)


def test_without_its_ledger_its_parser_bugs_are_reported_with_their_diff(
    fes_worker: tuple[str, Path], tmp_path: Path, capsys: Any
) -> None:
    worker, _ = fes_worker
    code, doc = _run(worker, tmp_path / "ungated.json")
    capsys.readouterr()
    assert code == 1
    by_case = {r["case"]: r for r in doc["results"]}

    def original(case: str) -> list[dict[str, Any]]:
        return [
            {k: v for k, v in d.items() if k != "cluster"}
            for d in by_case[case]["diff"]
            if "variant" not in d
        ]

    assert original("empty-then-value-data") == [
        {"pointer": "/frames/0/data", "expected": "\nx", "actual": "x"}
    ]
    assert original("bom-in-id-value-kept") == [
        {"pointer": "/frames/0/id", "expected": "\ufeff1", "actual": "1"}
    ]
    assert original("only-blank-lines")[0]["pointer"] == "/frames/0"  # a message per blank line
    assert by_case["single-data-frame"]["status"] == "pass"
