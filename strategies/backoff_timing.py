"""backoff-timing: parameters at the integer edges, attempts past 53 and 64 (where
fixed-width arithmetic overflows), resets, and recorded samples at 0 and just below 1."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hypothesis import strategies as st

from . import Property, Response, described, records

MAX_SAFE = 2**53 - 1
EDGE_MS = (0, 1, 2, 3, 100, 1000, 2**31 - 1, 2**31, 2**32, 2**52, MAX_SAFE)


# One input as bytes, each field at a fixed offset (shrinking one leaves the others):
# base_ms and max_ms (8 each), jitter, form (attempts or steps), attempts, step count,
# the steps (2 bits each), the samples edit and its bad sample, a pool of 2-byte samples.
STEP_BYTES, SAMPLE_POOL = 20, 16
RECORD = 8 + 8 + 4 + STEP_BYTES + 2 + 2 * SAMPLE_POOL
_JITTERS = ("none", "none", "full", "Full")
_EDITS = ("keep", "keep", "keep", "short", "bad")
_BAD_SAMPLES = (1.0, -0.0, -1e-9, 2.0)
_EDGE_SAMPLES = (0.0, 0.5, 0.9999999999999999, 1e-300)


def _param(raw: bytes) -> int:
    """An edge value, any safe integer, a small one, or -3..0 (rejected: BACKOFF-1)."""
    kind = raw[0] % 4
    if kind == 0:
        return EDGE_MS[raw[1] % len(EDGE_MS)]
    if kind == 1:
        return int.from_bytes(raw[1:], "big") % (MAX_SAFE + 1)
    if kind == 2:
        return int.from_bytes(raw[1:3], "big")
    return -(raw[1] % 4)


def _attempts(b: int) -> int:
    # 0..100 (identity, so shrinking lowers it), and 50..70 more often: attempts
    # cluster where implementations break, around 2^53 and 2^64 of the base.
    return b if b <= 100 else 50 + (b - 101) % 21


def _sample(hi: int, lo: int) -> float:
    return _EDGE_SAMPLES[lo % 4] if hi < 64 else (hi << 8 | lo) / 65536


def decode(record: bytes) -> dict[str, Any]:
    case: dict[str, Any] = {
        "base_ms": _param(record[0:8]),
        "max_ms": _param(record[8:16]),
        "jitter": _JITTERS[record[16] % 4],
    }
    if record[17] % 2 == 0:
        nexts = case["attempts"] = _attempts(record[18])
    else:
        count = record[19] % 81
        packed = record[20 : 20 + STEP_BYTES]
        steps = [
            "reset" if packed[i >> 2] >> (2 * (i & 3)) & 3 == 3 else "next" for i in range(count)
        ]
        case["steps"] = steps
        nexts = steps.count("next")
    if case["jitter"] != "none":
        # Recorded samples keep the output deterministic, so platforms can be compared;
        # sometimes one short (samples_exhausted) or one out of range (invalid_sample).
        at = 22 + STEP_BYTES
        pool = [_sample(record[at + 2 * i], record[at + 2 * i + 1]) for i in range(SAMPLE_POOL)]
        samples = [pool[i % SAMPLE_POOL] for i in range(nexts)]
        edit = _EDITS[record[20 + STEP_BYTES] % len(_EDITS)]
        if edit == "short" and samples:
            samples.pop()
        elif edit == "bad":
            samples.append(_BAD_SAMPLES[record[21 + STEP_BYTES] % 4])
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
    cap = _positive(record[0:8])
    base = _positive(record[8:16])
    if record[16] & 1:
        base = min(base, cap)  # usually a base below the cap
    if record[17] % 2 == 0:
        steps = ["next"] * _attempts(record[18])  # long runs without a reset
    else:
        count = record[19] % 81
        packed = record[20 : 20 + STEP_BYTES]
        steps = [
            "reset" if packed[i >> 2] >> (2 * (i & 3)) & 3 == 3 else "next" for i in range(count)
        ]
    return {"base_ms": base, "max_ms": cap, "steps": steps}


SCHEDULE_RECORD = 20 + STEP_BYTES


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
