"""A published JS parser as a foreign platform: eventsource-parser 4.1.3 on sse-frames.

Its worker (examples/eventsource-parser/worker.mjs) feeds each case through the
pipeline the package documents (a streaming UTF-8 TextDecoder with its defaults, then
``createParser``) and corrects nothing. Its ledger records three causes; with it the
gate is green, without it the harness must report exactly those causes, among them
the two found by running it: a second BOM dropped, and U+00EF U+00BB U+00BF dropped
as if they were a BOM's bytes. The package is installed from npm once, into
examples/eventsource-parser/node_modules, as its header says.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from npm_examples import installed_example, run_on_sse_frames

from adapters.js import find_node


@pytest.fixture(scope="module")
def parser_worker() -> tuple[str, Path]:
    node = find_node()
    example = installed_example("eventsource-parser", "eventsource-parser", node)
    return f"eventsource-parser={node} {example / 'worker.mjs'}", example


def _run(worker: str, out: Path, *extra: str) -> tuple[int, dict[str, Any]]:
    return run_on_sse_frames(worker, "eventsource-parser", out, *extra)


def test_its_ledger_makes_the_gate_green(
    parser_worker: tuple[str, Path], tmp_path: Path, capsys: Any
) -> None:
    worker, example = parser_worker
    ledger = example / "expectations.json"
    code, doc = _run(worker, tmp_path / "gated.json", "--expectations", str(ledger))
    assert code == 0, capsys.readouterr().out
    assert doc["summary"]["platforms"]["eventsource-parser"]["version"] == "4.1.3"
    statuses = {r["status"] for r in doc["results"]}
    assert statuses == {"pass", "xfail"}


def test_without_its_ledger_the_bom_findings_are_reported_with_their_diff(
    parser_worker: tuple[str, Path], tmp_path: Path, capsys: Any
) -> None:
    worker, _ = parser_worker
    code, doc = _run(worker, tmp_path / "ungated.json")
    capsys.readouterr()
    assert code == 1
    by_case = {r["case"]: r for r in doc["results"]}
    lookalike = by_case["bom-lookalike-text-kept"]
    assert lookalike["status"] == "fail"
    # Its first line parses as data, so it has one frame too many (arrays of different
    # lengths are aligned: one extra frame, not the next frame's data read as changed).
    original = [d for d in lookalike["diff"] if "variant" not in d]
    assert original == [
        {
            "pointer": "/frames/0",
            "actual": {"event": None, "data": "x", "id": None, "retry": None},
            "cluster": original[0]["cluster"],
        }
    ]
    assert by_case["second-bom-kept"]["status"] == "fail"
    assert by_case["retry-with-data"]["status"] == "fail"  # retry is never in an event
    assert by_case["single-data-frame"]["status"] == "pass"
