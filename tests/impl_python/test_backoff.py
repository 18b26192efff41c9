"""Library-level checks of impl_python.backoff that the JSON vectors cannot express."""

from __future__ import annotations

import math

import pytest

from impl_python.backoff import MAX_SAFE_MS, Backoff, BackoffError, SampleSequence, cap_ms


def test_caps_are_exact_and_never_overflow() -> None:
    assert cap_ms(1, MAX_SAFE_MS, 52) == 2**52
    for attempt in (53, 60, 63, 64, 2000, 10**12):
        assert cap_ms(1, MAX_SAFE_MS, attempt) == MAX_SAFE_MS
        assert cap_ms(0, MAX_SAFE_MS, attempt) == 0
    for k in range(80):  # the short cut agrees with unbounded arithmetic
        assert cap_ms(3, MAX_SAFE_MS, k) == min(MAX_SAFE_MS, 3 * 2**k)


@pytest.mark.parametrize("bad", [1.0, -0.1, math.nan, math.inf, True, "0.5", None])
def test_invalid_samples_raise_without_advancing(bad: object) -> None:
    backoff = Backoff(100, 1000, random=lambda: bad)  # type: ignore[arg-type, return-value]
    with pytest.raises(BackoffError) as info:
        backoff.next_delay()
    assert getattr(info.value, "code", None) == "invalid_sample"
    assert backoff.attempt == 0


def test_default_jitter_is_full_and_bounded_by_caps() -> None:
    backoff = Backoff(1, MAX_SAFE_MS)
    assert backoff.jitter == "full"
    for k in range(100):
        delay = backoff.next_delay()
        assert isinstance(delay, int)
        assert 0 <= delay <= cap_ms(1, MAX_SAFE_MS, k)


@pytest.mark.parametrize(
    ("base", "maximum", "jitter", "code"),
    [
        (True, 10, "none", "invalid_base_ms"),
        (1.0, 10, "none", "invalid_base_ms"),
        (2**53, 2**53, "none", "invalid_base_ms"),
        (0, 2**53, "x", "invalid_max_ms"),
        (2, 1, "x", "invalid_jitter"),
        (1, 2, "Full", "invalid_jitter"),
    ],
)
def test_parameters_are_checked_in_order(
    base: object, maximum: object, jitter: str, code: str
) -> None:
    with pytest.raises(BackoffError) as info:
        Backoff(base, maximum, jitter=jitter)  # type: ignore[arg-type]
    assert getattr(info.value, "code", None) == code


def test_reset_does_not_rewind_samples() -> None:
    backoff = Backoff(100, 1000, random=SampleSequence([0.5, 0.5]))
    assert backoff.next_delay() == 50
    backoff.reset()
    assert backoff.next_delay() == 50
    with pytest.raises(BackoffError) as info:
        backoff.next_delay()
    assert getattr(info.value, "code", None) == "samples_exhausted"


def test_base_above_max_is_clamped_not_rejected() -> None:
    clamped = Backoff(2000, 1000, jitter="none")
    assert [clamped.next_delay() for _ in range(3)] == [1000, 1000, 1000]
    zero = Backoff(5, 0, jitter="full", random=SampleSequence([0.5, 0.99]))
    assert [zero.next_delay(), zero.next_delay()] == [0, 0]
