"""http-retry: server-directed delays around the 60 s cap (seconds, milliseconds and
all three HTTP-date forms, a second either side of now and of the cap), near-miss
spellings (signs, fractions, case, OWS, lists), duplicates, x-should-retry, the
retryable statuses and their neighbours, methods with and without an idempotency key,
budgets at their edge, and short sequences."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from . import Property, Reader, Response, described, records

NOW_MS = 1_696_004_797_000  # Fri, 29 Sep 2023 16:26:37 GMT, the SDK tests' clock
CAP_MS = 60_000
# Zero bytes pick the first option everywhere: a GET's 503, no header, attempt 0.
STATUSES = (503, 429, 408, 409, 500, 502, 504, 529, 599, 501, 505, 400, 404, 499, 200, 301)
METHODS = ("GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "get", "OPTIONS")
NAMES = ("retry-after", "retry-after-ms", "x-should-retry", "Retry-After", "RETRY-AFTER", "x-other")
SECONDS = ("0", "1", "20", "59", "60", "61", "120", "3600", "-10", "1.5", "+5", "1e3", "inf",
           "", " 7\t", "20, 30", "0000000000000000000060", "99999999999999999999999999999999999",
           "\u0663")  # fmt: skip
MILLIS = ("0", "1500", "1500.5", "0.1", "59999", "60000", "60000.1", "60001", "-5", "1e3", ".5",
          "5.", "abc", "123456789012345678901234567890")  # fmt: skip
SHOULD_RETRY = ("true", "false", "True", " false ", "", "yes")
# Seconds from now for dates: either side of now and of the cap, and around 50 years
# ahead, where an RFC 850 two-digit year turns to the past (RETRY-8).
DATE_OFFSETS = (20, 0, -10, 59, 60, 61, 120, -100_000_000,
                1_577_836_800, 1_577_923_200, 1_577_750_400,
                1_546_300_800, 1_609_459_200)  # fmt: skip
NOWS = (NOW_MS, NOW_MS + 250, 784_111_747_000, 2_524_607_990_000, 4_102_444_790_000)
SAMPLES = (0.5, 0.0, 0.999, 0.9999999999999999, 0.25, 0.875, 1.0, -0.5)
MAX_RETRIES = (2, 0, 1, 3, 5, 1_000_000)

_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_LONG_DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def _civil(seconds: int) -> tuple[int, int, int, int, int, int, int]:
    """(year, month, day, hour, minute, second, weekday 0=Mon) of a Unix time, UTC."""
    days, rest = divmod(seconds, 86400)
    weekday = (days + 3) % 7  # 1970-01-01 was a Thursday
    z = days + 719468
    era = z // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    day = doy - (153 * mp + 2) // 5 + 1
    month = mp + 3 if mp < 10 else mp - 9
    year = yoe + era * 400 + (month <= 2)
    return year, month, day, rest // 3600, rest // 60 % 60, rest % 60, weekday


def http_date(seconds: int, form: int) -> str:
    """``seconds`` as IMF-fixdate (0), RFC 850 (1) or asctime (2)."""
    year, month, day, hour, minute, second, weekday = _civil(seconds)
    clock = f"{hour:02d}:{minute:02d}:{second:02d}"
    if form == 1:
        return f"{_LONG_DAYS[weekday]}, {day:02d}-{_MONTHS[month - 1]}-{year % 100:02d} {clock} GMT"
    if form == 2:
        return f"{_DAYS[weekday]} {_MONTHS[month - 1]} {day:2d} {clock} {year:04d}"
    return f"{_DAYS[weekday]}, {day:02d} {_MONTHS[month - 1]} {year:04d} {clock} GMT"


def _header(r: Reader, now_ms: int) -> list[str]:
    name = r.pick(NAMES)
    kind = name.lower()
    if kind == "retry-after-ms":
        value = r.pick(MILLIS) if r.byte() < 192 else str(r.integer(0, 70_000))
    elif kind == "x-should-retry":
        value = r.pick(SHOULD_RETRY)
    else:
        how = r.byte() % 4
        if how == 1:  # a date, near now or near the cap
            value = http_date(now_ms // 1000 + r.pick(DATE_OFFSETS), r.integer(0, 2))
            if r.chance(8):
                value = value.lower()
        elif how == 2:
            value = str(r.integer(0, 130))
        else:
            value = r.pick(SECONDS)
    return [name, value]


def _response(r: Reader, now_ms: int) -> dict[str, Any]:
    if r.chance(10):
        return {"error": r.pick(("connect", "timeout"))}
    status = r.pick(STATUSES)
    headers = [_header(r, now_ms) for _ in range(r.byte() % 4)]
    return {"status": status, "headers": headers}


def _attempt(r: Reader, max_retries: int) -> int:
    b = r.byte()
    if b < 224:
        return b % 4
    return (60, 1103, max_retries - 1, max_retries)[b % 4] if max_retries else 0


# form, method, key, max_retries, attempt, now, sample; each response up to 1 + 1 + 3 * 4
# bytes; a sequence holds up to four responses.
RECORD = 64


def decode(record: bytes) -> dict[str, Any]:
    r = Reader(record)
    sequence = r.chance(6)
    case: dict[str, Any] = {"method": r.pick(METHODS)}
    key = r.pick((None, True, False))
    if key is not None:
        case["idempotency_key"] = key
    case["max_retries"] = max_retries = r.pick(MAX_RETRIES)
    if not sequence:
        case["attempt"] = _attempt(r, max_retries)
        case["now_ms"] = now_ms = r.pick(NOWS)
        case["sample"] = r.pick(SAMPLES)
        case["response"] = _response(r, now_ms)
        return case
    base = r.pick(NOWS)
    steps = []
    for _ in range(1 + r.byte() % 4):
        now_ms = base + 1000 * r.integer(0, 30)
        steps.append(
            {"response": _response(r, now_ms), "now_ms": now_ms, "sample": r.pick(SAMPLES)}
        )
    case["steps"] = steps
    return case


def inputs() -> Any:
    return records(RECORD, decode)


_BY_REASON = {
    "retries_exhausted": {"RETRY-2"},
    "server_declined": {"RETRY-3"},
    "server_requested": {"RETRY-3"},
    "not_an_error": {"RETRY-4"},
    "status_not_retryable": {"RETRY-4"},
    "not_idempotent": {"RETRY-5"},
    "retryable_status": {"RETRY-4"},
    "retryable_error": {"RETRY-4"},
    "retry_after_exceeds_cap": {"RETRY-7"},
}
_BY_SOURCE = {"retry-after-ms": {"RETRY-7"}, "retry-after": {"RETRY-7"}, "backoff": {"RETRY-6"}}


def _decisions(output: Any) -> list[dict[str, Any]]:
    if not isinstance(output, dict):
        return []
    decisions = output.get("decisions", [output])
    return [d for d in decisions if isinstance(d, dict)]


_CLOCK = re.compile(r"\d\d:\d\d:\d\d")


def clauses(case_input: Any, response: Response) -> set[str]:
    found = {"RETRY-1", "RETRY-10"}
    if "error" in response:
        found.add("RETRY-6")
    for decision in _decisions(response.get("output")):
        found |= _BY_REASON.get(decision.get("reason", ""), set())
        found |= _BY_SOURCE.get(decision.get("delay_source") or "", set())
    text = repr(case_input)
    if _CLOCK.search(text):
        found.add("RETRY-8")
    if "RETRY-AFTER" in text or "Retry-After" in text or "X-" in text:
        found.add("RETRY-9")
    return found


def _attempts(case_input: dict[str, Any]) -> list[int]:
    if "steps" in case_input:
        return list(range(len(case_input["steps"])))
    return [case_input["attempt"]]


def _within_bounds(probe: dict[str, Any], responses: Sequence[Response]) -> str | None:
    """RETRY-6/7: a retry never waits above the cap, a backoff never above cap(k), and
    no retry ever has a delay."""
    (response,) = responses
    if "output" not in response:
        return None if "error" in response else f"gave {described(response)}"
    for attempt, decision in zip(_attempts(probe), _decisions(response["output"]), strict=False):
        delay = decision.get("delay_ms")
        if not decision.get("retry"):
            if delay is not None:
                return f"no retry with a delay of {delay} ms"
            continue
        if not isinstance(delay, int) or not 0 <= delay <= CAP_MS:
            return f"a retry after {delay!r} ms, outside [0, {CAP_MS}] (RETRY-7)"
        ceiling = min(8000, 500 * 2 ** min(attempt, 60))
        if decision.get("delay_source") == "backoff" and delay >= max(ceiling, 1):
            return f"a backoff of {delay} ms at attempt {attempt}, not below {ceiling} (RETRY-6)"
    return None


PROPERTIES = (
    Property(
        name="delays-within-bounds",
        clauses=("RETRY-6", "RETRY-7"),
        probes=inputs(),
        requests=lambda probe: [probe],
        check=_within_bounds,
        record=RECORD,
        decode=decode,
    ),
)
