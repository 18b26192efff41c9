"""Harness-laid OS cases (issue 29 part 5; docs/protocol.md, "Harness-laid cases"): a
worker that announces ``harness_lays_out`` is sent concrete cases whose files exist
when it is called, its answers are finished (hooks' ``saw`` and leftovers, ``{root}``
written back) and every case root is removed afterwards. The worker here has no layout
code: it answers with the reference's ``run_laid`` (tests/fake_workers/laid_worker.py),
so every case passes only if the harness laid it out as the reference does."""

from __future__ import annotations

import json
import os
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

from adapters.messages import problem
from adapters.worker import WorkerAdapter, WorkerStartError
from impl_python.conformance.layout import LAID_DOMAINS
from runners._cli import main

ROOT = Path(__file__).resolve().parents[1]
WORKER = ROOT / "tests" / "fake_workers" / "laid_worker.py"


def _command(log: Path, announce: object, *domains: str) -> str:
    argv = [sys.executable, str(WORKER), str(log), json.dumps(announce), *domains]
    return "env PYTHONPATH=" + shlex.quote(str(ROOT)) + " " + shlex.join(argv)


def _run(tmp_path: Path, announce: object, *domains: str) -> tuple[dict[str, Any], list[Any]]:
    log = tmp_path / "sent.jsonl"
    out = tmp_path / "results.json"
    argv = ["run", "-q", "--worker", f"laid={_command(log, announce, *domains)}"]
    argv += ["--platform", "laid", "--format", "json", "--output", str(out)]
    for domain in domains:
        argv += ["--domain", domain]
    main(argv)
    sent = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    return json.loads(out.read_text(encoding="utf-8"))["summary"], sent


def _counts(summary: dict[str, Any], domain: str) -> dict[str, int]:
    counts: dict[str, int] = summary["matrix"][domain]["laid"]
    return {**counts, "total": sum(counts.values())}


@pytest.mark.parametrize("domain", LAID_DOMAINS)
def test_a_laying_worker_gets_concrete_cases_that_exist_and_are_cleaned_up(
    tmp_path: Path, domain: str
) -> None:
    summary, sent = _run(tmp_path, [domain], domain)
    counts = _counts(summary, domain)
    assert counts["pass"] == counts["total"] > 0, counts
    assert len(sent) == counts["total"]
    rooted = [r for r in sent if r["path"] is not None]
    assert len(rooted) > len(sent) // 2  # most cases name their root (a path under it)
    for record in sent:
        concrete = dict(record["input"])
        if domain == "tool-call-pipeline":  # the tool's own input is the model's, as given
            concrete["call"] = {**concrete["call"], "input": None}
        text = json.dumps(concrete)
        assert "{root}" not in text and "{fixtures}" not in text, record["id"]
    for record in rooted:
        assert record["exists"], f"{record['id']}: its root did not exist when it ran"
        assert not os.path.lexists(record["path"]), f"{record['id']}: root left behind"


def test_announcing_all_lays_out_every_os_domain_the_worker_runs(tmp_path: Path) -> None:
    summary, sent = _run(tmp_path, "all", "hooks", "sandbox-paths")
    assert {r["domain"] for r in sent} == {"hooks", "sandbox-paths"}
    for domain in ("hooks", "sandbox-paths"):
        counts = _counts(summary, domain)
        assert counts["pass"] == counts["total"] > 0, counts


def test_a_worker_that_does_not_announce_it_gets_the_vector_input(tmp_path: Path) -> None:
    # Without the mode the same worker is sent placeholders and nothing is built: it fails.
    summary, sent = _run(tmp_path, None, "sandbox-paths")
    assert any("{root}" in json.dumps(r["input"]) for r in sent)
    counts = _counts(summary, "sandbox-paths")
    assert counts["pass"] < counts["total"]


def test_a_laid_domain_the_worker_does_not_run_is_a_start_error(tmp_path: Path) -> None:
    command = shlex.split(_command(tmp_path / "log", ["hooks"], "sandbox-paths"))
    adapter = WorkerAdapter("laid", command)
    with pytest.raises(WorkerStartError, match="harness_lays_out names hooks"):
        adapter.start()
    adapter.stop()


def test_the_handshake_schema_lists_the_layouts_domains() -> None:
    schema = json.loads((ROOT / "schemas" / "protocol" / "started.json").read_text())
    announced = schema["oneOf"][0]["properties"]["harness_lays_out"]["oneOf"]
    assert announced[1]["items"]["enum"] == list(LAID_DOMAINS)


def test_the_documented_handshake_is_a_valid_started_message() -> None:
    text = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")
    [line] = [x for x in text.splitlines() if '"harness_lays_out": ["hooks"]}' in x]
    assert problem("started", json.loads(line)) is None
    assert problem("started", {**json.loads(line), "harness_lays_out": ["lsp-positions"]})


def test_a_case_the_layout_refuses_is_a_crash_and_never_sent(tmp_path: Path) -> None:
    log = tmp_path / "sent.jsonl"
    adapter = WorkerAdapter("laid", shlex.split(_command(log, "all", "sandbox-paths")))
    tree = [
        {"path": "out", "kind": "symlink", "target": str(tmp_path)},
        {"path": "out/PWNED", "kind": "file", "content": "x"},
    ]
    escaping = {"op": "detect_container", "tree": tree, "env": {}}
    fine = {"op": "detect_container", "tree": [], "env": {}}
    try:
        adapter.start()
        bad, good = adapter.run(
            [
                {"id": "bad", "domain": "sandbox-paths", "input": escaping},
                {"id": "good", "domain": "sandbox-paths", "input": fine},
            ]
        )
    finally:
        adapter.stop()
    assert "crash" in bad and "could not lay out" in bad["crash"]["message"]  # type: ignore[typeddict-item]
    assert "out/PWNED" in bad["crash"]["message"]  # type: ignore[typeddict-item]
    assert good == {"id": "good", "output": {"runtime": None, "default_mode": "workspace"}}
    assert not (tmp_path / "PWNED").exists()
    assert [json.loads(x)["id"] for x in log.read_text(encoding="utf-8").splitlines()] == ["good"]
