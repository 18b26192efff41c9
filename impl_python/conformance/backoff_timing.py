"""backoff-timing JSON layer: run ``steps`` (or ``attempts`` x "next") on one Backoff."""

from __future__ import annotations

from typing import Any

from impl_python.backoff import Backoff, SampleSequence


def _whole(value: Any) -> Any:
    # BACKOFF-6: a whole JSON number written as 1.0 is the integer 1; anything else is
    # passed through for the library to accept or reject.
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def run(case_input: dict[str, Any]) -> dict[str, Any]:
    """Return ``{"delays_ms": [...]}``, one delay per "next" step (BACKOFF-6)."""
    base_ms, max_ms, jitter = (case_input[k] for k in ("base_ms", "max_ms", "jitter"))
    steps = case_input["steps"] if "steps" in case_input else ["next"] * case_input["attempts"]
    if "samples" in case_input:
        backoff = Backoff(
            _whole(base_ms),
            _whole(max_ms),
            jitter=jitter,
            random=SampleSequence(case_input["samples"]),
        )
    else:
        backoff = Backoff(_whole(base_ms), _whole(max_ms), jitter=jitter)
    delays: list[int] = []
    for step in steps:
        if step == "next":
            delays.append(backoff.next_delay())
        else:  # "reset"
            backoff.reset()
    return {"delays_ms": delays}
