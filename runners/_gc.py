"""The cyclic garbage collector's policy, in one place.

The harness's objects are trees (cases, requests, answers, outcomes), freed by reference
counting; the collector would only rescan them, again and again as they accumulate. So
loading and running pause it (``paused``: any number of overlapping pauses from any
threads, the last one out restoring it), a streaming run freezes each file's cases
while they live (``freeze_alive`` ... ``thaw``), and ``generate``, whose Hypothesis engine does make
cycles, collects seldom instead (``seldom``).
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

SELDOM = (50_000, 20, 100)
"""``generate``'s thresholds: Hypothesis' per-example cycles are still collected every
few examples, the inputs and answers around them never rescanned."""

_lock = threading.Lock()
_pauses = 0
_was_enabled = False


@contextmanager
def paused() -> Iterator[None]:
    """The collector off for the duration; the last overlapping pause to end turns it
    back on if it was on when the first began, having moved what was made meanwhile to
    the oldest generation (``freeze`` then ``unfreeze``: no full scan of the objects
    made, all alive) unless something is frozen (``freeze_alive``)."""
    global _pauses, _was_enabled
    with _lock:
        if _pauses == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _pauses += 1
    try:
        yield
    finally:
        with _lock:
            _pauses -= 1
            if _pauses == 0 and _was_enabled:
                if gc.get_freeze_count() == 0:
                    gc.freeze()
                    gc.unfreeze()
                gc.enable()


def freeze_alive() -> None:
    """Everything alive now out of the collector's sight until ``thaw``."""
    gc.collect()
    gc.freeze()


def thaw() -> None:
    gc.unfreeze()


@contextmanager
def seldom() -> Iterator[None]:
    """The collector's thresholds at ``SELDOM`` for the duration."""
    before = gc.get_threshold()
    gc.set_threshold(*SELDOM)
    try:
        yield
    finally:
        gc.set_threshold(*before)
