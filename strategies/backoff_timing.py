"""backoff-timing: parameters at the integer edges, attempts past 53 and 64 (where
fixed-width arithmetic overflows), resets, and recorded samples at 0 and just below 1."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hypothesis import strategies as st

from . import Property, Response, described, records

MAX_SAFE = 2**53 - 1
EDGE_MS = (0, 1, 2, 3, 100, 1000, 2**31 - 1, 2**31, 2**32, 2**52, MAX_SAFE)


# One input as 23 bytes, each field at a fixed offset (shrinking one leaves the
# others): base_ms and max_ms (3 each), jitter, length, form (attempts or steps), a
# reset pattern, the samples edit and its bad sample, a pool of four 2-byte samples.
# Hypothesis's cost is per byte drawn, and the platforms' cost grows with the number
# of delays (and float samples): records are short, and three inputs in four are
# short runs, the fourth a long one around 2^53 and 2^64 of the base.
PATTERN_BYTES, SAMPLE_POOL = 3, 4
RECORD = 3 + 3 + 3 + PATTERN_BYTES + 2 + 2 * SAMPLE_POOL
_JITTERS = ("none", "none", "full", "Full")
_EDITS = ("keep", "keep", "keep", "short", "bad")
_BAD_SAMPLES = (1.0, -0.0, -1e-9, 2.0)
_EDGE_SAMPLES = (0.0, 0.5, 0.9999999999999999, 1e-300)
_SPREAD = 0x5DEECE66D1  # odd: spreads a 16-bit value over the safe integers


def _param(raw: bytes) -> int:
    """An edge value, near a power of two or anywhere among the safe integers, a 16-bit
    one, or -3..0 (rejected: BACKOFF-1)."""
    kind, hi, lo = raw[0] % 4, raw[1], raw[2]
    if kind == 0:
        return EDGE_MS[hi % len(EDGE_MS)]
    if kind == 1:
        if lo < 128:
            return min(MAX_SAFE, max(0, (1 << hi % 54) + lo % 5 - 2))
        return ((hi << 8 | lo) * _SPREAD) % (MAX_SAFE + 1)
    if kind == 2:
        return hi << 8 | lo
    return -(hi % 4)


def _length(b: int, most: int) -> int:
    """0..8 for three bytes in four; else 40 up to ``most`` (monotonic in the byte, so
    shrinking it lowers the length: where overflows begin, around attempt 53 and 64)."""
    return b % 9 if b < 192 else min(most, 40 + b - 192)


def _attempts(b: int) -> int:
    return _length(b, 100)


def _steps(length: int, pattern: bytes) -> list[str]:
    # A reset where the pattern's 2-bit slot (repeating every 12 steps) is 3.
    return [
        "reset" if pattern[(i % 12) >> 2] >> (2 * (i & 3)) & 3 == 3 else "next"
        for i in range(length)
    ]


def _sample(hi: int, lo: int) -> float:
    return _EDGE_SAMPLES[lo % 4] if hi < 64 else (hi << 8 | lo) / 65536


def decode(record: bytes) -> dict[str, Any]:
    case: dict[str, Any] = {
        "base_ms": _param(record[0:3]),
        "max_ms": _param(record[3:6]),
        "jitter": _JITTERS[record[6] % 4],
    }
    if record[8] % 2 == 0:
        nexts = case["attempts"] = _attempts(record[7])
    else:
        steps = _steps(_length(record[7], 80), record[9:12])
        case["steps"] = steps
        nexts = steps.count("next")
    if case["jitter"] != "none":
        # Recorded samples keep the output deterministic, so platforms can be compared;
        # sometimes one short (samples_exhausted) or one out of range (invalid_sample).
        at = 14
        pool = [_sample(record[at + 2 * i], record[at + 2 * i + 1]) for i in range(SAMPLE_POOL)]
        samples = [pool[i % SAMPLE_POOL] for i in range(nexts)]
        edit = _EDITS[record[12] % len(_EDITS)]
        if edit == "short" and samples:
            samples.pop()
        elif edit == "bad":
            samples.append(_BAD_SAMPLES[record[13] % 4])
        case["samples"] = samples
    return case


def inputs() -> st.SearchStrategy[dict[str, Any]]:
    return records(RECORD, decode)


def clauses(case_input: Any, response: Response) -> set[str]:
    found = {"BACKOFF-6"}
    if "error" in response:
        code = response["error"].get("code")
        found.add("BACKOFF-4" if code in ("invalid_sample", "samples_exhausted") else "BACKOFF-1")
        return found
    found |= {"BACKOFF-2", "BACKOFF-3"}
    if "samples" in case_input:
        found.add("BACKOFF-4")
    if "reset" in case_input.get("steps", ()):
        found.add("BACKOFF-5")
    return found


def _positive(raw: bytes) -> int:
    """Like _param, but at least 1 (a cap or base the property can check against)."""
    return max(1, _param(raw))


def _decode_schedule(record: bytes) -> dict[str, Any]:
    cap = _positive(record[0:3])
    base = _positive(record[3:6])
    if record[6] & 1:
        base = min(base, cap)  # usually a base below the cap
    if record[8] % 2 == 0:
        steps = ["next"] * _attempts(record[7])  # runs without a reset
    else:
        steps = _steps(_length(record[7], 80), record[9:12])
    return {"base_ms": base, "max_ms": cap, "steps": steps}


SCHEDULE_RECORD = 9 + PATTERN_BYTES


def _schedules(probe: dict[str, Any]) -> list[Any]:
    return [{**probe, "jitter": "none"}, {**probe, "jitter": "full"}]


def _within_caps(probe: dict[str, Any], responses: Sequence[Response]) -> str | None:
    plain, jittered = responses
    if "error" in plain and "error" in jittered:
        return None  # parameters this contract version rejects (issue 11 may change that)
    if "output" not in plain or "output" not in jittered:
        return f"none: {described(plain)}; full: {described(jittered)}"
    caps, delays = plain["output"]["delays_ms"], jittered["output"]["delays_ms"]
    if len(caps) != len(delays):
        return f"{len(caps)} caps but {len(delays)} jittered delays"
    previous = None
    nexts = iter(range(len(caps)))
    for step in probe["steps"]:
        if step == "reset":
            previous = None
            continue
        i = next(nexts)
        if not 0 <= caps[i] <= probe["max_ms"]:
            return f"cap {caps[i]} of delay {i} outside [0, max_ms={probe['max_ms']}]"
        if previous is not None and caps[i] < previous:
            return f"cap shrank from {previous} to {caps[i]} at delay {i}"
        if not 0 <= delays[i] <= caps[i]:
            return f"full-jitter delay {delays[i]} outside [0, cap={caps[i]}] at delay {i}"
        previous = caps[i]
    return None


PROPERTIES = (
    Property(
        name="delays-within-caps-and-caps-never-shrink",
        clauses=("BACKOFF-2", "BACKOFF-3", "BACKOFF-5"),
        probes=records(SCHEDULE_RECORD, _decode_schedule),
        requests=_schedules,
        check=_within_caps,
        candidate=lambda probe: {**probe, "jitter": "none"},
        record=SCHEDULE_RECORD,
        decode=_decode_schedule,
    ),
)
