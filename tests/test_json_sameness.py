"""One JSON sameness: the judge, triage and generate agree on what is the same JSON value.

``1`` and ``1.0`` are one JSON number; the keys' order of an object is not part of its
value; a boolean is never a number. The judge (``runners.judge.outcomes.judge``), triage
(``runners.gate.triage.triage``) and ``generate``'s comparison of two platforms' outputs all
decide it by ``adapters._json.same_json``; these tests hold them to one answer.
"""

from __future__ import annotations

from typing import Any

import pytest

from adapters._json import canonical_text, compact_text, same_json
from runners.gate.triage import triage
from runners.judge.outcomes import judge
from runners.vectors.load import Case

# (a, b, the same JSON value?)
PAIRS: list[tuple[Any, Any, bool]] = [
    (1, 1.0, True),
    ({"n": 1}, {"n": 1.0}, True),
    ([1, 2.0], [1.0, 2], True),
    ({"a": 1, "b": 2}, {"b": 2, "a": 1}, True),
    ({"a": {"x": 1, "y": [1]}, "b": 0}, {"b": 0.0, "a": {"y": [1.0], "x": 1}}, True),
    (2**64, 18446744073709552000, True),  # one double beyond I-JSON's exact range
    (1, True, False),
    (0, False, False),
    ({"a": 1}, {"a": 1, "b": None}, False),
    ([1, 2], [2, 1], False),
    ("1", 1, False),
    (None, 0, False),
]


def _case(expected: Any) -> Case:
    return Case(
        domain="json-sameness",  # no output schema: only sameness is judged
        id="c",
        description="",
        tags=(),
        source={"kind": "derived", "ref": "test"},
        clauses=(),
        input={},
        expected=expected,
    )


def _judged_same(expected: Any, actual: Any) -> bool:
    outcome = judge(_case(expected), "p", [(None, {"id": "c", "output": actual})], [])
    return outcome.status == "pass"


def _triage_finds_agreement(a: Any, b: Any) -> bool:
    """Whether triage counts rust answering ``a`` and js answering ``b`` as one answer:
    both fail a vector the reference passes, so agreement makes the vector the suspect."""
    results = [
        {"domain": "d", "case": "c", "platform": "python", "status": "pass", "actual": "x"},
        {"domain": "d", "case": "c", "platform": "rust", "status": "fail", "actual": a},
        {"domain": "d", "case": "c", "platform": "js", "status": "fail", "actual": b},
    ]
    return bool(triage(results))


@pytest.mark.parametrize(("a", "b", "same"), PAIRS)
def test_the_judge_and_triage_agree_on_sameness(a: Any, b: Any, same: bool) -> None:
    assert same_json(a, b) is same
    assert same_json(b, a) is same
    assert _judged_same(a, b) is same
    assert _judged_same(b, a) is same
    assert _triage_finds_agreement(a, b) is same


def test_two_platforms_answering_1_0_where_the_reference_says_1_make_a_suspect() -> None:
    """The issue's case: the vector expects 2; the reference, rust and js all answer one
    (as 1, 1.0 and 1): three platforms agreeing against the vector make it the suspect."""
    results = [
        {"domain": "d", "case": "c", "platform": "python", "status": "fail", "actual": 1},
        {"domain": "d", "case": "c", "platform": "rust", "status": "fail", "actual": 1.0},
        {"domain": "d", "case": "c", "platform": "js", "status": "fail", "actual": 1},
    ]
    [suspect] = triage(results)
    assert suspect["suspect"] == "vector"


@pytest.mark.parametrize(("a", "b", "same"), PAIRS)
def test_equal_canonical_texts_are_the_same_value(a: Any, b: Any, same: bool) -> None:
    """``generate`` takes equal canonical texts for the same output without comparing:
    never for two values the judge tells apart."""
    if canonical_text(a) == canonical_text(b):
        assert same


def test_the_compact_text_is_what_the_wire_carries() -> None:
    value = {"b": [1, 1.5, "é", None, True], "a": {}}
    assert compact_text(value) == '{"b":[1,1.5,"é",null,true],"a":{}}'
    assert canonical_text(value) == '{"a":{},"b":[1,1.5,"é",null,true]}'
    with pytest.raises(ValueError):
        compact_text(float("nan"))
