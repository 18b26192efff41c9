"""The hand-written __init__ of Outcome and Case must match their declared fields;
the fast judging paths must agree with the type-strict ones."""

from __future__ import annotations

import dataclasses
import inspect

import pytest

from runners.judge.outcomes import Judgement, Outcome
from runners.vectors.load import Case


@pytest.mark.parametrize("cls", [Outcome, Case])
def test_init_takes_the_declared_fields_in_order_with_their_defaults(cls: type) -> None:
    declared = dataclasses.fields(cls)
    params = list(inspect.signature(cls.__init__).parameters.values())[1:]
    assert [p.name for p in params] == [f.name for f in declared]
    for param, f in zip(params, declared, strict=True):
        want = inspect.Parameter.empty if f.default is dataclasses.MISSING else f.default
        assert param.default is want, f.name


def test_outcome_stays_frozen_hashable_and_replaceable() -> None:
    outcome = Outcome("d", "c", "h", "python", "pass", actual=1)
    assert vars(outcome) == {f.name: getattr(outcome, f.name) for f in dataclasses.fields(Outcome)}
    with pytest.raises(dataclasses.FrozenInstanceError):
        outcome.status = "fail"  # type: ignore[misc]
    failed = dataclasses.replace(outcome, status="fail", message="m")
    assert (failed.status, failed.message, failed.actual) == ("fail", "m", 1)
    assert outcome == Outcome("d", "c", "h", "python", "pass", actual=1)
    assert hash(outcome) == hash(Outcome("d", "c", "h", "python", "pass", actual=1))
    assert outcome != failed


def _case(expected: object) -> Case:
    return Case("oauth-pkce", "x", "", (), {}, (), {"i": 1}, expected=expected)


@pytest.mark.parametrize(
    ("expected", "typeless"),
    [
        ({"a": ["x", None, {"b": "c"}]}, True),
        ("s", True),
        (None, True),
        ({"a": ["x", 1]}, False),
        ({"a": {"b": True}}, False),
        ([0.5], False),
    ],
)
def test_typeless_means_no_number_or_boolean_anywhere(expected: object, typeless: bool) -> None:
    assert _case(expected).expected_is_typeless is typeless


@pytest.mark.parametrize(
    ("expected", "output", "status"),
    [
        ({"a": ["x", None]}, {"a": ["x", None]}, "pass"),  # typeless: Python's == decides
        ({"a": "1"}, {"a": 1}, "fail"),
        ({"a": None}, {"a": False}, "fail"),
        ({"a": 1}, {"a": True}, "fail"),  # numbers: the type-strict walk
        ({"a": 1}, {"a": 1.0}, "pass"),
    ],
)
def test_exact_outputs_pass_and_near_misses_of_another_type_fail(
    expected: object, output: object, status: str
) -> None:
    judgement = Judgement(_case(expected), "python", [])
    judgement.add(None, {"id": "x", "output": output})
    assert judgement.outcome().status == status


def test_case_stays_frozen_and_its_cached_values_work() -> None:
    case = _case({"a": "b"})
    with pytest.raises(dataclasses.FrozenInstanceError):
        case.id = "y"  # type: ignore[misc]
    assert case.input_json == '{"i":1}'
    assert case.content_hash() == dataclasses.replace(case, path=None).content_hash()
    assert case == _case({"a": "b"})
    assert case != _case({"a": "c"})
