"""The search's Hypothesis backend: a fixed-size byte string drawn in one PRNG call.

Read from Hypothesis 6.170.17 (``hypothesis/internal/conjecture/providers.py`` and
``engine.py``); this is the one module that touches its internals.

* ``HypothesisProvider.draw_bytes`` builds a byte string one byte per loop turn of
  ``many()`` (about 0.5 us a byte); a record batch is thousands of bytes. Here a
  fixed-size string is ``randbytes(size)`` from the same seeded ``Random``, so a
  seed still gives the same search. Every other choice is Hypothesis's own.
* Registered as an alternative backend (``AVAILABLE_PROVIDERS``, ``settings(backend=)``),
  the engine's generate phase asks the provider for each example afresh
  (``generate_new_test_cases``: no zero-extended novel prefixes, no span-copying
  mutations), so a batch's records are new rather than copies of the last batch's.
  A failure is replayed on the ``hypothesis`` backend from its recorded choices
  (the bytes themselves) and shrunk there as before.
* The same branch skips the target phase: ``hypothesis.target()`` is recorded but
  nothing climbs it on an alternative backend. ``Steering`` does that job here: the
  search offers each batch's record with the rarest clauses, and a share of the
  byte strings drawn are variants of recent ones (a few bytes changed per record).
  The variants are the provider's draws, recorded as choices like any other, so a
  seed still gives the same search and a failure still replays and shrinks.

If these internals move, ``backend()`` says why and the search runs on the plain
``hypothesis`` backend: slower (most draws repeats), never wrong.
"""

from __future__ import annotations

import contextlib
import random
import warnings
from collections import deque
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, cast

NAME = "hanzo-records"
READ_FROM = "6.170.17"

_moved: str | None = None  # why the internals read are not there, if they are not
if TYPE_CHECKING:
    from hypothesis.internal.conjecture.providers import (
        AVAILABLE_PROVIDERS,
        HypothesisProvider,
    )
else:
    try:
        from hypothesis.internal.conjecture.providers import (
            AVAILABLE_PROVIDERS,
            HypothesisProvider,
        )
    except ImportError as e:  # only when Hypothesis moves them: backend() falls back
        AVAILABLE_PROVIDERS, HypothesisProvider = {}, object
        _moved = f"hypothesis.internal.conjecture.providers has moved ({e})"

_fallback_warned = False


class Steering:
    """Records whose inputs touched rarely touched clauses, drawn again with small changes.

    ``offer(record, score)`` after each batch (its best record; score > 0); while the
    search draws, ``vary`` turns one byte string in SHARE into records that are each
    a recent best record with one to CHANGES bytes redrawn: inputs next to the rare
    ones, as target()'s hill climbing would try, most of them new.
    """

    SHARE = 0.125
    KEEP = 16  # recent batches' best records (rarity is relative to the hits so far)
    CHANGES = 2

    def __init__(self) -> None:
        self._best: deque[bytes] = deque(maxlen=self.KEEP)
        self.varied = 0  # byte strings drawn as variants
        self._replays: deque[tuple[Any, ...]] = deque()
        self.replays = 0  # examples drawn as replays

    def replay(self, choices: tuple[Any, ...]) -> None:
        """Have the next example this backend draws make exactly ``choices`` again.

        The search judges a batch while the next is drawn; when that finds a failure,
        the failing batch is drawn again (a later example, same choices) so that
        Hypothesis sees it fail and shrinks it as if it had failed at once.
        """
        self._replays.append(choices)

    def replayed(self) -> tuple[Any, ...] | None:
        """The choices a new example is to make again, if any (taken: once each)."""
        if not self._replays:
            return None
        self.replays += 1
        return self._replays.popleft()

    def offer(self, record: bytes, score: float) -> None:
        if score > 0 and record:
            self._best.append(record)

    def vary(self, rng: random.Random, size: int) -> bytes | None:
        """A variant ``size`` bytes long, or None (draw afresh)."""
        if not self._best or rng.random() >= self.SHARE:
            return None
        record = self._best[rng.randrange(len(self._best))]
        width = len(record)
        if size % width:
            return None
        out = bytearray(record * (size // width))
        for start in range(0, size, width):
            for _ in range(rng.randint(1, self.CHANGES)):
                out[start + rng.randrange(width)] = rng.getrandbits(8)
        self.varied += 1
        return bytes(out)


_steering: Steering | None = None
_NONE = object()  # no replayed choice


def current_example() -> tuple[tuple[Any, ...], Any] | None:
    """The running example's choices so far and the state of its ``Random`` (the
    engine's; None if it has none), or None outside an example or if Hypothesis moved them."""
    try:
        from hypothesis.control import current_build_context

        data = current_build_context().data
        choices = data.choices
        rng = data._random
        state = None if rng is None else rng.getstate()
    except Exception:  # not in an example, or Hypothesis moved it: the caller judges at once
        return None
    return (tuple(choices), state) if isinstance(choices, tuple) else None


def rewind(state: Any) -> None:
    """Set the running example's ``Random`` (the engine's) back to ``state``.

    A failing batch found one example late is shrunk from the engine's Random as it
    was when that batch was drawn, as if it had failed at once: the shrinker draws
    from it, and the example drawn in between would otherwise steer it elsewhere.
    """
    if state is None:
        return
    try:
        from hypothesis.control import current_build_context

        rng = current_build_context().data._random
    except Exception:
        return
    if rng is not None:
        rng.setstate(state)


@contextlib.contextmanager
def steered(steering: Steering | None) -> Iterator[None]:
    """Draws on this backend consult ``steering`` (None: none) inside the block."""
    global _steering
    before, _steering = _steering, steering
    try:
        yield
    finally:
        _steering = before


class RecordProvider(HypothesisProvider):
    """Hypothesis's provider, drawing a fixed-size byte string in one call.

    An example started while ``Steering`` holds a replay draws the replayed choices
    instead, one per draw, as long as each has the type drawn (else it draws afresh).
    """

    def __init__(self, conjecturedata: Any, /) -> None:
        super().__init__(conjecturedata)
        choices = None
        if conjecturedata is not None and _steering is not None:
            choices = _steering.replayed()
        self._replay: Iterator[Any] | None = None if choices is None else iter(choices)

    def _replayed(self, kind: type) -> Any:
        """The next replayed choice if it is a ``kind``, else ``_NONE`` (replay over)."""
        if self._replay is None:
            return _NONE
        value = next(self._replay, _NONE)
        if type(value) is not kind:
            self._replay = None
            return _NONE
        return value

    def draw_boolean(self, p: float = 0.5) -> bool:
        value = self._replayed(bool)
        return super().draw_boolean(p) if value is _NONE else cast(bool, value)

    def draw_integer(self, *args: Any, **constraints: Any) -> int:
        value = self._replayed(int)
        return super().draw_integer(*args, **constraints) if value is _NONE else cast(int, value)

    def draw_float(self, *args: Any, **constraints: Any) -> float:
        value = self._replayed(float)
        return super().draw_float(*args, **constraints) if value is _NONE else cast(float, value)

    def draw_string(self, *args: Any, **constraints: Any) -> str:
        value = self._replayed(str)
        return super().draw_string(*args, **constraints) if value is _NONE else cast(str, value)

    def draw_bytes(self, min_size: int = 0, max_size: int = 0, **rest: Any) -> bytes:
        replayed = self._replayed(bytes)
        if replayed is not _NONE:
            return cast(bytes, replayed)
        rng = self._random
        if min_size != max_size or rest or rng is None:
            return super().draw_bytes(min_size, max_size, **rest)
        if _steering is not None and (variant := _steering.vary(rng, max_size)) is not None:
            return variant
        return rng.randbytes(max_size)


def _usable() -> str | None:
    """Why the provider cannot be used with this Hypothesis, or None."""
    if _moved is not None:
        return _moved
    if getattr(HypothesisProvider, "lifetime", None) != "test_case":
        return "HypothesisProvider's lifetime is no longer 'test_case'"
    if not callable(getattr(HypothesisProvider, "draw_bytes", None)):
        return "HypothesisProvider has no draw_bytes"
    try:
        probe = RecordProvider(None)
    except TypeError as e:
        return f"HypothesisProvider's constructor changed: {e}"
    if not hasattr(probe, "_random"):
        return "HypothesisProvider keeps its Random elsewhere than _random"
    return None


def backend() -> str:
    """The backend name for ``settings(backend=)``: this module's, or ``hypothesis`` (warned)."""
    global _fallback_warned
    if AVAILABLE_PROVIDERS.get(NAME) is RecordProvider:
        return NAME
    why_not = _usable()
    if why_not is not None:
        if not _fallback_warned:
            _fallback_warned = True
            warnings.warn(
                f"runners.generate.backend (read from Hypothesis {READ_FROM}): {why_not}; "
                "searching on the plain hypothesis backend, which is slower",
                RuntimeWarning,
                stacklevel=2,
            )
        return "hypothesis"
    AVAILABLE_PROVIDERS[NAME] = RecordProvider
    return NAME
