"""When an HTTP client retries a failed request, and how long it waits first.

HIP-301 sections 2 (``ApiClient``) and 16 (``hanzo-backoff``); contract:
docs/domains/http-retry.md. The default backoff is ``impl_python.backoff``'s.

>>> decide(Response(429, [("Retry-After", "20")]), method="POST", attempt=0,
...        max_retries=2, now_ms=0, sample=0.5)
Decision(retry=True, delay_ms=20000, reason='retryable_status', delay_source='retry-after')
>>> decide(Response(503, []), method="GET", attempt=1, max_retries=2, now_ms=0, sample=0.5)
Decision(retry=True, delay_ms=500, reason='retryable_status', delay_source='backoff')
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from impl_python.backoff import Backoff, SampleSequence, cap_ms

__all__ = [
    "BASE_MS",
    "IDEMPOTENT_METHODS",
    "MAX_MS",
    "RETRY_AFTER_CAP_MS",
    "Decision",
    "Failure",
    "Response",
    "RetryPolicy",
    "TransportError",
    "decide",
    "parse_http_date",
]

BASE_MS = 500
MAX_MS = 8000
RETRY_AFTER_CAP_MS = 60_000

IDEMPOTENT_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"})
# Failures showing that the request was not applied (RETRY-5).
_NOT_APPLIED_STATUSES = frozenset({408, 429})
# 5xx statuses that say the server cannot do the request at all (RETRY-4).
_PERMANENT_5XX = frozenset({501, 505})

Reason = Literal[
    "retries_exhausted",
    "server_declined",
    "server_requested",
    "not_an_error",
    "status_not_retryable",
    "not_idempotent",
    "retryable_status",
    "retryable_error",
    "retry_after_exceeds_cap",
]
DelaySource = Literal["retry-after-ms", "retry-after", "backoff"]


@dataclass(frozen=True)
class Response:
    """A response: its status and its header fields as received, in order."""

    status: int
    headers: Sequence[tuple[str, str]] = ()


@dataclass(frozen=True)
class TransportError:
    """No response: ``"connect"`` (never sent) or ``"timeout"`` (may have been sent)."""

    kind: Literal["connect", "timeout"]


Failure = Response | TransportError


@dataclass(frozen=True)
class Decision:
    retry: bool
    delay_ms: int | None
    reason: Reason
    delay_source: DelaySource | None


def _no(reason: Reason) -> Decision:
    return Decision(False, None, reason, None)


_OWS = " \t"


def _field(headers: Iterable[tuple[str, str]], name: str) -> str | None:
    """RETRY-9: the trimmed value of a singleton field, None if absent or conflicting."""
    # ASCII case folding only: str.lower() would fold e.g. the Kelvin sign to "k".
    values = {value.strip(_OWS) for key, value in headers if key.isascii() and key.lower() == name}
    return values.pop() if len(values) == 1 else None


def _is_digits(text: str) -> bool:
    # str.isdigit() accepts other scripts' digits; the grammar's DIGIT is ASCII.
    return text != "" and all("0" <= c <= "9" for c in text)


# Digit strings longer than this are above every cap; int() is not asked to read
# them (it refuses past 4300 digits).
_LONGEST_READ = 18
_ABOVE_EVERY_CAP = 10**_LONGEST_READ


def _whole_number(digits: str) -> int:
    significant = digits.lstrip("0")
    return int(significant or "0") if len(significant) <= _LONGEST_READ else _ABOVE_EVERY_CAP


def _retry_after_ms(value: str) -> int | None:
    """RETRY-7: ``1*DIGIT ["." 1*DIGIT]``, rounded up to a whole millisecond."""
    whole, dot, fraction = value.partition(".")
    if not _is_digits(whole) or (dot and not _is_digits(fraction)):
        return None
    return _whole_number(whole) + (1 if fraction.strip("0") else 0)


_DAY_NAMES = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_LONG_DAY_NAMES = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def _is_leap(year: int) -> bool:
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def _days_in_month(year: int, month: int) -> int:
    if month == 2:
        return 29 if _is_leap(year) else 28
    return 30 if month in (4, 6, 9, 11) else 31


def _days_from_civil(year: int, month: int, day: int) -> int:
    """Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm)."""
    y = year - (month <= 2)
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def _civil(ms: int) -> tuple[int, int, int, int]:
    """(year, month, day, milliseconds of the day) of a timestamp, UTC (inverse of
    _days_from_civil)."""
    days, ms_of_day = divmod(ms, 86_400_000)
    z = days + 719468
    era = z // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    day = doy - (153 * mp + 2) // 5 + 1
    month = mp + 3 if mp < 10 else mp - 9
    return yoe + era * 400 + (month <= 2), month, day, ms_of_day


def _two_digits(text: str) -> int | None:
    return int(text) if len(text) == 2 and _is_digits(text) else None


def _time_of_day(text: str) -> int | None:
    """``hh:mm:ss`` as seconds of the day, or None (RETRY-8)."""
    parts = text.split(":")
    if len(parts) != 3:
        return None
    hour, minute, second = (_two_digits(p) for p in parts)
    if hour is None or minute is None or second is None:
        return None
    if hour > 23 or minute > 59 or second > 60:
        return None
    return hour * 3600 + minute * 60 + second


def _timestamp(year: int, month_name: str, day: int, clock: str) -> int | None:
    if month_name not in _MONTHS:
        return None
    month = _MONTHS.index(month_name) + 1
    seconds = _time_of_day(clock)
    if seconds is None or not 1 <= day <= _days_in_month(year, month):
        return None
    return (_days_from_civil(year, month, day) * 86400 + seconds) * 1000


def _imf_fixdate(value: str) -> int | None:
    """``Sun, 06 Nov 1994 08:49:37 GMT``."""
    parts = value[5:].split(" ")
    if value[3:5] != ", " or len(parts) != 5 or parts[4] != "GMT":
        return None
    day, year = _two_digits(parts[0]), parts[2]
    if day is None or len(year) != 4 or not _is_digits(year):
        return None
    return _timestamp(int(year), parts[1], day, parts[3])


def _rfc850_date(rest: str, now_ms: int) -> int | None:
    """``06-Nov-94 08:49:37 GMT``, after ``Sunday, ``."""
    parts = rest.split(" ")
    if len(parts) != 3 or parts[2] != "GMT":
        return None
    date = parts[0].split("-")
    if len(date) != 3:
        return None
    day, yy = _two_digits(date[0]), _two_digits(date[2])
    if day is None or yy is None:
        return None
    # RFC 9110 5.6.7: the year ending in yy that is not more than 50 years in the future.
    # In [now_year - 49, now_year + 50], only now_year + 50 can be more than 50 years
    # ahead: when the date is later in its year than now is in now's year.
    now_year, now_month, now_day, now_ms_of_day = _civil(now_ms)
    year = now_year - 49 + (yy - (now_year - 49)) % 100
    stamp = _timestamp(year, date[1], day, parts[1])
    if stamp is not None and year == now_year + 50:
        _, month, _, ms_of_day = _civil(stamp)
        if (month, day, ms_of_day) > (now_month, now_day, now_ms_of_day):
            stamp = _timestamp(year - 100, date[1], day, parts[1])
    return stamp


def _asctime_date(value: str) -> int | None:
    """``Sun Nov  6 08:49:37 1994`` or ``Sun Nov 16 08:49:37 1994``, read as UTC."""
    if len(value) != 24 or any(value[i] != " " for i in (3, 7, 10, 19)):
        return None
    day_text, year = value[8:10], value[20:24]
    if day_text[0] == " ":
        day = int(day_text[1]) if _is_digits(day_text[1]) else None
    else:
        day = _two_digits(day_text)
    if day is None or not _is_digits(year):
        return None
    return _timestamp(int(year), value[4:7], day, value[11:19])


def parse_http_date(value: str, now_ms: int) -> int | None:
    """RETRY-8: an HTTP-date in any of its three forms as milliseconds since the epoch
    (``now_ms`` places RFC 850's two-digit year); None if it is not one."""
    if value[:3] in _DAY_NAMES and value[3:4] == ",":
        return _imf_fixdate(value)
    name, comma, rest = value.partition(", ")
    if comma and name in _LONG_DAY_NAMES:
        return _rfc850_date(rest, now_ms)
    if value[:3] in _DAY_NAMES:
        return _asctime_date(value)
    return None


def _server_delay(
    headers: Sequence[tuple[str, str]], now_ms: int
) -> tuple[int, DelaySource] | None:
    """RETRY-6/7: the delay the server directed, from the first valid field."""
    ms = _field(headers, "retry-after-ms")
    if ms is not None:
        delay = _retry_after_ms(ms)
        if delay is not None:
            return delay, "retry-after-ms"
    value = _field(headers, "retry-after")
    if value is None:
        return None
    if _is_digits(value):
        return _whole_number(value) * 1000, "retry-after"
    date_ms = parse_http_date(value, now_ms)
    if date_ms is None:
        return None
    return max(0, date_ms - now_ms), "retry-after"


def _eligibility(failure: Failure, method: str, idempotency_key: bool) -> Reason:
    """RETRY-3, 4 and 5: why the failure is, or is not, eligible for a retry."""
    safe = idempotency_key or method in IDEMPOTENT_METHODS
    if isinstance(failure, TransportError):
        return "retryable_error" if safe or failure.kind == "connect" else "not_idempotent"
    should_retry = _field(failure.headers, "x-should-retry")
    if should_retry == "true":
        return "server_requested"
    status = failure.status
    if not (status in (408, 409, 429) or (500 <= status <= 599 and status not in _PERMANENT_5XX)):
        return "status_not_retryable"
    if safe or status in _NOT_APPLIED_STATUSES:
        return "retryable_status"
    return "not_idempotent"


def decide(
    failure: Failure,
    *,
    method: str,
    attempt: int,
    max_retries: int,
    now_ms: int,
    sample: float,
    idempotency_key: bool = False,
) -> Decision:
    """Whether to retry after ``failure`` and after how many milliseconds (RETRY-1).

    Raises ``InvalidSample`` (backoff-timing's) when the default backoff is used and
    ``sample`` is outside [0, 1).
    """
    if isinstance(failure, Response) and failure.status < 400:
        return _no("not_an_error")
    if attempt >= max_retries:
        return _no("retries_exhausted")
    headers = failure.headers if isinstance(failure, Response) else ()
    if _field(headers, "x-should-retry") == "false":
        return _no("server_declined")
    reason = _eligibility(failure, method, idempotency_key)
    if reason not in ("server_requested", "retryable_status", "retryable_error"):
        return _no(reason)
    server = _server_delay(headers, now_ms)
    if server is not None:
        delay, source = server
        if delay > RETRY_AFTER_CAP_MS:
            return _no("retry_after_exceeds_cap")
        return Decision(True, delay, reason, source)
    # backoff-timing at attempt k: a one-delay Backoff whose base and max are cap(k)
    # draws the sample, checks it (BACKOFF-4) and applies floor(s * cap) (BACKOFF-3).
    cap = cap_ms(BASE_MS, MAX_MS, attempt)
    backoff = Backoff(cap, cap, jitter="full", random=SampleSequence([sample]))
    return Decision(True, backoff.next_delay(), reason, "backoff")


class RetryPolicy:
    """The retries of one request: each ``decide`` is the next attempt's (RETRY-10)."""

    def __init__(self, *, method: str, max_retries: int, idempotency_key: bool = False) -> None:
        self.method = method
        self.max_retries = max_retries
        self.idempotency_key = idempotency_key
        self.attempt = 0

    def decide(self, failure: Failure, *, now_ms: int, sample: float) -> Decision:
        decision = decide(
            failure,
            method=self.method,
            attempt=self.attempt,
            max_retries=self.max_retries,
            now_ms=now_ms,
            sample=sample,
            idempotency_key=self.idempotency_key,
        )
        if decision.retry:
            self.attempt += 1
        return decision
