"""backoff-timing: parameters at the integer edges, attempts past 53 and 64 (where
fixed-width arithmetic overflows), resets, and recorded samples at 0 and just below 1."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hypothesis import strategies as st

from . import Property, Response, described

MAX_SAFE = 2**53 - 1
EDGE_MS = (0, 1, 2, 3, 100, 1000, 2**31 - 1, 2**31, 2**32, 2**52, MAX_SAFE)
PARAM = st.one_of(st.sampled_from(EDGE_MS), st.integers(0, MAX_SAFE), st.integers(-3, 0))
# Attempts cluster where implementations break: around 2^53 and 2^64 of the base.
ATTEMPTS = st.one_of(st.integers(0, 8), st.integers(50, 70), st.integers(0, 100))
SAMPLE = st.one_of(
    st.sampled_from((0.0, 0.5, 0.9999999999999999, 1e-300)),
    st.floats(0, 1, exclude_max=True),
)


def _steps(raw: bytes) -> list[str]:
    return ["reset" if b % 4 == 3 else "next" for b in raw]


# Steps as one byte string (one Hypothesis choice; see strategies.joined): about
# one reset in four; a zero byte, where shrinking goes, is "next".
STEPS = st.binary(max_size=80).map(_steps)


# Built once: strategies built inside a draw cost more than the drawing itself.
_JITTER = st.sampled_from(("none", "none", "full", "Full"))
_BOOL = st.booleans()
_EDIT = st.sampled_from(("keep", "keep", "keep", "short", "bad"))
_BAD_SAMPLE = st.sampled_from((1.0, -0.0, -1e-9, 2.0))


@st.composite
def inputs(draw: st.DrawFn) -> dict[str, Any]:
    case: dict[str, Any] = {"base_ms": draw(PARAM), "max_ms": draw(PARAM)}
    case["jitter"] = draw(_JITTER)
    if draw(_BOOL):
        case["attempts"] = draw(ATTEMPTS)
        nexts = case["attempts"]
    else:
        steps = draw(STEPS)
        case["steps"] = steps
        nexts = steps.count("next")
    if case["jitter"] != "none":
        # Recorded samples keep the output deterministic, so platforms can be compared;
        # sometimes one short (samples_exhausted) or one out of range (invalid_sample).
        samples = draw(st.lists(SAMPLE, min_size=nexts, max_size=nexts))
        edit = draw(_EDIT)
        if edit == "short" and samples:
            samples.pop()
        elif edit == "bad":
            samples.append(draw(_BAD_SAMPLE))
        case["samples"] = samples
    return case


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


@st.composite
def _schedule(draw: st.DrawFn) -> dict[str, Any]:
    cap = draw(st.one_of(st.sampled_from(EDGE_MS[1:]), st.integers(1, MAX_SAFE)))
    base = draw(st.one_of(st.integers(1, cap), st.sampled_from(EDGE_MS[1:])))
    steps = draw(
        st.one_of(
            STEPS,
            ATTEMPTS.map(lambda n: ["next"] * n),  # long runs without a reset
        )
    )
    return {"base_ms": base, "max_ms": cap, "steps": steps}


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
        probes=_schedule(),
        requests=_schedules,
        check=_within_caps,
        candidate=lambda probe: {**probe, "jitter": "none"},
    ),
)
