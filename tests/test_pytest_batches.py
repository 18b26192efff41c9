"""The pytest plugin batches a platform's items of a file, and every item still reports alone.

Platforms here are wrapped in ``miniatures.Recorder``, which logs the cases of each
``run()`` call, so each test can show both what ran together and what each item said.
"""

from __future__ import annotations

import json
import shlex
import signal
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from conftest import vector_document
from processes import survivors
from test_worker_isolation import cases, signal_when_hung, worker_option

TESTS = Path(__file__).resolve().parent
FAKE = TESTS / "fake_workers" / "fake_worker.py"
LIES_ON = ("case-1", "case-3")


@pytest.fixture
def project(pytester: pytest.Pytester, tmp_path: Path) -> Any:
    """Five sse-frames cases (rechunked too); platforms ``ref`` and ``liar`` (lying on 1, 3)."""
    (pytester.path / "vectors").mkdir()
    (pytester.path / "vectors" / "sse-frames.json").write_text(
        json.dumps(vector_document(cases(5))), encoding="utf-8"
    )
    pytester.makeini("[pytest]\nhanzo_conformance_vectors = vectors\n")
    logs = {name: tmp_path / f"{name}.log" for name in ("ref", "liar")}
    pytester.makeconftest(
        f"""
import sys
sys.path.insert(0, {str(TESTS)!r})
import miniatures
from adapters.registry import register_platform

def lies(request):
    return request["id"].rpartition("#")[0] in {[f"sse-frames/{c}" for c in LIES_ON]!r}

def reference():  # the Python reference under another name, recorded
    return miniatures.Recorder(miniatures.Rewriter("ref", lambda o: o), {str(logs["ref"])!r})

register_platform("ref", reference)
register_platform(
    "liar", lambda: miniatures.Recorder(miniatures.Liar(when=lies), {str(logs["liar"])!r})
)
"""
    )
    yield pytester, logs
    from adapters.registry import unregister_platform

    unregister_platform("ref")
    unregister_platform("liar")


def batches(log: Path) -> list[list[str]]:
    """The cases of each run() call, in order (none if the platform never ran)."""
    if not log.exists():
        return []
    return [[c.split("/", 1)[1] for c in json.loads(line)] for line in log.read_text().splitlines()]


def junit(path: Path) -> dict[str, str]:
    """Every testcase of a junitxml file: name -> passed / failure / skipped / error."""
    outcomes = {}
    for case in ET.parse(path).getroot().iter("testcase"):
        assert float(case.get("time", "nan")) >= 0
        kinds = [child.tag for child in case if child.tag in ("failure", "skipped", "error")]
        outcomes[case.get("name", "")] = kinds[0] if kinds else "passed"
    return outcomes


ALL = [f"case-{i}" for i in range(5)]


def test_a_files_items_run_as_one_batch_and_a_liar_fails_exactly_its_items(project):
    pytester, logs = project
    result = pytester.runpytest_inprocess(
        "--platform", "ref", "--platform", "liar", "--junitxml=out.xml", "-rN"
    )
    result.assert_outcomes(passed=8, failed=2)
    assert batches(logs["ref"]) == [ALL]
    assert batches(logs["liar"]) == [ALL]
    outcomes = junit(pytester.path / "out.xml")
    assert len(outcomes) == 10
    assert {name for name, o in outcomes.items() if o != "passed"} == {
        "case-1[liar]",
        "case-3[liar]",
    }
    # Each failure shows its own case's diff, not a neighbour's.
    text = result.stdout.str()
    for i in LIES_ON:
        n = i.split("-")[1]
        assert f"FAIL sse-frames::{i} [liar]" in text
        assert f'expected "{n}", actual "{n}!"' in text
    assert 'expected "0", actual' not in text and 'expected "2", actual' not in text


def test_x_reports_only_the_items_that_ran_though_the_batch_went_ahead(project):
    pytester, logs = project
    result = pytester.runpytest_inprocess("--platform", "liar", "-x", "--junitxml=out.xml", "-rN")
    result.assert_outcomes(passed=1, failed=1)
    assert junit(pytester.path / "out.xml") == {"case-0[liar]": "passed", "case-1[liar]": "failure"}
    assert batches(logs["liar"]) == [ALL]


def test_k_runs_only_the_selected_items_and_batches_them(project):
    pytester, logs = project
    result = pytester.runpytest_inprocess("--platform", "ref", "-k", "case-1 or case-4")
    result.assert_outcomes(passed=2, deselected=3)
    assert batches(logs["ref"]) == [["case-1", "case-4"]]


def test_batches_are_bounded(project):
    pytester, logs = project
    result = pytester.runpytest_inprocess("--platform", "liar", "--batch-cases", "2", "-rN")
    result.assert_outcomes(passed=3, failed=2)
    assert batches(logs["liar"]) == [ALL[0:2], ALL[2:4], ALL[4:]]


def test_batch_cases_1_runs_each_item_alone(project):
    pytester, logs = project
    result = pytester.runpytest_inprocess("--platform", "liar", "--batch-cases", "1", "-rN")
    result.assert_outcomes(passed=3, failed=2)
    assert batches(logs["liar"]) == [[case] for case in ALL]


def test_each_platform_of_a_file_is_its_own_batch_in_any_order(project):
    pytester, logs = project
    # -p no:... is not needed: items come in collection order, ref and liar interleaved.
    result = pytester.runpytest_inprocess("--platform", "liar", "--platform", "ref", "-rN")
    result.assert_outcomes(passed=8, failed=2)
    assert batches(logs["ref"]) == [ALL] and batches(logs["liar"]) == [ALL]


@pytest.mark.parametrize("dist", ["load", "loadscope"])
def test_xdist_workers_batch_only_their_own_items(project, dist):
    pytester, logs = project
    result = pytester.runpytest_subprocess(
        "-n", "2", f"--dist={dist}", "--platform", "ref", "--platform", "liar",
        "--junitxml=out.xml", "-p", "no:cacheprovider", "-rN",
    )  # fmt: skip
    result.assert_outcomes(passed=8, failed=2)
    outcomes = junit(pytester.path / "out.xml")
    assert {name for name, o in outcomes.items() if o != "passed"} == {
        "case-1[liar]",
        "case-3[liar]",
    }
    for name in ("ref", "liar"):
        ran = [case for batch in batches(logs[name]) for case in batch]
        assert sorted(ran) == ALL  # every case once: no worker ran another's items
        if dist == "loadscope":  # a file's items all go to one worker: one batch
            assert batches(logs[name]) == [ALL]


def test_a_crash_and_a_hang_in_a_batch_fail_only_their_own_items(project):
    pytester, _ = project
    doc = vector_document(cases(5), variants=[])
    (pytester.path / "vectors" / "sse-frames.json").write_text(json.dumps(doc), encoding="utf-8")
    fake = [sys.executable, str(FAKE), "--reference"]
    faults = ["--crash-on", "sse-frames/case-1#0", "--hang-on", "sse-frames/case-3#0"]
    result = pytester.runpytest_subprocess(
        "--platform", "w", "--worker", f"w={shlex.join(fake + faults)}", "--case-timeout", "0.5",
        "--junitxml=out.xml", "-p", "no:cacheprovider", "-rN", timeout=60,
    )  # fmt: skip
    result.assert_outcomes(passed=3, failed=2)
    outcomes = junit(pytester.path / "out.xml")
    assert {name for name, o in outcomes.items() if o != "passed"} == {"case-1[w]", "case-3[w]"}
    text = result.stdout.str()
    assert "fake worker: dying on sse-frames/case-1#0" in text  # its stderr, with its case
    assert "w crashed: no response within 0.5 s for case sse-frames/case-3" in text


def test_in_process_platforms_are_batched_too(project):
    pytester, _ = project
    result = pytester.runpytest_inprocess("--platform", "python", "--in-process", "-rN")
    result.assert_outcomes(passed=5)


def test_sigterm_during_a_batch_reports_the_items_that_finished_then_stops(project, tmp_path):
    pytester, _ = project
    pids, marker = tmp_path / "pids", tmp_path / "hanging"
    doc = vector_document(cases(5), variants=[])
    (pytester.path / "vectors" / "sse-frames.json").write_text(json.dumps(doc), encoding="utf-8")
    worker = worker_option(
        "w", "--reference", "--hang-on", "sse-frames/case-2#0", "--hang-marker", str(marker),
        "--pid-file", str(pids),
    )  # fmt: skip
    session = subprocess.Popen(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--platform", "w",
         "--worker", worker, "--case-timeout", "60", "--junitxml=out.xml"],
        cwd=pytester.path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    out, _ = signal_when_hung(session, marker, signal.SIGTERM)
    assert "KeyboardInterrupt" in out and "2 passed" in out, out
    assert junit(pytester.path / "out.xml") == {"case-0[w]": "passed", "case-1[w]": "passed"}
    assert survivors(pids) == []
