"""The expect-error extension (docs/protocol.md): an expected contract error comes back
as its message only.

The served python and rust children (their ``run_line``: Python's compares the code as
spelled, Rust's in Rust) and the JS worker take it, and so does a served adapter
without a ``run_line`` (``adapters/serve.py`` answers it then). A request
whose case expects a contract error carries ``"expect_error": <code>``, and a child
whose error has that code answers ``!"<message>"``. These tests check that the results
are the bytes the whole answers gave, that every other answer (another code, a
message that is not I-JSON, an output) is judged as before, and that the harness takes
``!`` only where it was asked for and only as one JSON string.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import hanzo_conformance_rust
import pytest
from miniatures import ErrorMessage

from adapters import registry
from adapters.messages import EXTENSIONS_LINE, encode_request, error_acknowledged
from adapters.protocol import ErrorAsExpected
from adapters.serve import MAX_GROUP
from adapters.worker import WorkerAdapter
from runners.run.batches import _own_request, run_cases, start_platform
from runners.run.stream import encode_chunk
from runners.vectors.load import VectorFile, load_vector_file

ROOT = Path(__file__).resolve().parent.parent
TESTS = Path(__file__).resolve().parent
FAKE = TESTS / "fake_workers" / "fake_worker.py"
LINES = TESTS / "fake_workers" / "line_answerer.py"


@pytest.fixture(scope="module")
def mcp() -> VectorFile:
    return load_vector_file(ROOT / "vectors" / "mcp-normalization.json")


@pytest.fixture(scope="module")
def pkce() -> VectorFile:
    return load_vector_file(ROOT / "vectors" / "oauth-pkce.json")


@pytest.fixture(scope="module", params=("python", "rust", "js"))
def platform(request: pytest.FixtureRequest) -> Iterator[Any]:
    adapter = registry.create(request.param, timeout=10.0)
    started = start_platform(request.param, adapter)
    assert started.failure is None, started.failure
    yield started
    adapter.stop()


def _served(spec: str, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv("PYTHONPATH", str(TESTS))
    command = [sys.executable, "-m", "adapters.serve", spec]
    adapter = WorkerAdapter(spec, command, answers_in_groups=MAX_GROUP, expect=True)
    return start_platform(spec, adapter)


def _lines(vf: VectorFile, outcomes: Any) -> str:
    chunk = encode_chunk(vf.cases, [outcomes], lambda domain, case: False, True)
    [(_, _, lines, records)] = chunk.platforms
    assert not records
    return "".join(line for line in lines if line is not None)


def test_who_takes_it() -> None:
    for name, errors in (("python", True), ("rust", True), ("js", True)):
        adapter = registry.create(name, timeout=10.0)
        try:
            start_platform(name, adapter)
            assert (adapter.expecting, adapter.expecting_errors) == (True, errors), name
        finally:
            adapter.stop()


def test_expected_errors_come_back_as_their_message(platform: Any, mcp: VectorFile) -> None:
    errors = [c for c in mcp.cases if c.expects_error]
    responses = platform.adapter.run([_own_request(c, True) for c in errors])
    for case, response in zip(errors, responses, strict=True):
        assert type(response) is ErrorAsExpected, (case.id, response)
        assert response["error"]["code"] == case.error
        assert response["error"]["message"]  # the platform's own message


def test_the_results_are_the_bytes_of_whole_answers(platform: Any, mcp: VectorFile) -> None:
    adapter = platform.adapter
    with_it = _lines(mcp, run_cases(platform, mcp, mcp.cases))
    # The same run with each case's request made anew and the extension not used.
    cases = [dataclasses.replace(c) for c in mcp.cases]
    vf = dataclasses.replace(mcp, cases=tuple(cases))
    # (tab-run lines carry the expected code too: off as well)
    tab_run, adapter.expecting_errors, adapter.tab_run = adapter.tab_run, False, False
    try:
        without = _lines(vf, run_cases(platform, vf, vf.cases))
    finally:
        adapter.expecting_errors, adapter.tab_run = True, tab_run
    assert with_it == without
    assert with_it.count('"actual":{"error":{"code":') == sum(c.expects_error for c in mcp.cases)


def test_a_case_expecting_another_code_fails_with_its_diff(platform: Any, mcp: VectorFile) -> None:
    # The platform is right and the case wrong (another expected code): the child must
    # not acknowledge, and the harness reports the failure with both codes.
    errors = [
        dataclasses.replace(c, id=f"skewed-{c.id}", error="another_code")
        for c in mcp.cases
        if c.expects_error
    ]
    vf = dataclasses.replace(mcp, cases=tuple(errors))
    responses = platform.adapter.run([_own_request(c, True) for c in errors])
    assert not any(type(r) is ErrorAsExpected for r in responses)
    for case, outcome in zip(errors, run_cases(platform, vf, errors), strict=True):
        assert outcome.status == "fail", (case.id, outcome)
        [difference] = outcome.diff
        real = next(c.error for c in mcp.cases if f"skewed-{c.id}" == case.id)
        assert (difference.expected, difference.actual) == (
            {"error": "another_code"},
            {"error": real},
        )
        assert outcome.actual["error"]["message"]


def test_a_wrong_code_is_still_a_failure_with_its_diff(
    pkce: VectorFile, monkeypatch: pytest.MonkeyPatch
) -> None:
    # miniatures.WrongErrorCode, served: no run_line, so adapters/serve.py takes the
    # extension and compares codes itself; its code is never the expected one.
    started = _served("miniatures:wrong_error_code", monkeypatch)
    try:
        assert started.adapter.expecting_errors is True
        errors = [c for c in pkce.cases if c.expects_error]
        outcomes = list(run_cases(started, pkce, errors))
        for case, outcome in zip(errors, outcomes, strict=True):
            assert outcome.status == "fail"
            [difference] = outcome.diff
            assert (difference.expected, difference.actual) == (
                {"error": case.error},
                {"error": "something_else"},
            )
            assert outcome.actual == {"error": {"code": "something_else", "message": "x"}}
    finally:
        started.adapter.stop()


def test_the_message_arrives_exactly(pkce: VectorFile, monkeypatch: pytest.MonkeyPatch) -> None:
    started = _served("miniatures:ErrorMessage", monkeypatch)
    try:
        assert started.adapter.expecting_errors is True
        errors = [c for c in pkce.cases if c.expects_error]
        requests = [_own_request(c, True) for c in errors]
        responses = started.adapter.run(requests)
        assert {type(r) for r in responses} == {ErrorAsExpected}
        outcomes = list(run_cases(started, pkce, errors))
        for case, outcome in zip(errors, outcomes, strict=True):
            assert outcome.status == "pass"
            assert outcome.actual == {
                "error": {"code": case.error, "message": ErrorMessage.MESSAGE}
            }
    finally:
        started.adapter.stop()


def test_a_message_that_is_not_i_json_fails(
    pkce: VectorFile, monkeypatch: pytest.MonkeyPatch
) -> None:
    started = _served("miniatures:lone_surrogate_message", monkeypatch)
    try:
        errors = [c for c in pkce.cases if c.expects_error]
        outcomes = list(run_cases(started, pkce, errors))
        assert {o.status for o in outcomes} == {"fail"}
        assert all("is not valid I-JSON" in (o.message or "") for o in outcomes)
    finally:
        started.adapter.stop()


def _answering(answer: str, *take: str) -> WorkerAdapter:
    command = [sys.executable, str(LINES)]
    if take:
        command += ["--take", ",".join(take)]
    return WorkerAdapter("lines", [*command, answer], expect=True)


@pytest.mark.parametrize(
    "answer",
    [
        '!"unterminated',
        "!not-json",
        '!"two" "strings"',
        '!"a"x',
        "!",
        '!{"code":"invalid_verifier"}',
        '!"bad escape \\x"',
    ],
)
def test_only_one_json_string_is_an_acknowledgement(answer: str, pkce: VectorFile) -> None:
    adapter = _answering(answer)
    started = start_platform("lines", adapter)
    try:
        assert adapter.expecting_errors is True
        errors = [c for c in pkce.cases if c.expects_error][:1]
        [outcome] = list(run_cases(started, pkce, errors))
        assert outcome.status == "error"
        assert "worker wrote invalid JSON" in (outcome.message or ""), outcome.message
    finally:
        adapter.stop()


def test_an_acknowledgement_counts_only_where_expect_error_went(pkce: VectorFile) -> None:
    # A worker that answers '!"..."' to everything: right for an expected error, a line
    # that is not JSON for a case that expects an output.
    adapter = _answering('!"fine"')
    started = start_platform("lines", adapter)
    try:
        outputs = [c for c in pkce.cases if not c.expects_error][:2]
        errors = [c for c in pkce.cases if c.expects_error][:2]
        cases = [outputs[0], errors[0], outputs[1], errors[1]]
        for case, outcome in zip(cases, run_cases(started, pkce, cases), strict=True):
            if case.expects_error:
                assert outcome.status == "pass"
                assert outcome.actual == {"error": {"code": case.error, "message": "fine"}}
            else:
                assert outcome.status == "error"
                assert "worker wrote invalid JSON" in (outcome.message or "")
    finally:
        adapter.stop()


def test_a_worker_that_took_only_expect_gets_no_expect_error(pkce: VectorFile) -> None:
    # Taken without "expect" it is not used either; either way '!' is then no answer.
    for take in (("expect",), ("expect-error",)):
        adapter = _answering('!"fine"', *take)
        started = start_platform("lines", adapter)
        try:
            assert adapter.expecting_errors is False
            errors = [c for c in pkce.cases if c.expects_error][:2]
            assert {o.status for o in run_cases(started, pkce, errors)} == {"error"}
        finally:
            adapter.stop()


def test_workers_the_harness_does_not_own_never_see_it(tmp_path: Path, pkce: VectorFile) -> None:
    log = tmp_path / "stdin"
    adapter = WorkerAdapter(
        "foreign", ["sh", "-c", f"tee {log} | {sys.executable} {FAKE} --reference"]
    )
    started = start_platform("foreign", adapter)
    try:
        errors = [c for c in pkce.cases if c.expects_error]
        outcomes = list(run_cases(started, pkce, errors))
        assert {o.status for o in outcomes} == {"pass"}
        assert adapter.expecting_errors is None
    finally:
        adapter.stop()
    sent = log.read_bytes()
    assert EXTENSIONS_LINE not in sent
    assert b'"expect_error"' not in sent


def test_rust_answers_with_the_message_only_for_its_own_code() -> None:
    line = encode_request({"id": "p", "domain": "oauth-pkce", "input": {"verifier": "short"}})
    whole = hanzo_conformance_rust.run_line(line[:-1])
    assert whole is not None
    error = json.loads(whole)["error"]

    def answer(code: Any) -> bytes | None:
        text = line[:-2] + b',"expect_error":' + json.dumps(code).encode() + b"}"
        return hanzo_conformance_rust.run_line(text)

    acknowledged = answer(error["code"])
    assert acknowledged is not None and acknowledged.startswith(b"!")
    assert error_acknowledged(acknowledged[:-1]) == error["message"]
    assert answer("another_code") == whole
    assert answer(7) is None  # not the harness's spelling: the slow path reports it
    # An output where an error was expected: the whole answer.
    ok = encode_request({"id": "p", "domain": "oauth-pkce", "input": {"verifier": "a" * 43}})
    text = ok[:-2] + b',"expect_error":"invalid_verifier"}'
    assert hanzo_conformance_rust.run_line(text) == hanzo_conformance_rust.run_line(ok[:-1])


def test_error_acknowledged_reads_exactly_one_json_string() -> None:
    assert error_acknowledged(b'!"a \\"b\\" \\u00e9"') == 'a "b" \u00e9'
    assert error_acknowledged('!"caf\u00e9"'.encode()) == "caf\u00e9"
    for line in (
        b"!",
        b'!"',
        b'!"a',
        b'!"a""',
        b'!"a" ',
        b"!'a'",
        b'!"\\q"',
        b'!"\xff"',
        b'!"a\nb"',
    ):
        assert error_acknowledged(line) is None, line
