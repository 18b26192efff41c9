"""A saved results file is evidence: `report` (the gate on saved results) reads the
verdict from the results, so a summary edited to say "pass" is refused, not believed;
and no command writes its output over one of its own inputs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import miniatures
import pytest
from conftest import hello_case, vector_document

from adapters.registry import register_platform, unregister_platform
from runners._cli import main


@pytest.fixture
def failing_results(write_vectors: Any, tmp_path: Path) -> Path:
    path = write_vectors(vector_document([hello_case(), hello_case(id="two")]))
    register_platform("liar", lambda: miniatures.Liar())
    out = tmp_path / "results.json"
    try:
        argv = ["run", "-q", "--no-default-vectors", "--vectors", str(path)]
        argv += ["--platform", "python", "--platform", "liar", "--format", "json"]
        assert main([*argv, "--output", str(out)]) == 1
    finally:
        unregister_platform("liar")
    return out


def test_an_untouched_failing_run_still_fails_the_report(failing_results: Path) -> None:
    assert main(["report", str(failing_results)]) == 1


@pytest.mark.parametrize(
    "edit",
    [
        {"diverged": False},
        {"diverged": False, "fail": 0, "pass": 4},
        {"total": 3},
    ],
)
def test_a_summary_edited_to_pass_is_refused(
    failing_results: Path, edit: dict[str, Any], capsys: Any
) -> None:
    doc = json.loads(failing_results.read_text(encoding="utf-8"))
    doc["summary"].update(edit)
    failing_results.write_text(json.dumps(doc), encoding="utf-8")
    assert main(["report", str(failing_results)]) == 2
    assert "its summary does not match its results" in capsys.readouterr().err


def test_an_output_that_is_one_of_the_inputs_is_refused_before_anything_runs(
    failing_results: Path, tmp_path: Path, capsys: Any
) -> None:
    """`run --output <a vector file>` and `report R --output R` would destroy an input."""
    before = failing_results.read_bytes()
    assert main(["report", str(failing_results), "--output", str(failing_results)]) == 2
    assert failing_results.read_bytes() == before
    vector = tmp_path / "copy.json"
    vector.write_bytes((Path(__file__).parent.parent / "vectors" / "oauth-pkce.json").read_bytes())
    argv = ["run", "--no-default-vectors", "--vectors", str(vector), "--platform", "python"]
    assert main([*argv, "--output", str(vector)]) == 2
    assert "it is the vector file" in capsys.readouterr().err
    ledger = tmp_path / "ledger.json"
    ledger.write_text('{"platform": "python", "entries": []}', encoding="utf-8")
    argv = ["run", "--domain", "oauth-pkce", "--platform", "python", "--expectations", str(ledger)]
    assert main([*argv, "--output", str(ledger)]) == 2
    assert "it is the ledger" in capsys.readouterr().err
