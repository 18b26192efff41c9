"""The CLI refuses up front what it cannot do, and never loses a run's results (issue 8)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import miniatures
import pytest
from conftest import hello_case, vector_document

from adapters.registry import register_platform, unregister_platform
from runners import _cli
from runners._cli import main
from runners._textsafe import MAX_VALUE_CHARS


def run_cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def spy():
    """A platform that records whether it was ever started."""
    started = []

    def make():
        started.append(True)
        return miniatures.Liar("spy")

    register_platform("spy", make)
    yield started
    unregister_platform("spy")


@pytest.fixture
def one_case(write_vectors):
    path = write_vectors(vector_document([hello_case()]))
    return ["--no-default-vectors", "--vectors", str(path)]


@pytest.mark.parametrize(
    ("output", "says"),
    [
        ("{tmp}/missing-folder/results.json", "does not exist"),
        ("{tmp}", "it is a folder"),
        ("/dev/full", "No space left on device"),
        ("/proc/results.json", "cannot write results to /proc/results.json"),
    ],
)
def test_an_unwritable_output_is_refused_before_anything_runs(
    capsys, tmp_path, spy, one_case, output, says
):
    output = output.format(tmp=tmp_path)
    code, out, err = run_cli(capsys, "run", *one_case, "--platform", "spy", "--output", output)
    assert code == 2
    assert says in err and "Traceback" not in err
    assert not spy, "a platform was started although the output was unwritable"
    assert out == ""


def test_a_failed_write_after_the_run_still_prints_the_report(capsys, monkeypatch, spy, one_case):
    monkeypatch.setattr(_cli, "check_writable", lambda path: None)  # the disk fills mid-run
    code, out, err = run_cli(
        capsys, "run", *one_case, "--platform", "spy", "--format", "json", "--output", "/dev/full"
    )
    assert code == 2
    assert "FAIL sse-frames::hello [spy]" in out and "DIVERGED" in out
    assert "the results could not be written to /dev/full" in err


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--case-timeout", "0"], "argument --case-timeout: must be a finite number"),
        (["--case-timeout", "-1"], "argument --case-timeout: must be a finite number"),
        (["--case-timeout", "nan"], "argument --case-timeout: must be a finite number"),
        (["--case-timeout", "inf"], "argument --case-timeout: must be a finite number"),
        (["--max-problems", "-1"], "argument --max-problems: must be 0 or more"),
        (["--worker", "w=node 'worker.mjs"], "argument --worker: cannot split the command"),
        (["--worker", "python=node w.mjs"], "argument --worker: 'python' is a built-in"),
        (["--worker", "w=a", "--worker", "w=b"], "argument --worker: 'w' is given twice"),
    ],
)
def test_bad_arguments_are_refused_at_parse_time(capsys, spy, argv, says):
    with pytest.raises(SystemExit) as exit_info:
        main(["run", "--platform", "spy", *argv])
    _, err = capsys.readouterr()
    assert exit_info.value.code == 2
    assert says in err
    assert not spy


def test_report_refuses_what_is_not_a_results_file(capsys, tmp_path):
    missing = tmp_path / "nope.json"
    empty = tmp_path / "empty.json"
    empty.write_text("{}")
    garbage = tmp_path / "garbage.json"
    garbage.write_text("results: yes")
    for path, says in [
        (missing, "no such file"),
        (empty, "not a results document"),
        (garbage, "not JSON"),
    ]:
        code, _, err = run_cli(capsys, "report", str(path))
        assert code == 2, err
        assert f"{path}: {says}" in err and "Traceback" not in err


def test_report_shows_what_the_live_run_showed(capsys, tmp_path, spy, one_case):
    results = tmp_path / "results.json"
    _, live, _ = run_cli(
        capsys, "run", *one_case, "--platform", "spy", "--format", "json", "--output", str(results)
    )
    code, saved, _ = run_cli(capsys, "report", str(results))
    assert code == 1
    (problem,) = [p for p in live.split("\n\n") if p.startswith("FAIL sse-frames::hello [spy]")]
    assert '  input: {"chunks": ["data: hi\\n\\n"]}' in problem
    assert "  why: One data line, dispatched by a blank line." in problem
    assert "  clauses: SSE-1" in problem
    assert problem in saved.split("\n\n")


@pytest.fixture
def bom_and_huge():
    def rewrite(output):
        output["frames"][0]["data"] = "\ufeff"
        output["frames"].append({"event": None, "data": "x" * 1_000_000, "id": None, "retry": None})
        return output

    register_platform("bloat", lambda: miniatures.Rewriter("bloat", rewrite))
    yield "bloat"
    unregister_platform("bloat")


def test_printed_values_are_bounded_and_hidden_characters_escaped(capsys, one_case, bom_and_huge):
    code, out, _ = run_cli(capsys, "run", *one_case, "--platform", bom_and_huge)
    assert code == 1
    (bom_line,) = [line for line in out.splitlines() if line.startswith("  /frames/0/data")]
    assert bom_line.endswith(': expected "hi", actual "\\ufeff"'), bom_line
    assert "\ufeff" not in out
    longest = max(out.splitlines(), key=len)
    assert len(longest) < 2 * MAX_VALUE_CHARS + 200
    assert re.search(r"more characters elided of 100\d{4}\]", out)
    # The schema message quotes the whole value too: bounded as well.
    assert "output schema" not in out or all(
        len(line) < 2 * MAX_VALUE_CHARS + 200 for line in out.splitlines()
    )


def test_schema_violations_are_grouped_across_chunkings(capsys, write_vectors):
    register_platform("drift", lambda: miniatures.ShapeDrift("drift"))
    try:
        path = write_vectors(vector_document([hello_case()]))
        code, out, _ = run_cli(
            capsys, "run", "--no-default-vectors", "--vectors", str(path), "--platform", "drift"
        )
    finally:
        unregister_platform("drift")
    assert code == 1
    schema_lines = [line for line in out.splitlines() if line.startswith("  output schema")]
    assert len(schema_lines) == 1, schema_lines
    assert "[original and" in schema_lines[0] and "chunkings" in schema_lines[0]


def test_documented_outputs_are_ignored_by_git():
    ignored = Path(__file__).resolve().parent.parent.joinpath(".gitignore").read_text()
    for name in ("/results.json", "/report.xml", "/report.html", "/report.md"):
        assert name in ignored.splitlines(), name


def test_results_document_records_versions_and_cases(capsys, tmp_path, one_case):
    results = tmp_path / "r.json"
    run_cli(
        capsys,
        "run",
        *one_case,
        "--platform",
        "python",
        "--format",
        "json",
        "--output",
        str(results),
    )
    doc = json.loads(results.read_text())
    run = doc["summary"]["run"]
    assert len(run["vectors"]["version"]) == 16
    assert run["vectors"]["files"]["sse-frames"]["cases"] == 1
    python = doc["summary"]["platforms"]["python"]
    assert python["implementation"] == "hanzo-python-reference" and python["version"]
    assert doc["cases"]["sse-frames::hello"]["clauses"] == ["SSE-1"]
