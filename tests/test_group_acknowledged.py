"""A group of answer lines read at once, ``=`` and ``!"<message>"`` mixed, is taken in
one step (``adapters.worker._group_acknowledged``) only when each line is the
acknowledgement its request's turn allows; any other line in the group is read and
judged as it would be alone."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from adapters.protocol import ErrorAsExpected
from adapters.worker import WorkerAdapter
from runners.run.batches import run_cases, start_platform
from runners.vectors.load import VectorFile, load_vector_file

ROOT = Path(__file__).resolve().parent.parent
GROUP = Path(__file__).resolve().parent / "fake_workers" / "group_answerer.py"


@pytest.fixture(scope="module")
def pkce() -> VectorFile:
    return load_vector_file(ROOT / "vectors" / "oauth-pkce.json")


def _run(answer: str, pkce: VectorFile) -> tuple[WorkerAdapter, Any]:
    adapter = WorkerAdapter("group", [sys.executable, str(GROUP), answer], expect=True)
    started = start_platform("group", adapter)
    assert started.failure is None, started.failure
    try:
        return adapter, run_cases(started, pkce, pkce.cases)
    finally:
        adapter.stop()


def test_acknowledged_errors_amid_outputs_pass_in_one_group(pkce: VectorFile) -> None:
    assert sum(c.expects_error for c in pkce.cases) >= 2  # groups mix both kinds
    adapter, outcomes = _run('!"fine"', pkce)
    assert adapter.expecting_errors is True
    assert {o.status for o in outcomes} == {"pass"}
    acknowledged = [i for i in outcomes.items if type(i) is ErrorAsExpected]
    assert len(acknowledged) == sum(c.expects_error for c in pkce.cases)
    for case, outcome in zip(pkce.cases, outcomes, strict=True):
        if case.expects_error:
            assert outcome.actual == {"error": {"code": case.error, "message": "fine"}}


def test_a_whole_error_with_another_code_in_an_error_turn_fails(pkce: VectorFile) -> None:
    # Not an acknowledgement (no "!"), though every other line of its group is "=":
    # the group is read line by line and this answer judged, as a failure.
    _, outcomes = _run('{"id":{id},"error":{"code":"other_code","message":"m"}}', pkce)
    for case, outcome in zip(pkce.cases, outcomes, strict=True):
        if case.expects_error:
            assert outcome.status == "fail", case.id
            assert outcome.actual == {"error": {"code": "other_code", "message": "m"}}
        else:
            assert outcome.status == "pass", case.id


def test_a_whole_error_with_the_right_code_is_judged_a_pass(pkce: VectorFile) -> None:
    codes = {c.error for c in pkce.cases if c.expects_error}
    assert len(codes) == 1
    [code] = codes
    _, outcomes = _run(f'{{"id":{{id}},"error":{{"code":"{code}","message":"m"}}}}', pkce)
    assert {o.status for o in outcomes} == {"pass"}
    assert not any(type(i) is ErrorAsExpected for i in outcomes.items)
