"""The CLI: validate, list, run; exit codes; the JSON result document."""

from __future__ import annotations

import json
import os

import miniatures
import pytest
from conftest import hello_case, vector_document

from adapters.registry import register_platform, unregister_platform
from runners._cli import main
from runners.vectors.schemas import results_validator


@pytest.fixture
def liar():
    register_platform("liar", lambda: miniatures.Liar())
    yield "liar"
    unregister_platform("liar")


def run_cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def run_on(capsys, command, path, *argv):
    """`command` over just the vector file at `path`."""
    return run_cli(capsys, command, "--no-default-vectors", "--vectors", str(path), *argv)


def test_validate_the_project_vectors(capsys):
    code, out, _ = run_cli(capsys, "validate")
    assert code == 0 and out.startswith("ok: ")


def test_validate_reports_file_case_and_pointer(capsys, write_vectors):
    path = write_vectors(vector_document([hello_case(input={"chunks": [1]})]))
    code, _, err = run_on(capsys, "validate", path)
    assert code == 2
    assert f"{path}: case 'hello' at /cases/0/input/chunks/0:" in err


def test_list_counts_cases_and_tags(capsys, write_vectors):
    path = write_vectors(
        vector_document(
            [hello_case(), hello_case(id="two", tags=["basic", "bom"])],
            tags={"basic": "ordinary", "bom": "a byte order mark"},
        )
    )
    code, out, _ = run_on(capsys, "list", path)
    assert code == 0
    assert "sse-frames  (sse-frames.json): 2 cases, 0 expect an error" in out
    assert "tags: basic (2), bom (1)" in out


def test_run_passes_on_the_reference(capsys, write_vectors):
    path = write_vectors(vector_document([hello_case()]))
    code, out, _ = run_on(capsys, "run", path, "--platform", "python")
    assert code == 0, out
    assert "OK: 1 results: 1 pass, 0 fail, 0 error, 0 skip" in out


def test_run_fails_on_a_liar_and_writes_the_exact_diff(capsys, write_vectors, tmp_path, liar):
    path = write_vectors(vector_document([hello_case()]))
    out_file = tmp_path / "results.json"
    code, out, _ = run_on(
        capsys,
        "run",
        path,
        "--platform",
        "python",
        "--platform",
        liar,
        "--format",
        "json",
        "--output",
        str(out_file),
    )
    assert code == 1
    assert "DIVERGED" in out and "FAIL sse-frames::hello [liar]" in out
    doc = json.loads(out_file.read_text())
    results_validator().validate(doc)
    assert doc["summary"]["fail"] == 1 and doc["summary"]["pass"] == 1
    (bad,) = [r for r in doc["results"] if r["status"] == "fail"]
    assert bad["domain"] == "sse-frames" and bad["case"] == "hello" and bad["platform"] == "liar"
    first = bad["diff"][0]
    assert first.pop("cluster") == doc["summary"]["clusters"][0]["id"]
    assert first == {"pointer": "/frames/0/data", "expected": "hi", "actual": "hi!"}
    assert bad["actual"]["frames"][0]["data"] == "hi!"
    # A saved run renders (and exits) the same way.
    code, again, _ = run_cli(capsys, "report", str(out_file))
    assert code == 1 and "FAIL sse-frames::hello [liar]" in again


def test_unknown_platform_and_missing_domain_are_usage_errors(capsys):
    code, _, err = run_cli(capsys, "run", "--platform", "cobol")
    assert code == 2 and "unknown platform 'cobol'" in err
    code, _, err = run_cli(capsys, "run", "--domain", "telepathy")
    assert code == 2 and "no vectors for domain(s): telepathy" in err


def test_any_protocol_worker_is_a_platform(capsys, write_vectors):
    """--worker NAME=COMMAND plugs in an out-of-process implementation (here the JS worker)."""
    from adapters.js import WORKER, find_node

    path = write_vectors(vector_document([hello_case()]))
    worker = f"second-js={find_node()} {WORKER}"
    code, out, _ = run_on(
        capsys,
        "run",
        path,
        "--platform",
        "second-js",
        "--worker",
        worker,
    )
    assert code == 0, out
    assert "second-js: @hanzo/dev-runtime" in out
    assert "OK: 1 results: 1 pass" in out


def test_a_worker_that_does_not_start_errors_its_cases(capsys, write_vectors):
    path = write_vectors(vector_document([hello_case()]))
    code, out, _ = run_on(
        capsys,
        "run",
        path,
        "--platform",
        "python",
        "--worker",
        "ghost=/nonexistent/worker --flag",
    )
    assert code == 1
    assert "ERROR 1 case(s) [ghost]" in out  # once for the platform, naming the cases
    assert "ghost: UNAVAILABLE: ghost did not start" in out


def test_fmt_rewrites_to_the_canonical_layout_and_check_fails_until_then(capsys, write_vectors):
    path = write_vectors(json.dumps(vector_document([hello_case()])))  # one long line
    code, out, _ = run_on(capsys, "fmt", path, "--check")
    assert code == 1 and "would reformat" in out and path.name in out
    code, out, _ = run_on(capsys, "fmt", path)
    assert code == 0 and "reformatted" in out
    text = path.read_text(encoding="utf-8")
    assert '      "tags": ["basic"],\n' in text
    assert json.loads(text) == vector_document([hello_case()])
    code, out, _ = run_on(capsys, "fmt", path, "--check")
    assert code == 0 and "1 of 1 vector files already canonical" in out


def test_fmt_never_touches_an_invalid_file(capsys, write_vectors):
    broken = json.dumps(vector_document([hello_case(), hello_case()]))
    path = write_vectors(broken)
    code, _, err = run_on(capsys, "fmt", path)
    assert code == 2 and "duplicate id" in err
    assert path.read_text(encoding="utf-8") == broken


def test_the_project_vectors_are_canonical(capsys):
    code, out, _ = run_cli(capsys, "fmt", "--check")
    assert code == 0, out


def test_every_public_name_of_the_package_loads_on_first_use() -> None:
    import runners

    assert sorted(runners.__all__) == sorted(runners._HOME)
    for name in runners.__all__:
        assert getattr(runners, name).__name__ == name
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        _ = runners.nothing


def test_a_reader_that_stops_reading_ends_the_output_quietly():
    """``hanzo-conformance list | head -1``: SIGPIPE's code and no traceback."""
    import subprocess
    import sys

    # The reader is gone before the CLI writes: ``list`` prints less than a pipe holds,
    # so a reader that took one byte first raced the CLI's exit (0 when it lost).
    reader, writer = os.pipe()
    os.close(reader)
    try:
        child = subprocess.Popen(
            [sys.executable, "-m", "runners", "list"], stdout=writer, stderr=subprocess.PIPE
        )
    finally:
        os.close(writer)
    assert child.stderr is not None
    stderr = child.stderr.read().decode()
    child.stderr.close()
    assert child.wait(timeout=60) == 141, stderr
    assert "Traceback" not in stderr
