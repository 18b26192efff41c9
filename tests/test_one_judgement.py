"""``run`` and ``generate`` judge one answer alike: the same outcome (it passes, or it does
not) and the same causes (the (pointer pattern, kind) cluster keys a ledger records and
``generate --expectations`` looks past).

``run`` judges an answer against the vector (``runners.judge.outcomes.judge``, its causes
read from the result record by ``runners.judge.keys.result_keys``); ``generate`` judges
it against the reference's answer (``Search._judge``, its causes by
``runners.generate.known.answer_causes``). With the reference answering what the
vector expects, the two must agree on every answer.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from adapters.python import PythonAdapter
from runners.generate.known import answer_causes
from runners.generate.search import Search, _Keys
from runners.judge.keys import result_keys
from runners.judge.outcomes import judge
from runners.run.batches import start_platform
from runners.vectors.load import Case, load_vector_file

ROOT = Path(__file__).resolve().parent.parent

FRAME = {"event": None, "data": "hello", "id": None, "retry": None}
# Answers to sse-frames' single-data-frame, which expects {"frames": [FRAME]}.
SSE_ANSWERS: dict[str, dict[str, Any]] = {
    "exact": {"output": {"frames": [FRAME]}},
    "keys in another order": {"output": {"frames": [dict(reversed(list(FRAME.items())))]}},
    "another data": {"output": {"frames": [{**FRAME, "data": "bye"}]}},
    "a number for null": {"output": {"frames": [{**FRAME, "retry": 0}]}},
    "a boolean for null": {"output": {"frames": [{**FRAME, "id": False}]}},
    "a missing member": {"output": {"frames": [{k: v for k, v in FRAME.items() if k != "id"}]}},
    "an extra member": {"output": {"frames": [{**FRAME, "comment": "x"}]}},
    "a frame too many": {"output": {"frames": [FRAME, FRAME]}},
    "no frame": {"output": {"frames": []}},
    "not an object": {"output": ["frames"]},
    "an error for an output": {"error": {"code": "invalid_input", "message": "no"}},
    "a crash": {"crash": {"message": "UnicodeDecodeError: bad byte", "detail": ""}},
    "a timeout": {"crash": {"message": "timeout after 10 s", "detail": ""}},
}
# Answers to oauth-pkce's empty, which expects the error invalid_verifier.
PKCE_ANSWERS: dict[str, dict[str, Any]] = {
    "the error": {"error": {"code": "invalid_verifier", "message": "too short"}},
    "the error, another message": {"error": {"code": "invalid_verifier", "message": "x"}},
    "another error": {"error": {"code": "invalid_method", "message": "no"}},
    "an output for an error": {"output": {"challenge": "A" * 43}},
    "a crash": {"crash": {"message": "ValueError: no", "detail": ""}},
}


def _case(domain: str, case_id: str) -> tuple[Case, list[Any]]:
    vf = load_vector_file(ROOT / "vectors" / f"{domain}.json")
    (case,) = [c for c in vf.cases if c.id == case_id]
    return case, list(vf.comparison)


def _reference_answer(case: Case) -> dict[str, Any]:
    """What a reference that agrees with the vector answers."""
    if case.expects_error:
        return {"id": "r", "error": {"code": case.error, "message": "the reference's"}}
    return {"id": "r", "output": case.expected}


def _both_judgements(
    domain: str, case_id: str, answer: dict[str, Any]
) -> tuple[tuple[bool, set[tuple[str, str]]], tuple[bool, set[tuple[str, str]]]]:
    case, rules = _case(domain, case_id)
    response = {"id": case.id, **answer}
    outcome = judge(case, "other", [(None, response)], rules)
    by_run = (outcome.status == "pass", result_keys(outcome.to_json()))

    search = Search(domain, start_platform("python", PythonAdapter()), [], rules=rules)
    expected = _reference_answer(case)
    why = search._judge(case.input, expected, response, _Keys(expected.get("output")))
    causes = answer_causes(domain, case.input, expected, response, rules, align=True)
    by_generate = (why is None, causes)
    return by_run, by_generate


@pytest.mark.parametrize("name", sorted(SSE_ANSWERS))
def test_run_and_generate_judge_an_output_case_alike(name: str) -> None:
    by_run, by_generate = _both_judgements("sse-frames", "single-data-frame", SSE_ANSWERS[name])
    assert by_run == by_generate


@pytest.mark.parametrize("name", sorted(PKCE_ANSWERS))
def test_run_and_generate_judge_an_error_case_alike(name: str) -> None:
    by_run, by_generate = _both_judgements("oauth-pkce", "empty", PKCE_ANSWERS[name])
    assert by_run == by_generate


def test_the_exact_answer_passes_and_a_wrong_one_has_causes() -> None:
    """The comparison above is not vacuous: both pass, or both fail with causes."""
    assert _both_judgements("sse-frames", "single-data-frame", SSE_ANSWERS["exact"]) == (
        (True, set()),
        (True, set()),
    )
    (passed, causes), _ = _both_judgements(
        "sse-frames", "single-data-frame", SSE_ANSWERS["another data"]
    )
    assert not passed
    assert causes == {("/frames/*/data", "other string")}
