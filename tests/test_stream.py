"""The CLI's streamed run (issue 13): chunks, files loaded as reached, results as written.

Every test forces the streamed shapes a million-case run takes (tiny chunks, files
loaded one at a time) on a few cases, and checks what a reader of the results sees.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import miniatures
import pytest
from conftest import hello_case, many, vector_document

from adapters.registry import register_platform, unregister_platform
from runners._cli import main
from runners.judge.clusters import ClusterTally
from runners.judge.compare import MISSING
from runners.judge.outcomes import Outcome
from runners.reports.results_file import read_results
from runners.run import stream as _stream
from runners.vectors import stream as _vector_stream
from runners.vectors.schemas import results_validator


@pytest.fixture
def streamed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Chunks of 2 cases; vector files loaded one at a time as the run reaches them."""
    monkeypatch.setattr(_stream, "CHUNK_CASES", 2)
    monkeypatch.setattr(_vector_stream, "STREAM_FROM_BYTES", 0)


def two_files(write_vectors: Any, tmp_path: Path) -> Path:
    """sse-frames in two files (7 cases), and a toy domain file, in one folder."""
    folder = tmp_path / "vectors"
    folder.mkdir()
    for name, cases in (("b.json", many(4)), ("a.json", many(3, "more"))):
        (folder / name).write_text(json.dumps(vector_document(cases, variants=[])), "utf-8")
    return folder


def run_json(capsys: Any, folder: Path, out: Path, *extra: str) -> tuple[int, str]:
    argv = ["run", "--no-default-vectors", "--vectors", str(folder), "-q"]
    code = main([*argv, "--format", "json", "--output", str(out), *extra])
    return code, capsys.readouterr().out


def test_a_wrong_platform_is_reported_with_its_diff_in_a_streamed_run(
    streamed: None, liar: Any, write_vectors: Any, tmp_path: Path, capsys: Any
) -> None:
    folder = two_files(write_vectors, tmp_path)
    out = tmp_path / "results.json"
    code, printed = run_json(capsys, folder, out, "--platform", "python", "--platform", "liar")
    assert code == 1
    doc = read_results(out)  # validates against results.schema.json
    assert doc["format"] == 2
    # Every case on every platform, in (domain, path) order: a.json's cases first.
    keys = [(r["case"], r["platform"]) for r in doc["results"]]
    assert len(keys) == len(set(keys)) == 14
    assert [r["case"] for r in doc["results"][:2]] == ["more-0", "more-1"]
    [bad] = [r for r in doc["results"] if r["status"] != "pass"]
    assert (bad["case"], bad["platform"], bad["status"]) == ("case-3", "liar", "fail")
    assert bad["diff"] == [
        {
            "pointer": "/frames/0/data",
            "expected": "hi",
            "actual": "hi!",
            "cluster": bad["diff"][0]["cluster"],
        }
    ]
    assert doc["summary"]["fail"] == 1 and doc["summary"]["pass"] == 13
    assert doc["summary"]["clusters"][0]["examples"] == ["sse-frames::case-3"]
    assert set(doc["cases"]) == {f"sse-frames::case-{i}" for i in range(4)} | {
        f"sse-frames::more-{i}" for i in range(3)
    }
    assert "FAIL sse-frames::case-3 [liar]" in printed
    assert '/frames/0/data: expected "hi", actual "hi!"' in printed


def test_the_saved_results_report_exactly_what_the_run_printed(
    streamed: None, liar: Any, write_vectors: Any, tmp_path: Path, capsys: Any
) -> None:
    folder = two_files(write_vectors, tmp_path)
    out = tmp_path / "results.json"
    code, printed = run_json(
        capsys, folder, out, "--platform", "python", "--platform", "liar", "--max-problems", "5"
    )
    assert main(["report", str(out), "--max-problems", "5"]) == code == 1
    reported = capsys.readouterr().out
    assert printed.removesuffix(f"\n\nfull results written to {out}\n") == reported.rstrip("\n")


def test_the_full_text_report_lists_every_problem(
    streamed: None, write_vectors: Any, tmp_path: Path, capsys: Any
) -> None:
    register_platform("liar-all", lambda: miniatures.Liar("liar-all"))
    try:
        folder = two_files(write_vectors, tmp_path)
        report = tmp_path / "report.txt"
        argv = ["run", "--no-default-vectors", "--vectors", str(folder), "-q"]
        code = main(
            [*argv, "--platform", "liar-all", "--max-problems", "1", "--output", str(report)]
        )
    finally:
        unregister_platform("liar-all")
    assert code == 1
    printed = capsys.readouterr().out
    assert printed.count("FAIL sse-frames::") == 1 and "… 6 more problems" in printed
    text = report.read_text(encoding="utf-8")
    assert text.count("FAIL sse-frames::") == 7 and "more problems" not in text
    assert text.rstrip().endswith("DIVERGED: 7 results: 0 pass, 7 fail, 0 error, 0 skip")


def test_json_to_stdout_is_the_whole_document(
    streamed: None, write_vectors: Any, tmp_path: Path, capsys: Any
) -> None:
    folder = two_files(write_vectors, tmp_path)
    argv = ["run", "--no-default-vectors", "--vectors", str(folder), "-q", "--format", "json"]
    assert main([*argv, "--platform", "python"]) == 0
    doc = json.loads(capsys.readouterr().out)
    results_validator().validate(doc)
    assert doc["summary"]["pass"] == 7 and len(doc["results"]) == 7


def test_an_invalid_file_reached_late_stops_the_run_with_every_problem(
    streamed: None, write_vectors: Any, tmp_path: Path, capsys: Any
) -> None:
    folder = two_files(write_vectors, tmp_path)
    bad = vector_document([hello_case(id="Not Kebab")], domain="sse-frames", variants=[])
    (folder / "c.json").write_text(json.dumps(bad), encoding="utf-8")
    out = tmp_path / "results.json"
    code = main(
        ["run", "--no-default-vectors", "--vectors", str(folder), "-q", "--output", str(out)]
    )
    assert code == 2
    err = capsys.readouterr().err
    assert "c.json" in err and "Not Kebab" in err
    assert not out.exists()
    assert not list(tmp_path.glob(".hanzo-conformance-results-*"))  # no spool left behind


def test_a_case_id_used_in_two_files_of_a_domain_is_refused_when_streamed(
    streamed: None, write_vectors: Any, tmp_path: Path, capsys: Any
) -> None:
    folder = two_files(write_vectors, tmp_path)
    (folder / "c.json").write_text(json.dumps(vector_document(many(1), variants=[])), "utf-8")
    assert main(["run", "--no-default-vectors", "--vectors", str(folder), "-q"]) == 2
    assert "id already used in" in capsys.readouterr().err


def test_the_domain_is_read_from_the_first_bytes_whatever_the_member_order(tmp_path: Path) -> None:
    path = tmp_path / "v.json"
    path.write_text('{"version": 1, "domain": "sse-frames", "cases": []}', encoding="utf-8")
    assert _vector_stream.peek_domain(path) == "sse-frames"
    path.write_text('\ufeff {"cases": [{"domain": "x"}], "domain" :"hooks"}', encoding="utf-8")
    assert _vector_stream.peek_domain(path) == "hooks"
    long_first = json.dumps({"cases": ["x" * (1 << 17)], "domain": "hooks"})
    path.write_text(long_first, encoding="utf-8")
    assert _vector_stream.peek_domain(path) is None  # past the bytes read: loaded to know
    path.write_text("[1, 2]", encoding="utf-8")
    assert _vector_stream.peek_domain(path) is None


def test_a_passing_line_is_the_json_of_its_record() -> None:
    heads: dict[str, str] = {}
    for actual in ({"frames": [{"data": 'é\u2028"\\', "n": 1.5}]}, None, [], MISSING):
        for platform in ("python", "js"):
            o = Outcome("sse-frames", "a-b", "0" * 64, platform, "pass", actual)
            line = _stream._pass_line(o, heads)
            assert json.loads(line) == o.to_json()


def test_a_pass_with_the_expected_value_writes_its_text(write_vectors: Any) -> None:
    from runners.vectors.load import load_vector_file

    [case] = load_vector_file(write_vectors(vector_document([hello_case()]))).cases
    same = Outcome(case.domain, case.id, case.content_hash(), "rust", "pass", case.expected)
    line = _stream._pass_line(same, {}, case)
    assert case.expected_json is not None and case.expected_json in line
    assert json.loads(line) == same.to_json()
    # A decoded output equal to it (members in another order) is the same JSON value.
    other = {"frames": [{"data": "hi", "event": None, "id": None, "retry": None}]}
    copy = Outcome(case.domain, case.id, case.content_hash(), "js", "pass", other)
    assert case.expected_json in _stream._pass_line(copy, {}, case)
    assert json.loads(_stream._pass_line(copy, {}, case))["actual"] == other


def test_a_pass_equal_only_by_python_is_written_from_its_own_value(write_vectors: Any) -> None:
    """1.0 == 1 in Python, not in JSON's terms here: with a number in the expected value,
    an output that is not the expected object itself is encoded from itself."""
    from runners.vectors.load import load_vector_file

    expected = {"frames": [{"event": None, "data": "hi", "id": None, "retry": 1}]}
    raw = hello_case(input={"chunks": ["retry: 1\ndata: hi\n\n"]}, expected=expected)
    [case] = load_vector_file(write_vectors(vector_document([raw]))).cases
    other = {"frames": [{"event": None, "data": "hi", "id": None, "retry": 1.0}]}
    assert other == case.expected
    line = _stream._pass_line(
        Outcome(case.domain, case.id, "0" * 64, "js", "pass", other), {}, case
    )
    assert '"retry":1.0' in line and case.expected_json not in line


def test_clusters_of_a_stream_keep_a_bounded_number_of_names() -> None:
    tally = ClusterTally(keep=3)
    for i in range(1000):
        result = {"domain": "d", "case": f"c{i}", "platform": "p", "status": "error"}
        tally.add(result)
        tally.add({**result, "platform": "q"})
    clusters = tally.clusters()
    assert [(c.platform, c.size, c.cases) for c in clusters] == [
        ("p", 1000, ["d::c0", "d::c1", "d::c2"]),
        ("q", 1000, ["d::c0", "d::c1", "d::c2"]),
    ]


def test_a_case_line_is_the_json_of_its_record(write_vectors: Any) -> None:
    from runners.reports.text import case_records
    from runners.vectors.load import VECTORS_DIR, load_vector_file

    unicode = hello_case(id="a", input={"chunks": ['é\u2028"\\', "x"]})
    files = [
        load_vector_file(write_vectors(vector_document([unicode]))),
        load_vector_file(VECTORS_DIR / "oauth-pkce.json"),  # error cases too
    ]
    assert any(c.expects_error for c in files[1].cases)
    records = case_records(files)
    for vf in files:
        for case in vf.cases:
            [(key, record)] = json.loads("{" + _stream._case_line(case) + "}").items()
            assert records[key] == record


class SignalsItself(miniatures._Wrapped):
    """The reference, but on case-3 it sends its own process SIGINT and waits to be stopped."""

    def run(self, requests: Any) -> Any:
        import os
        import signal
        import time

        if any("case-3" in r["id"] for r in requests):
            os.kill(os.getpid(), signal.SIGINT)
            for _ in range(500):  # stopped by the harness within this, or the test fails
                time.sleep(0.01)
        return self.inner.run(requests)


def test_an_interrupt_amid_chunks_writes_every_case_and_exits_130(
    streamed: None, write_vectors: Any, tmp_path: Path, capsys: Any
) -> None:
    register_platform("signals", lambda: SignalsItself("signals"))
    try:
        path = write_vectors(vector_document(many(7), variants=[]))
        out = tmp_path / "results.json"
        argv = ["run", "--no-default-vectors", "--vectors", str(path), "-q"]
        code = main([*argv, "--platform", "signals", "--format", "json", "--output", str(out)])
    finally:
        unregister_platform("signals")
    assert code == 130
    doc = read_results(out)
    statuses = {r["case"]: r["status"] for r in doc["results"]}
    assert len(doc["results"]) == 7
    # case-2 and case-3 share the chunk the signal cut; the chunks after it never ran.
    assert statuses == {
        **{f"case-{i}": "pass" for i in (0, 1)},
        **{f"case-{i}": "not_run" for i in range(2, 7)},
    }
    assert doc["summary"]["not_run"] == 5
    assert main(["report", str(out)]) == 1
    assert "INTERRUPTED: 7 results: 2 pass" in capsys.readouterr().out


def test_after_an_interruption_the_files_left_are_handed_over_without_waiting_for_room() -> None:
    # Two files taken and never finished (the signal came while they ran) hold both
    # places of the loader; the files after them must still reach rest(), or an
    # interrupted run waits forever instead of writing them down as not run.
    files = [SimpleNamespace(cases=()) for _ in range(4)]
    source = _stream._Prefetched(iter(files), held=2)  # type: ignore[arg-type]
    source.take(), source.take()
    rest: list[Any] = []
    reader = threading.Thread(target=lambda: rest.extend(source.rest()), daemon=True)
    reader.start()
    reader.join(timeout=10)
    assert not reader.is_alive(), "rest() waits for room that the taken files never give back"
    assert rest == files[2:]


def test_platforms_not_started_when_the_signal_came_are_still_listed() -> None:
    # The signal handler sets signum and raises Interrupt while a platform starts: the
    # platforms after it are listed as not started, so their columns show every case
    # not run instead of vanishing from the report.
    state = _stream.RunState()

    def interrupted() -> Any:
        state.signum = 2
        raise _stream.Interrupt

    chosen = [("first", interrupted), ("second", interrupted)]
    platforms = _stream.start_platforms(chosen, state)
    assert [p.name for p in platforms] == ["first", "second"]
    assert all(p.adapter is None for p in platforms)
    assert platforms[1].failure == "second was not started: the run was interrupted"


def _signal_at_line(target: int) -> Any:
    """A trace function that sends this process SIGINT at the ``target``-th line of
    ``queue`` code the main thread runs inside ``_stream.run`` (its handovers: a file
    from the loader, a chunk's outcomes from a platform thread), as a Ctrl-C arriving
    at that instant would; it counts those lines."""
    import os
    import queue as queue_module
    import signal

    watched = {queue_module.__file__}
    seen = [0]
    inside = [False]

    def lines(frame: Any, event: str, _arg: Any) -> Any:
        if event == "line" and frame.f_code.co_filename in watched:
            seen[0] += 1
            if seen[0] == target:
                os.kill(os.getpid(), signal.SIGINT)
        return lines

    def calls(frame: Any, event: str, _arg: Any) -> Any:
        if frame.f_code is _stream.run.__code__:
            inside[0] = event == "call"
            return lines
        return lines if inside[0] else None

    calls.seen = seen  # type: ignore[attr-defined]
    return calls


def test_a_signal_at_any_line_of_a_handover_loses_no_case(
    streamed: None,
    write_vectors: Any,
    tmp_path: Path,
    capsys: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Wherever a Ctrl-C lands in the run's waits and handovers (taking a file from the
    # loader, a chunk's outcomes from a platform thread), every case ends in the results,
    # each once: once queue.get had taken a file and an exception landed before it
    # returned, that file's cases were missing from the report.
    import sys

    monkeypatch.setattr(_stream, "_SIGNAL_CHECK_S", 0.002)  # a signal ends a wait sooner
    folder = two_files(write_vectors, tmp_path)
    register_platform("plain", lambda: miniatures._Wrapped("plain"))
    try:
        counted = _signal_at_line(0)
        sys.settrace(counted)
        try:
            run_json(capsys, folder, tmp_path / "all.json", "--platform", "plain")
        finally:
            sys.settrace(None)
        total = counted.seen[0]
        assert total > 20, total  # the trace saw the handovers
        for target in range(1, total + 1):
            out = tmp_path / f"at-{target}.json"
            sys.settrace(_signal_at_line(target))
            try:
                code, _ = run_json(capsys, folder, out, "--platform", "plain")
            finally:
                sys.settrace(None)
            results = read_results(out)["results"]
            cases = sorted(r["case"] for r in results)
            assert len(cases) == 7 and len(set(cases)) == 7, (target, cases)
            assert code in (0, 130), target
    finally:
        unregister_platform("plain")
