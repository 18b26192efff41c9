"""Isolation of the in-process platforms (issue 14): python and rust are served from a
supervised child, so an implementation that loops or aborts fails its own case.

The test doubles break mcp-normalization on marked inputs: on Python
tests/fake_workers/broken_python.py, on Rust the ``test-doubles`` cargo feature of
hanzo-conformance (built here into a separate copy of the extension). Each
misbehaviour must be reported against exactly its case, with a clear message; the
other cases pass; the run ends in bounded time; no process survives.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import vector_document
from fake_workers.broken_python import BrokenPython
from processes import survivors, within

from adapters.registry import register_platform, unregister_platform
from adapters.serve import MAX_GROUP
from adapters.worker import WorkerAdapter
from runners._cli import main
from runners.vectors.schemas import results_validator

ROOT = Path(__file__).resolve().parent.parent
FAKES = Path(__file__).resolve().parent / "fake_workers"
TIMEOUT = 1.0


def mcp_case(case_id: str, server: str) -> dict[str, Any]:
    return {
        "id": case_id,
        "description": f"Normalizes server {server!r} (a trigger of the test doubles).",
        "tags": ["isolation"],
        "source": {"kind": "derived", "ref": "tests/test_isolation.py"},
        "clauses": ["MCP-1"],
        "input": {"op": "normalize", "server": server, "tool": "b"},
        "expected": {"name": f"mcp__{server}__b"},
    }


TAGS = {"isolation": "inputs that trigger the deliberately broken test doubles"}
CASES = [
    mcp_case("before", "a"),
    mcp_case("loops", "hanzo-test-loop"),
    mcp_case("aborts", "hanzo-test-abort"),
    mcp_case("surrogate", "hanzo-test-surrogate"),
    mcp_case("after", "z"),
]


def supervised(name: str, spec: str, pids: Path) -> WorkerAdapter:
    """``python -m adapters.serve spec`` as served.py starts it (answers in groups, the
    expect extension: passing cases are acknowledged with ``=``), recording its session."""
    serve = shlex.join([sys.executable, "-m", "adapters.serve", spec])
    command = ["sh", "-c", f"echo $$ $$ >> {shlex.quote(str(pids))}; exec {serve}"]
    return WorkerAdapter(name, command, timeout=TIMEOUT, answers_in_groups=MAX_GROUP, expect=True)


@pytest.fixture
def vectors(write_vectors: Any) -> Path:
    doc = vector_document(CASES, domain="mcp-normalization", variants=[], tags=TAGS)
    return write_vectors(doc, name="mcp-normalization.json")


def run(capsys: Any, vectors: Path, platform: str, results: Path) -> tuple[int, str]:
    argv = ["run", "--no-default-vectors", "--vectors", str(vectors), "--platform", platform]
    code = within(
        4 * TIMEOUT + 30,
        lambda: main([*argv, "--format", "json", "--output", str(results)]),
    )
    out, _ = capsys.readouterr()
    return code, out


def run_broken_python(
    capsys: Any, vectors: Path, tmp_path: Path, monkeypatch: Any
) -> tuple[int, str]:
    """``run`` on the fake broken python served from a child; its sessions go to tmp_path/pids."""
    pids = tmp_path / "pids"
    monkeypatch.setenv(
        "PYTHONPATH", os.pathsep.join([str(FAKES), os.environ.get("PYTHONPATH", "")])
    )
    register_platform(
        "broken-python", lambda: supervised("broken-python", "broken_python:create", pids)
    )
    try:
        return run(capsys, vectors, "broken-python", tmp_path / "results.json")
    finally:
        unregister_platform("broken-python")


def by_case(results: Path) -> dict[str, dict[str, Any]]:
    doc = json.loads(results.read_text(encoding="utf-8"))
    results_validator().validate(doc)
    return {r["case"]: r for r in doc["results"]}


def test_python_loop_abort_and_surrogate_each_fail_their_own_case(
    capsys: Any, vectors: Path, tmp_path: Path, monkeypatch: Any
) -> None:
    pids = tmp_path / "pids"
    began = time.monotonic()
    code, out = run_broken_python(capsys, vectors, tmp_path, monkeypatch)
    assert time.monotonic() - began < 4 * TIMEOUT + 30
    assert code == 1
    results = by_case(tmp_path / "results.json")
    assert {c: r["status"] for c, r in results.items()} == {
        "before": "pass",
        "loops": "error",
        "aborts": "error",
        "surrogate": "fail",
        "after": "pass",
    }
    assert results["loops"]["message"] == (
        f"broken-python crashed: no response within {TIMEOUT} s for case mcp-normalization/loops#0"
    )
    assert results["aborts"]["message"] == (
        "broken-python crashed: worker exited with code -6 while running case "
        "mcp-normalization/aborts#0"
    )
    assert "Fatal Python error: Aborted" in results["aborts"]["detail"]
    assert "broken_python.py" in results["aborts"]["detail"]  # where it aborted
    surrogate = results["surrogate"]["message"]
    assert "output is not valid I-JSON: a lone surrogate in" in surrogate
    assert '"mcp__hanzo-test-surrogate__b\\ud800" at /name' in surrogate
    assert surrogate in out  # the text report says the same
    assert survivors(pids) == []


def test_an_abort_amid_a_group_of_answers_fails_exactly_its_case(
    capsys: Any, write_vectors: Any, tmp_path: Path, monkeypatch: Any
) -> None:
    # The child writes its answers in groups: the abort takes the unwritten answers of
    # the cases before it along. The harness runs the unanswered cases alone until the
    # one that aborts is found; every other case passes, and only that one is blamed.
    good = [mcp_case(f"good-{i}", f"s{i}") for i in range(60)]
    cases = [*good[:40], CASES[2], *good[40:55], CASES[1], *good[55:]]
    doc = vector_document(cases, domain="mcp-normalization", variants=[], tags=TAGS)
    vectors = write_vectors(doc, name="mcp-normalization.json")
    pids = tmp_path / "pids"
    code, _ = run_broken_python(capsys, vectors, tmp_path, monkeypatch)
    assert code == 1
    doc = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    statuses = {r["case"]: r["status"] for r in doc["results"]}
    assert statuses == {
        **{case["id"]: "pass" for case in good},
        "aborts": "error",
        "loops": "error",
    }
    aborts = next(r for r in doc["results"] if r["case"] == "aborts")
    assert aborts["message"] == (
        "broken-python crashed: worker exited with code -6 while running case "
        "mcp-normalization/aborts#0"
    )
    assert "Fatal Python error: Aborted" in aborts["detail"]
    # Found again when run alone: no unexplained loss is left to report.
    problems = doc["summary"]["platforms"]["broken-python"].get("problems", [])
    assert [p for p in problems if p["kind"] == "lost-group"] == []
    assert survivors(pids) == []


def test_a_crash_amid_a_group_that_does_not_come_back_blames_no_case(
    capsys: Any, write_vectors: Any, tmp_path: Path, monkeypatch: Any
) -> None:
    # Run alone, the case that aborted once passes: no case is blamed for the lost
    # group; the platform records the loss, with the stderr of the abort.
    good = [mcp_case(f"good-{i}", f"s{i}") for i in range(40)]
    cases = [*good[:20], mcp_case("once", "hanzo-test-abort-once"), *good[20:]]
    doc = vector_document(cases, domain="mcp-normalization", variants=[], tags=TAGS)
    vectors = write_vectors(doc, name="mcp-normalization.json")
    pids = tmp_path / "pids"
    monkeypatch.setenv("HANZO_TEST_ABORT_ONCE", str(tmp_path / "aborted"))
    code, _ = run_broken_python(capsys, vectors, tmp_path, monkeypatch)
    assert (tmp_path / "aborted").exists()  # it did abort once
    doc = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    assert {r["status"] for r in doc["results"]} == {"pass"}
    assert code == 0
    problems = doc["summary"]["platforms"]["broken-python"]["problems"]
    [lost] = [p for p in problems if p["kind"] == "lost-group"]
    assert lost["message"].startswith("worker exited with code -6 while running case ")
    assert lost["message"].endswith("run alone, none of the unanswered cases did it again")
    assert "Fatal Python error: Aborted" in lost["detail"]
    assert survivors(pids) == []


def test_in_process_a_lone_surrogate_fails_its_case_in_text_and_json(
    capsys: Any, write_vectors: Any, tmp_path: Path
) -> None:
    doc = vector_document([CASES[0], CASES[3]], domain="mcp-normalization", variants=[], tags=TAGS)
    path = write_vectors(doc, name="mcp-normalization.json")
    register_platform("broken-python", BrokenPython)
    try:
        for fmt in ("text", "json"):
            output = tmp_path / f"out.{fmt}"
            code = main(
                [
                    "run",
                    "--no-default-vectors",
                    "--vectors",
                    str(path),
                    "--platform",
                    "broken-python",
                    "--format",
                    fmt,
                    "--output",
                    str(output),
                ]
            )
            capsys.readouterr()
            assert code == 1, fmt
            text = output.read_text(encoding="utf-8")
            assert "output is not valid I-JSON" in text and "\\ud800" in text
    finally:
        unregister_platform("broken-python")
    results = by_case(tmp_path / "out.json")
    assert results["before"]["status"] == "pass" and results["surrogate"]["status"] == "fail"


def test_the_in_process_switch_runs_python_and_rust_inside_the_harness() -> None:
    from adapters import served
    from adapters.python import PythonAdapter
    from adapters.rust import RustAdapter

    # Inside the harness but the OS domains' cases, which go to a served child (issue 32).
    for create, inner in ((served.python, PythonAdapter), (served.rust, RustAdapter)):
        adapter = create(in_process=True)
        assert isinstance(adapter, served.OsDomainsServed)
        assert isinstance(adapter.inner, inner) and isinstance(adapter.served, WorkerAdapter)
    assert isinstance(served.python(), WorkerAdapter)
    assert isinstance(served.rust(), WorkerAdapter)


# -- rust ---------------------------------------------------------------------------


@pytest.fixture(scope="session")
def rust_doubles(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A folder holding the extension built with the test-doubles feature (cargo caches it)."""
    env = {**os.environ, "PYO3_BUILD_EXTENSION_MODULE": "1", "PYO3_PYTHON": sys.executable}
    target = ROOT / "target" / "test-doubles"
    subprocess.run(
        [
            "cargo",
            "build",
            "--quiet",
            "-p",
            "hanzo-conformance-py",
            "--features",
            "test-doubles",
            "--target-dir",
            str(target),
        ],
        cwd=ROOT,
        env=env,
        check=True,
        timeout=1800,
    )
    folder = tmp_path_factory.mktemp("rust-doubles")
    shutil.copy(
        target / "debug" / "libhanzo_conformance_rust.so",
        folder / "hanzo_conformance_rust.abi3.so",
    )
    yield folder


@pytest.mark.slow
def test_rust_loop_and_abort_each_fail_their_own_case(
    capsys: Any, vectors: Path, tmp_path: Path, monkeypatch: Any, rust_doubles: Path
) -> None:
    pids = tmp_path / "pids"
    monkeypatch.setenv(
        "PYTHONPATH", os.pathsep.join([str(rust_doubles), os.environ.get("PYTHONPATH", "")])
    )
    register_platform("broken-rust", lambda: supervised("broken-rust", "rust", pids))
    try:
        code, _ = run(capsys, vectors, "broken-rust", tmp_path / "results.json")
    finally:
        unregister_platform("broken-rust")
    assert code == 1
    results = by_case(tmp_path / "results.json")
    # Rust strings are UTF-8 by construction: no lone surrogate can come out.
    assert {c: r["status"] for c, r in results.items()} == {
        "before": "pass",
        "loops": "error",
        "aborts": "error",
        "surrogate": "pass",
        "after": "pass",
    }
    assert results["loops"]["message"] == (
        f"broken-rust crashed: no response within {TIMEOUT} s for case mcp-normalization/loops#0"
    )
    assert results["aborts"]["message"] == (
        "broken-rust crashed: worker exited with code -6 while running case "
        "mcp-normalization/aborts#0"
    )
    assert survivors(pids) == []


def test_a_served_rust_without_its_extension_is_unavailable_once_with_the_hint(
    tmp_path: Path, monkeypatch: Any
) -> None:
    from adapters import served
    from adapters.protocol import PlatformUnavailable

    # A module of that name that cannot be imported, ahead of the real extension.
    (tmp_path / "hanzo_conformance_rust.py").write_text("raise ImportError('not built here')\n")
    monkeypatch.setenv(
        "PYTHONPATH", os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])
    )
    adapter = served.rust(timeout=TIMEOUT)
    with pytest.raises(PlatformUnavailable) as info:
        within(30, adapter.start)
    assert "exited with code 1 before completing the handshake" in info.value.message
    assert "not built here" in info.value.detail
    assert "pip install ./impl_rust/hanzo-conformance-py" in info.value.detail
