"""Workers and signals (issue 8): wrapped workers, process groups, signals, the cutoff,
stray lines, never-flushing workers and start failures.

Workers are the fake in tests/fake_workers/fake_worker.py, often behind ``sh -c``
without ``exec`` (the shell stays as the worker's parent, as with ``npm run`` or
``go run``). Every test that starts processes checks /proc for survivors.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import hello_case, vector_document
from processes import survivors, within

from adapters.process import LINE_LIMIT
from adapters.protocol import PlatformUnavailable, Request
from adapters.worker import BROKEN_AFTER, FLUSH_HINT, WorkerAdapter
from runners._cli import main
from runners.gate.ledger import ledger_text
from runners.vectors.load import load_vector_file
from runners.vectors.schemas import results_validator

FAKE = Path(__file__).resolve().parent / "fake_workers" / "fake_worker.py"
FAST = 0.5


def wrapped(*switches: str) -> list[str]:
    """``sh -c`` around the fake, without exec: the shell stays, the fake is its child."""
    fake = " ".join(shlex.quote(a) for a in [sys.executable, str(FAKE), *switches])
    return ["sh", "-c", f"{fake}; echo wrapper: worker ended >&2"]


def worker_option(name: str, *switches: str) -> str:
    return f"{name}={shlex.join(wrapped(*switches))}"


def batch(n: int = 4) -> list[Request]:
    return [{"id": f"c{i}", "domain": "echo", "input": {"n": i}} for i in range(n)]


def cases(n: int) -> list[dict[str, Any]]:
    return [
        hello_case(
            id=f"case-{i}",
            input={"chunks": [f"data: {i}\n\n"]},
            expected={"frames": [{"event": None, "data": str(i), "id": None, "retry": None}]},
        )
        for i in range(n)
    ]


def one_file(write_vectors: Any, n: int) -> Path:
    return write_vectors(vector_document(cases(n), variants=[]))


def cli(capsys: Any, path: Path, *argv: str) -> tuple[int, str, str]:
    code = main(["run", "--no-default-vectors", "--vectors", str(path), *argv])
    out, err = capsys.readouterr()
    return code, out, err


# -- wrapped workers and process groups ----------------------------------------------


def harness_run(*argv: str, **popen: Any) -> subprocess.Popen[str]:
    """``python -m runners run ARGV`` as a child process, its output piped."""
    return subprocess.Popen(
        [sys.executable, "-m", "runners", "run", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **popen,
    )


def signal_when_hung(
    proc: subprocess.Popen[str], marker: Path, signum: int, group: bool = False
) -> tuple[str, str]:
    """Signal ``proc`` (its process group if ``group``, as a terminal does) once the fake
    worker wrote ``marker`` (it hangs); return its output."""
    try:
        deadline = time.monotonic() + 30
        while not marker.exists():
            assert time.monotonic() < deadline and proc.poll() is None, proc.communicate()
            time.sleep(0.05)
        if group:
            os.killpg(proc.pid, signum)
        else:
            proc.send_signal(signum)
        return proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()


def test_a_wrapped_worker_that_hangs_on_a_case_is_killed_with_its_wrapper(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    adapter = WorkerAdapter("w", wrapped("--hang-on", "c1", "--pid-file", str(pids)), timeout=FAST)
    began = time.monotonic()
    try:
        adapter.start()
        responses = within(FAST + 10, lambda: adapter.run(batch()))
    finally:
        within(10, adapter.stop)
    assert time.monotonic() - began < FAST + 10
    assert responses[1]["crash"]["message"] == f"no response within {FAST} s for case c1"  # type: ignore[typeddict-item]
    assert [r.get("output") for r in responses] == [
        {"echo": {"n": i}} if i != 1 else None for i in range(4)
    ]
    assert survivors(pids) == []


def test_a_wrapped_worker_that_hangs_at_start_is_killed_with_its_wrapper(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    adapter = WorkerAdapter(
        "w", wrapped("--no-handshake", "--pid-file", str(pids)), timeout=FAST, start_timeout=FAST
    )
    with pytest.raises(
        PlatformUnavailable, match=r"did not answer the start request within 0\.5 s"
    ):
        within(10, adapter.start)
    assert survivors(pids) == []


def test_a_process_that_escaped_the_group_and_holds_the_pipes_does_not_wedge_the_harness(
    tmp_path: Path,
) -> None:
    """A grandchild in a session of its own survives the group kill with stdout open:
    the harness abandons the pipe instead of waiting for it."""
    escaped = tmp_path / "escaped.pid"
    fake = shlex.join([sys.executable, str(FAKE), "--hang-on", "c1"])
    daemon = f"setsid sh -c 'echo $$ > {shlex.quote(str(escaped))}; exec sleep 60' &"
    adapter = WorkerAdapter("w", ["sh", "-c", f"{daemon} {fake}; true"], timeout=FAST)
    try:
        adapter.start()
        responses = within(FAST + 10, lambda: adapter.run(batch()))
        within(10, adapter.stop)
    finally:
        if escaped.exists():
            os.kill(int(escaped.read_text()), signal.SIGKILL)
    assert responses[1]["crash"]["message"] == f"no response within {FAST} s for case c1"  # type: ignore[typeddict-item]
    assert "output" in responses[3]


def test_the_harness_exiting_kills_worker_groups(tmp_path: Path) -> None:
    """A harness that exits without stop() (an exception, sys.exit) leaves no worker behind."""
    pids = tmp_path / "pids"
    script = f"""
import sys
from adapters.worker import WorkerAdapter
adapter = WorkerAdapter("w", {wrapped("--pid-file", str(pids))!r})
adapter.start()
sys.exit(0)
"""
    subprocess.run([sys.executable, "-c", script], check=True, timeout=30)
    assert survivors(pids) == []


def test_cli_run_with_a_wrapped_hanging_worker_ends_and_leaves_nothing(
    capsys: Any, write_vectors: Any, tmp_path: Path
) -> None:
    pids = tmp_path / "pids"
    path = one_file(write_vectors, 3)
    worker = worker_option(
        "w", "--reference", "--hang-on", "sse-frames/case-1#0", "--pid-file", str(pids)
    )
    code, out, _ = within(
        30,
        lambda: cli(
            capsys, path, "--platform", "w", "--worker", worker, "--case-timeout", str(FAST)
        ),
    )
    assert code == 1
    assert f"no response within {FAST} s for case sse-frames/case-1#0" in out
    assert "2 pass, 0 fail, 1 error" in out
    assert survivors(pids) == []


def test_a_case_that_hangs_on_every_chunking_costs_one_timeout_and_only_that_case(
    capsys: Any, write_vectors: Any, tmp_path: Path
) -> None:
    pids, results = tmp_path / "pids", tmp_path / "results.json"
    path = write_vectors(vector_document(cases(4)))  # with the rechunk variant: ~10 requests a case
    worker = worker_option(
        "w", "--reference", "--hang-on", "sse-frames/case-1#*", "--pid-file", str(pids)
    )
    began = time.monotonic()
    code, _, _ = within(
        30,
        lambda: cli(
            capsys,
            path,
            "--platform",
            "w",
            "--worker",
            worker,
            "--case-timeout",
            str(FAST),
            "--format",
            "json",
            "--output",
            str(results),
        ),
    )
    assert time.monotonic() - began < 2 * FAST + 15
    assert code == 1
    doc = json.loads(results.read_text(encoding="utf-8"))
    assert [r["status"] for r in doc["results"]] == ["pass", "error", "pass", "pass"]
    assert (
        doc["results"][1]["message"]
        == f"w crashed: no response within {FAST} s for case sse-frames/case-1#0"
    )
    assert "broken" not in doc["summary"]["platforms"]["w"]
    assert survivors(pids) == []


# -- SIGINT and SIGTERM --------------------------------------------------------------


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_stops_workers_and_reports_what_finished(
    write_vectors: Any, tmp_path: Path, signum: int, code: int
) -> None:
    pids, marker, results = tmp_path / "pids", tmp_path / "hanging", tmp_path / "results.json"
    path = one_file(write_vectors, 4)
    worker = worker_option(
        "w",
        "--reference",
        "--hang-on",
        "sse-frames/case-2#0",
        "--hang-marker",
        str(marker),
        "--pid-file",
        str(pids),
    )
    harness = harness_run(
        *("--no-default-vectors", "--vectors", str(path), "--platform", "w", "--worker", worker),
        *("--case-timeout", "60", "--format", "json", "--output", str(results)),
    )
    out, err = signal_when_hung(harness, marker, signum)
    assert harness.returncode == code, (out, err)
    assert "Traceback" not in err, err
    assert "INTERRUPTED: 4 results: 2 pass, 0 fail, 0 error, 0 skip, 2 not run" in out
    doc = json.loads(results.read_text(encoding="utf-8"))
    results_validator().validate(doc)
    assert [r["status"] for r in doc["results"]] == ["pass", "pass", "not_run", "not_run"]
    assert doc["summary"]["not_run"] == 2
    assert survivors(pids) == []


# The console script's start, with a Ctrl-C arriving while a module the CLI needs loads.
INTERRUPTED_IMPORT = """
import sys

class CtrlC:
    def find_spec(self, name, path=None, target=None):
        if name == "jsonschema":
            raise KeyboardInterrupt

sys.meta_path.insert(0, CtrlC())
from runners._console import main
assert "jsonschema" not in sys.modules, "the console script loaded the CLI before its guard"
sys.exit(main())
"""


def test_a_ctrl_c_while_the_cli_loads_ends_quietly_with_130() -> None:
    done = subprocess.run(
        [sys.executable, "-c", INTERRUPTED_IMPORT, "validate"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (done.returncode, done.stderr) == (130, "hanzo-conformance: interrupted\n")


def test_a_run_started_with_sigint_ignored_keeps_ignoring_it(
    write_vectors: Any, tmp_path: Path
) -> None:
    """A background job of a script starts with SIGINT ignored, so that Ctrl-C stops the
    script's foreground only: a Ctrl-C to the harness's process group changes nothing."""
    marker, results = tmp_path / "hanging", tmp_path / "results.json"
    path = one_file(write_vectors, 4)
    worker = worker_option(
        "w", "--reference", "--hang-on", "sse-frames/case-2#0", "--hang-marker", str(marker)
    )
    argv = [
        *("--no-default-vectors", "--vectors", str(path), "--platform", "w", "--worker", worker),
        *("--case-timeout", "2", "--format", "json", "--output", str(results)),
    ]
    harness = harness_run(
        *argv,
        start_new_session=True,  # its own process group, as a script's job shares one
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
    )
    out, err = signal_when_hung(harness, marker, signal.SIGINT, group=True)  # a Ctrl-C
    assert harness.returncode == 1, (out, err)  # case-2 timed out; nothing interrupted
    assert "INTERRUPTED" not in out, out
    doc = json.loads(results.read_text(encoding="utf-8"))
    assert [r["status"] for r in doc["results"]] == ["pass", "pass", "error", "pass"]


def test_an_interrupted_run_keeps_its_ledger_quiet_and_its_reports_readable(
    write_vectors: Any, tmp_path: Path, capsys: Any
) -> None:
    """A ledger entry for a case the interrupted run never reached is not stale, and the
    saved results render as Markdown and HTML (gate's ledger and reports over hard's not_run)."""
    marker, results = tmp_path / "hanging", tmp_path / "results.json"
    path = one_file(write_vectors, 4)
    [case_3] = [c for c in load_vector_file(path).cases if c.id == "case-3"]
    ledger = tmp_path / "expectations.json"
    entry = {
        "domain": "sse-frames",
        "case": "case-3",
        "hash": case_3.content_hash(),
        "fails": {"pointers": ["/frames/0/data"]},
        "reason": "would be stale had it run: the worker answers like the reference",
        "link": "https://example.invalid/issue/1",
        "owner": "harness",
    }
    ledger.write_text(ledger_text({"platform": "w", "entries": [entry]}), encoding="utf-8")
    worker = worker_option(
        "w", "--reference", "--hang-on", "sse-frames/case-2#0", "--hang-marker", str(marker)
    )
    argv = [
        *("--no-default-vectors", "--vectors", str(path), "--platform", "w", "--worker", worker),
        *("--case-timeout", "60", "--expectations", str(ledger)),
        *("--format", "json", "--output", str(results)),
    ]
    harness = harness_run(*argv)
    out, err = signal_when_hung(harness, marker, signal.SIGINT)
    assert harness.returncode == 130, (out, err)
    assert "STALE" not in out and "INTERRUPTED" in out, out
    doc = json.loads(results.read_text(encoding="utf-8"))
    results_validator().validate(doc)
    assert doc["summary"]["expectations"]["problems"] == []
    assert [r["status"] for r in doc["results"]] == ["pass", "pass", "not_run", "not_run"]
    # Readable, but an incomplete run is not a passing gate: 1, as for a divergence.
    assert main(["report", str(results), "--format", "markdown"]) == 1
    assert "interrupted" in capsys.readouterr().out
    html = tmp_path / "report.html"
    assert main(["report", str(results), "--format", "html", "--output", str(html)]) == 1
    assert '"not_run":2' in html.read_text(encoding="utf-8")  # the page's embedded summary


def test_sigterm_to_pytest_stops_its_workers(pytester: pytest.Pytester, tmp_path: Path) -> None:
    pids, marker = tmp_path / "pids", tmp_path / "hanging"
    (pytester.path / "vectors").mkdir()
    pytester.makeini("[pytest]\nhanzo_conformance_vectors = vectors\n")
    (pytester.path / "vectors" / "sse-frames.json").write_text(
        json.dumps(vector_document(cases(3), variants=[])), encoding="utf-8"
    )
    worker = worker_option(
        "w",
        "--reference",
        "--hang-on",
        "sse-frames/case-1#0",
        "--hang-marker",
        str(marker),
        "--pid-file",
        str(pids),
    )
    session = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "--platform",
            "w",
            "--worker",
            worker,
            "--case-timeout",
            "60",
        ],
        cwd=pytester.path,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    out, _ = signal_when_hung(session, marker, signal.SIGTERM)
    assert "KeyboardInterrupt" in out and "1 passed" in out, out
    assert survivors(pids) == []


# -- a worker that fails every case: the cutoff ------------------------------------------


def test_cli_declares_a_worker_broken_after_a_few_consecutive_timeouts(
    capsys: Any, write_vectors: Any, tmp_path: Path
) -> None:
    pids, results = tmp_path / "pids", tmp_path / "results.json"
    path = one_file(write_vectors, 8)
    worker = worker_option("w", "--reference", "--hang-on", "*", "--pid-file", str(pids))
    code, _, _ = within(
        BROKEN_AFTER * (FAST + 2) + 10,
        lambda: cli(
            capsys,
            path,
            "--platform",
            "w",
            "--worker",
            worker,
            "--case-timeout",
            str(FAST),
            "--format",
            "json",
            "--output",
            str(results),
        ),
    )
    assert code == 1
    doc = json.loads(results.read_text(encoding="utf-8"))
    broken = doc["summary"]["platforms"]["w"]["broken"]
    assert broken.startswith(f"w declared broken after {BROKEN_AFTER} consecutive worker failures")
    messages = [r["message"] for r in doc["results"]]
    assert all(m.startswith("w crashed: no response within") for m in messages[:BROKEN_AFTER])
    assert messages[BROKEN_AFTER:] == [f"w crashed: {broken}"] * (8 - BROKEN_AFTER)
    assert survivors(pids) == []


def test_pytest_declares_a_worker_broken_after_a_few_consecutive_timeouts(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    pids = tmp_path / "pids"
    (pytester.path / "vectors").mkdir()
    pytester.makeini("[pytest]\nhanzo_conformance_vectors = vectors\n")
    (pytester.path / "vectors" / "sse-frames.json").write_text(
        json.dumps(vector_document(cases(8), variants=[])), encoding="utf-8"
    )
    worker = worker_option("w", "--reference", "--hang-on", "*", "--pid-file", str(pids))
    began = time.monotonic()
    result = pytester.runpytest_subprocess(
        "--platform",
        "w",
        "--worker",
        worker,
        "--case-timeout",
        str(FAST),
        "-p",
        "no:cacheprovider",
        "-rN",  # no short summary: under CI=true it repeats every failure's message
        timeout=BROKEN_AFTER * (FAST + 2) + 30,
    )
    assert time.monotonic() - began < BROKEN_AFTER * (FAST + 2) + 30
    result.assert_outcomes(failed=8)
    text = result.stdout.str()
    assert text.count("w crashed: no response within") == BROKEN_AFTER
    assert (
        text.count(f"w declared broken after {BROKEN_AFTER} consecutive worker failures")
        >= 8 - BROKEN_AFTER
    )
    assert "w: BROKEN: " in text
    assert survivors(pids) == []


# -- a worker that never flushes ---------------------------------------------------------


def test_a_worker_that_never_flushes_is_told_to_flush(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    adapter = WorkerAdapter(
        "w",
        [sys.executable, str(FAKE), "--no-flush", "--pid-file", str(pids)],
        timeout=FAST,
        start_timeout=FAST,
    )
    with pytest.raises(PlatformUnavailable) as info:
        adapter.start()
    assert FLUSH_HINT in info.value.message
    assert survivors(pids) == []


def test_a_worker_that_flushes_only_the_handshake_is_told_to_flush(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    adapter = WorkerAdapter(
        "w",
        [sys.executable, str(FAKE), "--no-flush-after-start", "--pid-file", str(pids)],
        timeout=FAST,
    )
    try:
        adapter.start()
        [response] = adapter.run(batch(1))
    finally:
        adapter.stop()
    assert response["crash"]["message"] == f"no response within {FAST} s for case c0; {FLUSH_HINT}"  # type: ignore[typeddict-item]
    assert survivors(pids) == []


# -- stray and duplicate lines ----------------------------------------------------------


def test_a_duplicate_at_the_end_of_a_batch_is_a_platform_problem_not_the_next_case(
    tmp_path: Path,
) -> None:
    pids = tmp_path / "pids"
    adapter = WorkerAdapter(
        "w",
        [sys.executable, str(FAKE), "--duplicate-on", "c1", "--pid-file", str(pids)],
        timeout=FAST,
    )
    try:
        adapter.start()
        first = adapter.run(batch(2))
        time.sleep(0.2)  # the duplicate arrives while the harness is between batches
        second = adapter.run([{"id": "d0", "domain": "echo", "input": 0}])
    finally:
        adapter.stop()
    assert [r.get("output") for r in first] == [{"echo": {"n": 0}}, {"echo": {"n": 1}}]
    assert second == [{"id": "d0", "output": {"echo": 0}}]
    assert [p["kind"] for p in adapter.problems] == ["stray-line"]
    assert '"id": "c1"' in adapter.problems[0]["detail"]
    assert adapter.restarts == 1
    assert survivors(pids) == []


def test_a_duplicate_mid_batch_is_a_platform_problem_and_the_case_is_sent_again(
    tmp_path: Path,
) -> None:
    adapter = WorkerAdapter("w", [sys.executable, str(FAKE), "--duplicate-on", "c0"], timeout=FAST)
    try:
        adapter.start()
        responses = adapter.run(batch(3))
    finally:
        adapter.stop()
    assert [r.get("output") for r in responses] == [{"echo": {"n": i}} for i in range(3)]
    assert adapter.problems and adapter.problems[0]["kind"] == "stray-line"
    assert "duplicate answer for id c0 while case c1 was running" in adapter.problems[0]["message"]


def test_cli_reports_a_duplicate_in_the_report_and_the_json_results(
    capsys: Any, write_vectors: Any, tmp_path: Path
) -> None:
    sse = one_file(write_vectors, 2)
    pkce_case = {
        "id": "rfc7636-appendix-b",
        "description": "RFC 7636's worked example.",
        "tags": ["rfc"],
        "source": {"kind": "rfc", "ref": "RFC 7636 Appendix B"},
        "clauses": ["PKCE-1"],
        "input": {"verifier": "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"},
        "expected": {"challenge": "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"},
    }
    write_vectors(
        vector_document([pkce_case], domain="oauth-pkce", variants=[], tags={"rfc": "from an RFC"}),
        name="oauth-pkce.json",
    )
    results = tmp_path / "results.json"
    # The last case of the first batch (oauth-pkce sorts first) is answered twice.
    worker = worker_option("w", "--reference", "--duplicate-on", "oauth-pkce/rfc7636-appendix-b#0")
    code, out, _ = cli(
        capsys,
        sse.parent,
        "--platform",
        "w",
        "--worker",
        worker,
        "--output",
        str(results),
        "--format",
        "json",
    )
    doc = json.loads(results.read_text(encoding="utf-8"))
    results_validator().validate(doc)
    assert [r["status"] for r in doc["results"]] == ["pass"] * 3, out  # no innocent case blamed
    [problem] = doc["summary"]["platforms"]["w"]["problems"]
    assert (
        problem["kind"] == "stray-line" and "oauth-pkce/rfc7636-appendix-b#0" in problem["detail"]
    )
    assert "PROBLEM (stray-line): worker wrote" in out
    assert code == 0


# -- start failures -----------------------------------------------------------------------


def test_a_start_failure_is_reported_once_with_the_worker_stderr(
    capsys: Any, write_vectors: Any, tmp_path: Path
) -> None:
    path = one_file(write_vectors, 3)
    results = tmp_path / "results.json"
    code, out, err = cli(
        capsys,
        path,
        "--platform",
        "ghost",
        "--worker",
        "ghost=sh -c 'echo boom-on-stderr-$((40 + 2)) >&2; exit 3'",
        "--format",
        "json",
        "--output",
        str(results),
    )
    assert code == 1
    assert out.count("boom-on-stderr-42") == 1
    assert "Traceback" not in out + err
    assert "ERROR 3 case(s) [ghost]" in out
    assert "exited with code 3 before completing the handshake" in out
    doc = json.loads(results.read_text(encoding="utf-8"))
    results_validator().validate(doc)
    assert "boom-on-stderr-42" in doc["summary"]["platforms"]["ghost"]["detail"]
    assert all("detail" not in r for r in doc["results"])


def test_pytest_reports_a_start_failure_once_with_the_worker_stderr(
    pytester: pytest.Pytester,
) -> None:
    (pytester.path / "vectors").mkdir()
    pytester.makeini("[pytest]\nhanzo_conformance_vectors = vectors\n")
    (pytester.path / "vectors" / "sse-frames.json").write_text(
        json.dumps(vector_document(cases(3), variants=[])), encoding="utf-8"
    )
    result = pytester.runpytest_subprocess(
        "--platform",
        "ghost",
        "--worker",
        "ghost=sh -c 'echo boom-on-stderr-$((40 + 2)) >&2; exit 3'",
        "-p",
        "no:cacheprovider",
    )
    result.assert_outcomes(failed=3)
    text = result.stdout.str()
    assert text.count("boom-on-stderr-42") == 1
    assert "ghost: UNAVAILABLE: ghost did not start" in text
    assert "Traceback" not in text


def test_a_missing_worker_command_is_a_platform_unavailable(
    capsys: Any, write_vectors: Any
) -> None:
    path = one_file(write_vectors, 2)
    code, out, _ = cli(
        capsys, path, "--platform", "ghost", "--worker", "ghost=/nonexistent/worker --flag"
    )
    assert code == 1
    assert "ERROR 2 case(s) [ghost]" in out
    assert "ghost: UNAVAILABLE: ghost did not start: cannot run worker" in out


# -- the protocol is checked once, at the boundary ------------------------------------------


def test_a_request_the_protocol_forbids_is_never_sent() -> None:
    adapter = WorkerAdapter("w", [sys.executable, str(FAKE)], timeout=FAST)
    try:
        adapter.start()
        responses = adapter.run([{"id": "bad", "domain": "Not A Domain", "input": 1}, *batch(1)])
    finally:
        adapter.stop()
    assert responses[0]["crash"]["message"].startswith(
        "harness bug: request 'bad' does not match run.json"
    )  # type: ignore[typeddict-item]
    assert responses[1] == {"id": "c0", "output": {"echo": {"n": 0}}}


def test_start_failures_of_the_built_in_platforms_are_platform_unavailable(
    monkeypatch: Any,
) -> None:
    import builtins

    from adapters.rust import RustAdapter

    real_import = builtins.__import__

    def no_extension(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "hanzo_conformance_rust":
            raise ImportError("not built")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_extension)
    with pytest.raises(PlatformUnavailable, match=r"pip install \./impl_rust/hanzo-conformance-py"):
        RustAdapter().start()


def test_the_harness_messages_match_their_schemas() -> None:
    from adapters.messages import START_LINE, STOP_LINE, problem

    assert problem("start", json.loads(START_LINE)) is None
    assert problem("stop", json.loads(STOP_LINE)) is None
    assert problem("run", {"cmd": "run", "id": "", "domain": "d", "input": 1}) is not None
    assert problem("started", {"ok": True}) is not None


def test_one_line_nested_too_deeply_is_that_cases_crash_not_the_platforms(
    write_vectors: Any, tmp_path: Path
) -> None:
    """A 100,000-deep line raised RecursionError in the decoder and errored every case of
    the platform (issue 32); now only its own case fails, and says why."""

    worker = Path(__file__).resolve().parent / "fake_workers" / "deep_liner.py"
    deep = hello_case(id="deep", input={"chunks": ["data: deep\n\n"]})
    cases = [hello_case(id="before"), deep, hello_case(id="after")]
    path = write_vectors(vector_document(cases))
    out = tmp_path / "results.json"
    argv = ["run", "-q", "--no-default-vectors", "--vectors", str(path)]
    argv += ["--worker", f"deep={sys.executable} {worker}", "--platform", "deep"]
    assert main([*argv, "--format", "json", "--output", str(out)]) == 1
    results = {r["case"]: r for r in json.loads(out.read_text(encoding="utf-8"))["results"]}
    assert results["before"]["status"] == results["after"]["status"] == "fail"
    assert results["deep"]["status"] == "error"
    assert "nested too deeply" in results["deep"]["message"]


def test_one_line_too_long_is_that_cases_crash_and_is_not_kept(
    write_vectors: Any, tmp_path: Path
) -> None:
    """A worker line past LINE_LIMIT is read past, not held (an endless line would take
    the harness's memory), and fails its own case only, saying how long it was."""

    worker = Path(__file__).resolve().parent / "fake_workers" / "deep_liner.py"
    long = hello_case(id="long", input={"chunks": ["data: long\n\n"]})
    cases = [hello_case(id="before"), long, hello_case(id="after")]
    path = write_vectors(vector_document(cases))
    out = tmp_path / "results.json"
    argv = ["run", "-q", "--no-default-vectors", "--vectors", str(path)]
    argv += ["--worker", f"long={sys.executable} {worker}", "--platform", "long"]
    assert main([*argv, "--format", "json", "--output", str(out)]) == 1
    results = {r["case"]: r for r in json.loads(out.read_text(encoding="utf-8"))["results"]}
    assert results["before"]["status"] == results["after"]["status"] == "fail"
    assert results["long"]["status"] == "error"
    size = re.search(r"a line of ([\d,]+) bytes", results["long"]["message"])
    assert size and int(size[1].replace(",", "")) > LINE_LIMIT
