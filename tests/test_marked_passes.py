"""Passes made from acknowledgements without an object per case (issue 13).

``WorkerAdapter.run_expected`` answers ``None`` where the worker acknowledged a request's
expected output (a run of ``=`` lines is taken as a block), ``run_cases`` keeps such a
pass as ``None`` in its ``Outcomes``, and the CLI's ``encode_chunk`` writes its results
line from the case. These tests hold each step to what the slow way says: an ``=`` only
counts for a request that carried ``expect``, a marked pass is the ``Outcome`` the
harness made before, and the results lines and records are the same bytes.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path

import pytest

from adapters.messages import encode_request
from adapters.protocol import ErrorAsExpected, OutputAsExpected, Request
from adapters.python import PythonAdapter
from adapters.served import served
from adapters.worker import WorkerAdapter
from runners.judge.outcomes import Item, Outcome, Outcomes, passed
from runners.run.batches import _own_request, run_cases, start_platform
from runners.run.stream import encode_chunk
from runners.vectors.load import Case, VectorFile, load_vector_file

ROOT = Path(__file__).resolve().parent.parent
ACKER = Path(__file__).resolve().parent / "fake_workers" / "acknowledger.py"


@pytest.fixture(scope="module")
def pkce() -> VectorFile:
    return load_vector_file(ROOT / "vectors" / "oauth-pkce.json")


def _plain(case: Case) -> Request:
    return {"id": f"{case.domain}/{case.id}#0", "domain": case.domain, "input": case.input}


def _acker(*flags: str) -> WorkerAdapter:
    adapter = WorkerAdapter("ack", [sys.executable, str(ACKER), *flags], expect=True)
    adapter.start()
    assert adapter.expecting is True
    return adapter


@pytest.mark.parametrize("together", [False, True])
def test_an_acknowledgement_counts_only_for_a_request_that_carried_expect(
    pkce: VectorFile, together: bool
) -> None:
    # The acknowledger answers "=" to every run line; one request in the middle says
    # nothing of what it expects, so its "=" is no answer at all.
    cases = [c for c in pkce.cases if not c.expects_error][:6]
    requests = [_own_request(c, True) for c in cases]
    requests[3] = _plain(cases[3])
    adapter = _acker(*(["--together"] if together else []))
    try:
        marked = adapter.run_expected(requests)
        assert marked[:3] == [None] * 3
        assert marked[4:] == [None] * 2
        crashed = marked[3]
        assert crashed is not None
        assert "invalid JSON" in crashed["crash"]["message"]  # type: ignore[typeddict-item]
        # run() hands the same answers over as responses: the expected output, by type.
        answers = adapter.run(requests)
        for case, answer in zip(cases, answers, strict=True):
            if case is cases[3]:
                assert "crash" in answer
            else:
                assert type(answer) is OutputAsExpected
                assert answer["output"] is case.expected  # type: ignore[typeddict-item]
        # A whole batch that carried expect is acknowledged as a block.
        whole = [_own_request(c, True) for c in cases]
        assert adapter.run_expected(whole) == [None] * len(whole)
    finally:
        adapter.stop()


def test_acknowledgements_of_a_file_with_comparison_rules_are_no_answers(pkce: VectorFile) -> None:
    # Where a comparison rule could pass other outputs, requests carry no expect: the
    # acknowledger's "=" is then an invalid line, never a pass.
    rule = {"kind": "ignore", "path": "/challenge"}
    ruled = dataclasses.replace(pkce, comparison=(rule,))
    cases = [c for c in ruled.cases if not c.expects_error][:2]
    adapter = _acker("--together")
    try:
        outcomes = run_cases(start_platform("ack", adapter), ruled, cases)
    finally:
        adapter.stop()
    assert [o.status for o in outcomes] == ["error", "error"]
    assert all("invalid JSON" in (o.message or "") for o in outcomes)


def test_a_marked_pass_is_the_outcome_made_before(pkce: VectorFile) -> None:
    cases = pkce.cases[:4]
    failing = Outcome(cases[2].domain, cases[2].id, cases[2].content_hash(), "p", "fail", {"x": 1})
    error = {"code": "invalid_verifier", "message": "too short"}
    outcomes = Outcomes(cases, "p", [None, None, failing, error])
    made = [passed(cases[0], "p", cases[0].expected), passed(cases[1], "p", cases[1].expected)]
    assert len(outcomes) == 4
    assert list(outcomes) == [*made, failing, passed(cases[3], "p", {"error": error})]
    assert outcomes[0] == made[0]
    assert outcomes[2] is failing
    assert outcomes[:2] == made
    assert outcomes == list(outcomes)
    assert outcomes[1].to_json() == {
        "domain": "oauth-pkce",
        "case": cases[1].id,
        "case_hash": cases[1].content_hash(),
        "platform": "p",
        "status": "pass",
        "actual": cases[1].expected,
        "diff": [],
    }


def _mixed(cases: tuple[Case, ...], platform: str) -> Outcomes:
    """Marked passes, expected errors passed (held as their body, or made), failures,
    in the order of ``cases``."""
    items: list[Item] = []
    for index, case in enumerate(cases):
        if case.expects_error:
            body = {"code": case.error, "message": f"m\u00e9 {index}"}
            items.append(body if index % 2 else passed(case, platform, {"error": body}))
        elif index % 5 == 3:
            items.append(
                Outcome(case.domain, case.id, case.content_hash(), platform, "fail", {"y": 2})
            )
        else:
            items.append(None)
    return Outcomes(cases, platform, items)


@pytest.mark.parametrize("lines_wanted", [True, False])
def test_encode_chunk_writes_marked_passes_as_the_outcomes_they_stand_for(
    pkce: VectorFile, lines_wanted: bool
) -> None:
    cases = pkce.cases[:40]
    first, second = _mixed(cases, "one"), Outcomes(cases, "two", [None] * len(cases))
    named = {cases[1].id, cases[7].id}

    def names(domain: str, case: str) -> bool:
        return case in named

    fast = encode_chunk(cases, [first, second], names, lines_wanted)
    slow = encode_chunk(cases, [list(first), list(second)], names, lines_wanted)
    assert fast == slow
    assert fast.platforms[1][1] > 0  # passes written from the cases
    assert sum(1 for i in first.items if type(i) is dict) > 1  # errors held as bodies
    assert fast.failed == sum(1 for o in first if o.status == "fail")


def test_served_results_are_the_bytes_the_in_process_judgement_writes(pkce: VectorFile) -> None:
    # The served python child acknowledges (marks); in process every answer is judged
    # (no marks): the chunk each makes, results lines and all, is the same.
    adapter = served("python", "python")
    try:
        marked = run_cases(start_platform("python", adapter), pkce, pkce.cases)
    finally:
        adapter.stop()
    assert None in marked.items  # the fast paths were taken
    # Expected errors acknowledged (expect-error), held as the worker's answers.
    assert any(type(i) is ErrorAsExpected for i in marked.items)
    judged = run_cases(start_platform("python", PythonAdapter()), pkce, pkce.cases)
    assert None not in judged.items  # in process, every output is judged

    def never(domain: str, case: str) -> bool:
        return False

    assert encode_chunk(pkce.cases, [marked], never, True) == encode_chunk(
        pkce.cases, [judged], never, True
    )


def _line(case: Case, expect: str | None) -> bytes:
    """The case's run line as the harness spells it, with ``expect`` if given."""
    plain = encode_request(_plain(case)).rstrip(b"\n")
    if expect is None:
        return plain
    return plain[:-1] + b',"expect":' + json.dumps(expect, ensure_ascii=False).encode() + b"}"


def test_the_python_child_acknowledges_only_its_output_text(pkce: VectorFile) -> None:
    adapter = PythonAdapter()
    adapter.start()
    case = next(c for c in pkce.cases if not c.expects_error)
    exact = case.expected_json
    assert exact is not None
    plain = adapter.run_line(_line(case, None))
    assert plain is not None and plain != b"=\n"
    assert adapter.run_line(_line(case, exact)) == b"=\n"
    # One character off, the same length: not acknowledged; the whole answer instead.
    off = exact[:-3] + ("x" if exact[-3] != "x" else "y") + exact[-2:]
    assert adapter.run_line(_line(case, off)) == plain
    # Longer, shorter: not acknowledged.
    assert adapter.run_line(_line(case, exact + " ")) == plain
    assert adapter.run_line(_line(case, exact[:-1])) == plain
    # The same text spelled with an escape the harness never writes: not taken by the
    # spelled comparison (a valid answer either way: the harness judges it).
    escaped = _line(case, exact).replace(b'"challenge', b'"\\u0063hallenge', 1)
    assert escaped != _line(case, exact)
    assert adapter.run_line(escaped) == plain
    # Anything after the expect, or an expect that is not a string: the ordinary path.
    line = _line(case, exact)
    assert adapter.run_line(line[:-1] + b',"more":1}') is None
    assert adapter.run_line(_line(case, None)[:-1] + b',"expect":1}') is None
