"""mutation/scores.py: the Rust and JS scores read off cargo-mutants' and Stryker's own
reports, each survivor explained by a reason of one kind or listed as unexplained."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def scores() -> ModuleType:
    spec = importlib.util.spec_from_file_location("scores", ROOT / "mutation" / "scores.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def _cargo_mutants(
    root: Path, crate: str, outcomes: list[tuple[str, str]], finished: bool = True
) -> None:
    out = root / "target" / "mutants" / crate / "mutants.out"
    out.mkdir(parents=True)
    entries: list[dict[str, object]] = [{"scenario": "Baseline", "summary": "Success"}]
    for name, summary in outcomes:
        entries.append({"scenario": {"Mutant": {"name": name}}, "summary": summary})
    doc = {"outcomes": entries, "total_mutants": len(outcomes)}
    doc["end_time"] = "2026-12-02T00:00:00Z" if finished else None
    (out / "outcomes.json").write_text(json.dumps(doc), encoding="utf-8")


def _stryker(
    root: Path, module: str, mutants: list[tuple[int, str, str]], report: str = ""
) -> None:
    out = root / "mutation" / "js" / "reports"
    out.mkdir(parents=True, exist_ok=True)
    listed = [
        {
            "mutatorName": mutator,
            "replacement": "``",
            "status": status,
            "location": {"start": {"line": line, "column": 3}, "end": {"line": line, "column": 9}},
        }
        for line, mutator, status in mutants
    ]
    doc = {"files": {f"impl_js/src/{module}.js": {"mutants": listed}}}
    (out / (report or f"{module}.json")).write_text(json.dumps(doc), encoding="utf-8")


def test_rust_outcomes_are_counted_and_survivors_explained_by_kind(
    scores: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _cargo_mutants(
        tmp_path,
        "hanzo-x",
        [
            ("a.rs:1:1: replace f with g", "CaughtMutant"),
            ("a.rs:2:1: replace loop", "Timeout"),  # a mutant that loops is caught
            ("a.rs:3:1: replace -> Default", "Unviable"),  # never ran: not a mutant
            ("a.rs:4:1: replace Display", "MissedMutant"),
            ("a.rs:5:1: replace getter", "MissedMutant"),
            ("a.rs:6:1: replace + with -", "MissedMutant"),
        ],
    )
    monkeypatch.setattr(scores, "RESULTS", tmp_path / "results")
    monkeypatch.setattr(scores, "rows", lambda kind: [("hanzo-x", ["d"])] if kind == "rust" else [])
    assert scores.collect(tmp_path) == ["rust hanzo-x"]
    reasons = {
        "a.rs:4:1: replace Display": "message: the error's text",
        "a.rs:5:1: replace getter": "unreachable: no JSON layer reads it",
    }
    t = scores.tally("rust", "hanzo-x", reasons)
    assert (t.mutants, t.killed, t.not_viable) == (5, 2, 1)
    assert t.reasons["message"] == 1 and t.reasons["unreachable"] == 1
    assert t.unexplained == ["a.rs:6:1: replace + with -"]
    assert t.score(reachable=False) == pytest.approx(100 * 2 / 4)  # messages left out
    assert t.score(reachable=True) == pytest.approx(100 * 2 / 3)
    row = scores.table("rust", [t]).splitlines()[2]
    assert row.startswith("| hanzo-x | 5 | 2 | 0 | 1 | 0 | 1 | 1 | 50.0% | 66.7% | 1 |")


def test_js_survivors_are_keyed_by_file_position_mutator_and_replacement(
    scores: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _stryker(tmp_path, "mod", [(10, "StringLiteral", "Survived"), (11, "BlockStatement", "Killed")])
    monkeypatch.setattr(scores, "RESULTS", tmp_path / "results")
    monkeypatch.setattr(scores, "rows", lambda kind: [("mod", ["d"])] if kind == "js" else [])
    assert scores.collect(tmp_path) == ["js mod"]
    t = scores.tally("js", "mod", {})
    assert t.unexplained == ["mod.js:10:3-10:9: StringLiteral -> ``"]
    explained = scores.tally(
        "js", "mod", {"mod.js:10:3-10:9: StringLiteral -> ``": "message: text"}
    )
    assert explained.unexplained == [] and explained.score(reachable=True) == 100.0


def test_nested_mutants_from_one_start_have_keys_of_their_own(scores: ModuleType) -> None:
    def mutant(end: int) -> dict[str, object]:
        location = {"start": {"line": 85, "column": 7}, "end": {"line": 85, "column": end}}
        return {"file": "m.js", "mutatorName": "ConditionalExpression", "location": location}

    assert scores.key("js", mutant(64)) != scores.key("js", mutant(77))


def test_a_crate_without_a_report_says_so_and_a_reason_of_no_kind_is_refused(
    scores: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(scores, "RESULTS", tmp_path / "results")
    t = scores.tally("rust", "hanzo-none", {})
    assert t.missing
    assert "| hanzo-none | not measured yet |" in scores.table("rust", [t])
    monkeypatch.setattr(scores, "ROOT", tmp_path)
    bad = tmp_path / "mutation" / "survivors" / "rust" / "hanzo-x.json"
    bad.parent.mkdir(parents=True)
    bad.write_text(json.dumps({"k": "because: it felt right"}), encoding="utf-8")
    with pytest.raises(SystemExit, match="a reason starts with one of"):
        scores.load_reasons("rust", "hanzo-x")


def test_a_rerun_of_some_mutants_updates_them_and_an_unfinished_run_is_not_collected(
    scores: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(scores, "RESULTS", tmp_path / "results")
    monkeypatch.setattr(scores, "rows", lambda kind: [("hanzo-x", ["d"])] if kind == "rust" else [])
    full = tmp_path / "full"
    _cargo_mutants(full, "hanzo-x", [("a", "MissedMutant"), ("b", "CaughtMutant")])
    scores.collect(full)
    rerun = tmp_path / "rerun"
    _cargo_mutants(rerun, "hanzo-x", [("a", "CaughtMutant")])
    scores.collect(rerun)
    assert scores.outcomes("rust", "hanzo-x") == [("killed", "a"), ("killed", "b")]
    running = tmp_path / "running"
    _cargo_mutants(running, "hanzo-x", [("a", "MissedMutant")], finished=False)
    assert scores.collect(running) == []


def test_each_report_is_applied_once_so_a_second_rerun_keeps_the_first(
    scores: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(scores, "RESULTS", tmp_path / "results")
    monkeypatch.setattr(scores, "rows", lambda kind: [("mod", ["d"])] if kind == "js" else [])
    lines = [(10, "StringLiteral", "Survived"), (11, "StringLiteral", "Survived")]
    _stryker(tmp_path, "mod", lines)
    _stryker(tmp_path, "mod", [(10, "StringLiteral", "Killed")], report="mod.rerun.json")
    assert scores.collect(tmp_path) == ["js mod"]
    assert scores.collect(tmp_path) == []  # nothing new: the file is left as it is
    # A second rerun in the same checkout: the whole run and the first rerun were
    # applied already, so they cannot undo the first rerun's kill.
    _stryker(tmp_path, "mod", [(11, "StringLiteral", "Killed")], report="mod.rerun.json")
    assert scores.collect(tmp_path) == ["js mod"]
    assert sorted(status for status, _ in scores.outcomes("js", "mod")) == ["killed", "killed"]
    # A new whole run replaces everything, stale keys included.
    _stryker(tmp_path, "mod", [(12, "StringLiteral", "Survived")])
    scores.collect(tmp_path)
    assert scores.outcomes("js", "mod") == [("survived", "mod.js:12:3-12:9: StringLiteral -> ``")]


def test_every_checked_in_reason_has_a_kind(scores: ModuleType) -> None:
    for path in sorted((ROOT / "mutation" / "survivors").glob("*/*.json")):
        scores.load_reasons(path.parent.name, path.stem)
