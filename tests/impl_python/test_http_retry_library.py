"""impl_python.retry beyond its JSON layer: the RetryPolicy's attempt counter, the
keyword defaults, and parse_http_date against an independent formatter and the
standard library for every form."""

from __future__ import annotations

import email.utils
import random

import pytest

from impl_python.backoff import InvalidSample
from impl_python.retry import Response, RetryPolicy, TransportError, decide, parse_http_date
from strategies.http_retry import http_date

NOW_MS = 1_696_004_797_000


def test_the_policy_counts_retries_only() -> None:
    policy = RetryPolicy(method="GET", max_retries=2)
    first = policy.decide(Response(503), now_ms=NOW_MS, sample=0.5)
    assert (first.retry, first.delay_ms, policy.attempt) == (True, 250, 1)
    declined = policy.decide(Response(404), now_ms=NOW_MS, sample=0.5)
    assert (declined.retry, declined.reason, policy.attempt) == (False, "status_not_retryable", 1)
    second = policy.decide(TransportError("connect"), now_ms=NOW_MS, sample=0.5)
    assert (second.delay_ms, policy.attempt) == (500, 2)
    assert policy.decide(Response(503), now_ms=NOW_MS, sample=0.5).reason == "retries_exhausted"


def test_no_idempotency_key_by_default() -> None:
    unkeyed = decide(Response(500), method="POST", attempt=0, max_retries=2, now_ms=0, sample=0.5)
    assert unkeyed.reason == "not_idempotent"
    keyed = decide(
        Response(500), method="POST", attempt=0, max_retries=2, now_ms=0, sample=0.5,
        idempotency_key=True,
    )  # fmt: skip
    assert keyed.retry


def test_an_invalid_sample_is_backoff_timings_error() -> None:
    with pytest.raises(InvalidSample):
        decide(Response(503), method="GET", attempt=0, max_retries=2, now_ms=0, sample=1.0)


@pytest.mark.parametrize("form", [0, 1, 2])
def test_every_form_reads_back_the_second_it_was_written_for(form: int) -> None:
    rng = random.Random(form)
    for _ in range(2000):
        seconds = rng.randrange(0, 253402300800)  # 0001 is not reachable: 1970..9999
        now_ms = seconds * 1000 if form != 1 else seconds * 1000 + rng.randrange(-(10**11), 10**11)
        if form == 1:
            # RFC 850 writes two digits: read back only inside the 100-year window.
            now_year = 1970 + now_ms // 31_556_952_000
            year = 1970 + seconds // 31_556_952
            if not now_year - 48 <= year <= now_year + 49:
                continue
        assert parse_http_date(http_date(seconds, form), now_ms) == seconds * 1000


def test_imf_fixdate_agrees_with_the_standard_library() -> None:
    rng = random.Random(7)
    for _ in range(2000):
        seconds = rng.randrange(0, 4102444800)
        text = email.utils.formatdate(seconds, usegmt=True)
        assert parse_http_date(text, 0) == seconds * 1000, text
