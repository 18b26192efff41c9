"""``run --jobs N`` (issue 13): the files split across harness processes, one document.

Every test runs the streamed shapes (chunks of 2 cases, files loaded as reached) over
three small files split across two jobs, and checks that a reader of the results sees
what a run of one process gives: the same results in the same order, the same report,
a wrong platform with its diff; and that an interrupt, a job that dies, an invalid
file, an id used twice across jobs, ledgers and shards behave as they do there.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

import miniatures
import pytest
from conftest import hello_case, many, vector_document

from adapters.registry import register_platform, unregister_platform
from runners._cli import main
from runners.reports.results_file import read_results
from runners.run import stream as _stream
from runners.vectors import stream as _vector_stream
from runners.vectors.stream import VectorSource

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="jobs are forked (POSIX)")


@pytest.fixture(autouse=True)
def streamed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Chunks of 2 cases; vector files loaded one at a time as the run reaches them."""
    monkeypatch.setattr(_stream, "CHUNK_CASES", 2)
    monkeypatch.setattr(_vector_stream, "STREAM_FROM_BYTES", 0)


@pytest.fixture(params=["streamed", "loaded first"])
def loading(request: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Both ways a run takes its files: loaded as reached, or all loaded and checked
    before anything runs (small vectors: the jobs then share what the CLI loaded)."""
    if request.param == "loaded first":
        monkeypatch.setattr(_vector_stream, "STREAM_FROM_BYTES", 1 << 30)


def three_files(tmp_path: Path, extra: list[dict[str, Any]] | None = None) -> Path:
    """sse-frames in a.json (3 cases: the first job), b.json (4) and c.json (1 or
    ``extra``: the second job)."""
    folder = tmp_path / "vectors"
    folder.mkdir()
    for name, cases in (
        ("a.json", many(3, "more")),
        ("b.json", many(4)),
        ("c.json", extra or many(1, "last")),
    ):
        (folder / name).write_text(json.dumps(vector_document(cases, variants=[])), "utf-8")
    return folder


def run_json(capsys: Any, folder: Path, out: Path, *extra: str) -> tuple[int, str, str]:
    argv = ["run", "--no-default-vectors", "--vectors", str(folder), "-q"]
    code = main([*argv, "--format", "json", "--output", str(out), *extra])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def same_document(one: Path, other: Path) -> None:
    """Two results documents equal but for when they finished and where they were written."""
    docs = [read_results(p) for p in (one, other)]
    for doc in docs:
        doc["summary"]["run"].pop("finished")
    assert docs[0] == docs[1]


def test_the_files_split_into_consecutive_runs_of_about_equal_size(tmp_path: Path) -> None:
    folder = tmp_path / "vectors"
    folder.mkdir()
    for name, count in (("a.json", 30), ("b.json", 10), ("c.json", 10), ("d.json", 10)):
        (folder / name).write_text(json.dumps(vector_document(many(count), variants=[])), "utf-8")
    source = VectorSource([folder], [])
    names = [[p.name for p in group] for group in source.split(2)]
    assert names == [["a.json"], ["b.json", "c.json", "d.json"]]
    assert [p.name for group in source.split(9) for p in group] == [
        "a.json",
        "b.json",
        "c.json",
        "d.json",
    ]
    assert len(source.split(9)) == 4 and [len(g) for g in source.split(1)] == [4]


def test_a_wrong_platform_through_two_jobs_is_reported_as_by_one_process(
    loading: None, liar: Any, tmp_path: Path, capsys: Any
) -> None:
    folder = three_files(tmp_path)
    platforms = ("--platform", "python", "--platform", "liar")
    one, two = tmp_path / "one.json", tmp_path / "two.json"
    code_one, printed_one, _ = run_json(capsys, folder, one, *platforms)
    code_two, printed_two, _ = run_json(capsys, folder, two, *platforms, "--jobs", "2")
    assert code_one == code_two == 1
    same_document(one, two)
    assert printed_one.replace(str(one), "OUT") == printed_two.replace(str(two), "OUT")
    doc = read_results(two)
    # File order, then platform order within each chunk, as one process writes them.
    assert [(r["case"], r["platform"]) for r in doc["results"][:4]] == [
        ("more-0", "python"),
        ("more-1", "python"),
        ("more-0", "liar"),
        ("more-1", "liar"),
    ]
    [bad] = [r for r in doc["results"] if r["status"] != "pass"]
    assert (bad["case"], bad["platform"], bad["status"]) == ("case-3", "liar", "fail")
    assert [(d["pointer"], d["expected"], d["actual"]) for d in bad["diff"]] == [
        ("/frames/0/data", "hi", "hi!")
    ]
    assert "FAIL sse-frames::case-3 [liar]" in printed_two
    assert '/frames/0/data: expected "hi", actual "hi!"' in printed_two
    assert main(["report", str(two)]) == 1
    capsys.readouterr()
    # The text report, printed and written whole (every problem), is the same too.
    argv = ["run", "--no-default-vectors", "--vectors", str(folder), "-q", *platforms]
    texts = []
    for jobs in ("1", "2"):
        report = tmp_path / f"report-{jobs}.txt"
        assert main([*argv, "--max-problems", "0", "--output", str(report), "--jobs", jobs]) == 1
        texts.append((capsys.readouterr().out.replace(str(report), "OUT"), report.read_text()))
    assert texts[0] == texts[1]
    assert "FAIL sse-frames::case-3 [liar]" in texts[1][1]


def test_ledgers_and_shards_through_two_jobs_as_by_one_process(
    liar: Any, tmp_path: Path, capsys: Any
) -> None:
    folder = three_files(tmp_path)
    platforms = ("--platform", "python", "--platform", "liar")
    first = tmp_path / "first.json"
    run_json(capsys, folder, first, *platforms)
    ledger = tmp_path / "liar.json"
    assert main(["expectations", "--update", str(ledger), "--results", str(first)]) == 0
    capsys.readouterr()
    gated = (*platforms, "--expectations", str(ledger))
    totals, xfails = [], []
    for extra in ((), ("--shard", "1/2"), ("--shard", "2/2")):
        one, two = tmp_path / "one.json", tmp_path / "two.json"
        code_one, _, _ = run_json(capsys, folder, one, *gated, *extra)
        code_two, _, _ = run_json(capsys, folder, two, *gated, *extra, "--jobs", "2")
        assert code_one == code_two == 0  # the liar's divergence is recorded: xfail
        same_document(one, two)
        summary = read_results(two)["summary"]
        totals.append(summary["total"])
        xfails.append(summary["xfail"])
    # The whole run, then its two shards: each case once, the recorded divergence once.
    assert totals[0] == 16 and totals[1] + totals[2] == 16 and 0 < totals[1] < 16
    assert xfails[0] == 1 and xfails[1] + xfails[2] == 1


class DiesOnCase3(miniatures._Wrapped):
    """The reference, but on case-3 it says so on stderr and kills its own process."""

    def run(self, requests: Any) -> Any:
        if any("case-3" in r["id"] for r in requests):
            sys.stderr.write("dying on case-3\n")
            sys.stderr.flush()
            os.kill(os.getpid(), signal.SIGKILL)
        return self.inner.run(requests)


def test_a_job_that_dies_fails_its_cases_with_its_stderr_and_the_run_goes_on(
    tmp_path: Path, capsys: Any
) -> None:
    register_platform("dies", lambda: DiesOnCase3("dies"))
    try:
        folder = three_files(tmp_path)
        out = tmp_path / "results.json"
        argv = ("--platform", "python", "--platform", "dies", "--jobs", "2")
        code, printed, _ = run_json(capsys, folder, out, *argv)
    finally:
        unregister_platform("dies")
    assert code == 1
    doc = read_results(out)
    status = {(r["case"], r["platform"]): r for r in doc["results"]}
    assert len(status) == len(doc["results"]) == 16
    # The first job's cases ran; the second's from the cut chunk on failed with its stderr.
    first_job = [status[(f"more-{i}", p)]["status"] for i in range(3) for p in ("python", "dies")]
    assert first_job == ["pass"] * 6
    for key in [("case-3", "python"), ("case-3", "dies"), ("last-0", "python")]:
        r = status[key]
        assert r["status"] == "error"
        assert "harness job running b.json … c.json was killed by SIGKILL" in r["message"]
        assert "dying on case-3" in r["detail"]
    assert "dying on case-3" in printed
    assert doc["summary"]["platforms"]["python"]["implementation"]


class InterruptsTheRun(miniatures._Wrapped):
    """The reference, but on case-3 it sends the harness (its job's parent) SIGINT and
    waits to be stopped."""

    def run(self, requests: Any) -> Any:
        if any("case-3" in r["id"] for r in requests):
            os.kill(os.getppid(), signal.SIGINT)
            for _ in range(500):  # stopped by the job within this, or the test fails
                time.sleep(0.01)
        return self.inner.run(requests)


def test_an_interrupt_through_two_jobs_writes_every_case_and_exits_130(
    tmp_path: Path, capsys: Any
) -> None:
    register_platform("interrupts", lambda: InterruptsTheRun("interrupts"))
    try:
        folder = three_files(tmp_path)
        out = tmp_path / "results.json"
        began = time.monotonic()
        code, _, _ = run_json(capsys, folder, out, "--platform", "interrupts", "--jobs", "2")
    finally:
        unregister_platform("interrupts")
    assert code == 130
    assert time.monotonic() - began < 4  # stopped, not waited out
    doc = read_results(out)
    statuses = {r["case"]: r["status"] for r in doc["results"]}
    assert len(doc["results"]) == len(statuses) == 8
    assert statuses["case-3"] == statuses["last-0"] == "not_run"
    assert statuses["case-0"] == statuses["case-1"] == "pass"
    assert doc["summary"]["not_run"] >= 3
    assert main(["report", str(out)]) == 1


def test_an_invalid_file_in_a_later_job_stops_the_run(tmp_path: Path, capsys: Any) -> None:
    folder = three_files(tmp_path, [hello_case(id="Not Kebab")])
    out = tmp_path / "results.json"
    code, _, err = run_json(capsys, folder, out, "--platform", "python", "--jobs", "2")
    assert code == 2
    assert "c.json" in err and "Not Kebab" in err
    assert not out.exists()
    assert not list(tmp_path.glob(".hanzo-conformance-*"))  # no spool left behind


def test_an_id_used_in_two_jobs_files_is_refused(tmp_path: Path, capsys: Any) -> None:
    folder = three_files(tmp_path, many(1, "more"))  # more-0 is a.json's too
    out = tmp_path / "results.json"
    code, _, err = run_json(capsys, folder, out, "--platform", "python", "--jobs", "2")
    assert code == 2
    assert "c.json" in err and "'more-0'" in err and "id already used in" in err
    assert not out.exists()
