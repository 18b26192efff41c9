"""Overflow-safe exponential backoff with injectable full jitter.

HIP-301 ("Rust utility crates", ``hanzo-backoff``); contract: docs/domains/backoff-timing.md.

>>> b = Backoff(100, 1000, jitter="none")
>>> [b.next_delay() for _ in range(6)]
[100, 200, 400, 800, 1000, 1000]
>>> b.reset(); b.next_delay()
100
>>> b = Backoff(100, 1000, jitter="full", random=SampleSequence([0.5, 0.999]))
>>> [b.next_delay(), b.next_delay()]
[50, 199]
"""

from __future__ import annotations

import math
import random as _random
from collections.abc import Callable, Iterable
from typing import Literal

from impl_python.errors import HanzoError

__all__ = [
    "JITTER_MODES",
    "MAX_SAFE_MS",
    "Backoff",
    "BackoffError",
    "InvalidBaseMs",
    "InvalidJitter",
    "InvalidMaxMs",
    "InvalidSample",
    "Jitter",
    "SampleSequence",
    "SamplesExhausted",
    "cap_ms",
]

MAX_SAFE_MS = 2**53 - 1
"""The largest millisecond count: 2^53 - 1, exact on every platform (I-JSON)."""

Jitter = Literal["none", "full"]
JITTER_MODES: tuple[str, ...] = ("none", "full")

# base_ms * 2**53 >= 2**53 > MAX_SAFE_MS >= max_ms whenever base_ms >= 1 (BACKOFF-2).
_SATURATING_ATTEMPT = 53


class BackoffError(HanzoError):
    """Base of every backoff-timing contract error."""

    code = "backoff_error"


class InvalidBaseMs(BackoffError):
    """BACKOFF-1: ``base_ms`` is not an integer in [0, 2^53 - 1]."""

    code = "invalid_base_ms"


class InvalidMaxMs(BackoffError):
    """BACKOFF-1: ``max_ms`` is not an integer in [0, 2^53 - 1]."""

    code = "invalid_max_ms"


class InvalidJitter(BackoffError):
    """BACKOFF-1: ``jitter`` is neither ``"none"`` nor ``"full"``."""

    code = "invalid_jitter"


class InvalidSample(BackoffError):
    """BACKOFF-4: the random source returned something outside [0, 1)."""

    code = "invalid_sample"


class SamplesExhausted(BackoffError):
    """BACKOFF-4: a SampleSequence was asked for more samples than it holds."""

    code = "samples_exhausted"


def _is_ms(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_SAFE_MS


def cap_ms(base_ms: int, max_ms: int, attempt: int) -> int:
    """BACKOFF-2: ``min(max_ms, base_ms * 2**attempt)``, exact for any attempt >= 0."""
    if base_ms == 0:
        return 0
    if attempt >= _SATURATING_ATTEMPT:
        return max_ms
    return min(max_ms, base_ms << attempt)


class SampleSequence:
    """A random source replaying recorded samples in order (BACKOFF-4).

    Values are not checked here; ``Backoff.next_delay`` checks every sample it draws.
    """

    def __init__(self, samples: Iterable[float]) -> None:
        self._samples = list(samples)
        self._next = 0

    def __call__(self) -> float:
        if self._next >= len(self._samples):
            raise SamplesExhausted(f"all {len(self._samples)} recorded samples have been used")
        sample = self._samples[self._next]
        self._next += 1
        return sample


class Backoff:
    """Exponential backoff: attempt k waits ``cap(k) = min(max_ms, base_ms * 2**k)`` ms,
    or ``floor(sample * cap(k))`` ms with full jitter (BACKOFF-3)."""

    def __init__(
        self,
        base_ms: int,
        max_ms: int,
        *,
        jitter: Jitter | str = "full",
        random: Callable[[], float] = _random.random,
    ) -> None:
        if not _is_ms(base_ms):
            raise InvalidBaseMs(f"base_ms must be an integer in [0, 2^53-1], got {base_ms!r}")
        if not _is_ms(max_ms):
            raise InvalidMaxMs(f"max_ms must be an integer in [0, 2^53-1], got {max_ms!r}")
        if jitter not in JITTER_MODES:
            raise InvalidJitter(f"jitter must be 'none' or 'full', got {jitter!r}")
        self._base_ms = base_ms
        self._max_ms = max_ms
        self._jitter = jitter
        self._random = random
        self._attempt = 0

    @property
    def attempt(self) -> int:
        """The current attempt k: 0 when new or reset, +1 per successful next_delay()."""
        return self._attempt

    @property
    def base_ms(self) -> int:
        return self._base_ms

    @property
    def max_ms(self) -> int:
        return self._max_ms

    @property
    def jitter(self) -> str:
        return self._jitter

    def next_delay(self) -> int:
        """The delay of the current attempt in whole milliseconds; then advance the attempt.

        Raises InvalidSample or SamplesExhausted (BACKOFF-4) without advancing.
        """
        cap = cap_ms(self._base_ms, self._max_ms, self._attempt)
        if self._jitter == "full":
            sample = self._random()
            if (
                not isinstance(sample, (int, float))
                or isinstance(sample, bool)
                or not 0.0 <= sample < 1.0
            ):
                raise InvalidSample(f"random source returned {sample!r}, not a value in [0, 1)")
            # cap <= 2^53 - 1 converts to float exactly; one rounded multiply, then floor.
            delay = math.floor(float(sample) * float(cap))
        else:
            delay = cap
        self._attempt += 1
        return delay

    def reset(self) -> None:
        """Start over at attempt 0 (BACKOFF-5); the random source is left as it is."""
        self._attempt = 0
