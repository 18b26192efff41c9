"""Hanzo's published sandbox package, hanzo-sandbox 0.1.0, as a foreign platform on
sandbox-paths' container detection (examples/hanzo-sandbox/): installed from PyPI into
its own Python >= 3.12 (the package requires it). Without a Python 3.12+ the tests fail
and say so: a platform that cannot be run is not a pass."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from python_examples import EXAMPLES, installed_python_example

from runners._cli import main

EXAMPLE = EXAMPLES / "hanzo-sandbox"
LEDGER = str(EXAMPLE / "expectations.json")


@pytest.fixture(scope="module")
def worker() -> str:
    python = installed_python_example("hanzo-sandbox", (3, 12))
    return f"hanzo-sandbox={python} {EXAMPLE / 'worker.py'}"


def _run(worker: str, out: Path, *extra: str) -> tuple[int, dict[str, Any]]:
    argv = ["run", "-q", "--worker", worker, "--platform", "hanzo-sandbox"]
    argv += ["--domain", "sandbox-paths", "--format", "json", "--output", str(out), *extra]
    code = main(argv)
    return code, json.loads(out.read_text(encoding="utf-8"))


def test_its_ledger_records_every_divergence_and_path_checks_are_skips(
    worker: str, tmp_path: Path
) -> None:
    code, doc = _run(worker, tmp_path / "r.json", "--expectations", LEDGER)
    assert code == 0
    platform = doc["summary"]["platforms"]["hanzo-sandbox"]
    assert (platform["implementation"], platform["version"]) == ("hanzo-sandbox", "0.1.0")
    counts = doc["summary"]["matrix"]["sandbox-paths"]["hanzo-sandbox"]
    assert counts == {
        "pass": 3,
        "partial": 1,
        "fail": 0,
        "error": 0,
        "skip": 77,
        "xfail": 21,
        "not_run": 0,
    }
    skipped = [r for r in doc["results"] if r["status"] == "skip"]
    assert all("has no path check" in r["message"] for r in skipped)
    # Where its markers name two runtimes the package gives no order to choose by, the
    # runtime is declared absent, never picked by the worker; the default mode is
    # compared (and differs in a container).
    [partial] = [r for r in doc["results"] if r["status"] == "partial"]
    assert (partial["case"], partial["absent"]) == (
        "container-cgroup-needle-in-id-field",
        ["/runtime"],
    )
    by_case = {r["case"]: r for r in doc["results"]}
    assert by_case["container-cgroup-kubepods-beats-docker"]["status"] == "xfail"


def test_without_its_ledger_it_stays_in_workspace_mode_inside_a_container(
    worker: str, tmp_path: Path
) -> None:
    code, doc = _run(worker, tmp_path / "r.json")
    assert code == 1
    by_case = {r["case"]: r for r in doc["results"]}
    docker = by_case["container-dockerenv"]
    assert docker["status"] == "fail"
    assert [(d["pointer"], d["expected"], d["actual"]) for d in docker["diff"]] == [
        ("/default_mode", "off", "workspace")
    ]
    # It greps the whole cgroup file: a controller named docker reads as a container.
    named = by_case["container-cgroup-controller-named-docker"]
    assert [(d["pointer"], d["actual"]) for d in named["diff"]] == [("/runtime", "docker")]
    # Path.exists() follows links: a dangling /.dockerenv is not seen.
    dangling = {
        d["pointer"]: d["actual"] for d in by_case["container-dockerenv-dangling-symlink"]["diff"]
    }
    assert dangling["/runtime"] is None
    assert by_case["container-none"]["status"] == "pass"


def test_the_harness_lays_its_cases_out() -> None:
    """The worker only calls the package: the harness builds each case's tree and sends
    its root (harness_lays_out), so the worker has no tree-building code of its own."""
    source = (EXAMPLE / "worker.py").read_text(encoding="utf-8")
    assert 'started["harness_lays_out"] = sorted(DOMAINS)' in source
    for layout in ("mkdtemp", "symlink_to", "mkdir", "write_text", "rmtree"):
        assert layout not in source, layout
