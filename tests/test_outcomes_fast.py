"""Outcome's hand-written __init__ (runners/_outcomes.py) must match its declared fields."""

from __future__ import annotations

import dataclasses
import inspect

import pytest

from runners._outcomes import Outcome


def test_init_takes_the_declared_fields_in_order_with_their_defaults() -> None:
    declared = dataclasses.fields(Outcome)
    params = list(inspect.signature(Outcome.__init__).parameters.values())[1:]
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
