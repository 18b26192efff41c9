"""The stop signals this process was started with ignored, which the harness leaves so.

A shell starts a background job of a non-interactive script with SIGINT ignored, so
that Ctrl-C stops the script's foreground only; ``nohup`` does the same for SIGHUP.
Python itself keeps such an inherited ignore (it installs no KeyboardInterrupt
handler), and so does the harness: its own handlers go only on the signals that were
not ignored when the process started. Read once, at import, before any handler is set.

Every handler the harness sets goes through ``install`` (or ``handled``), so that rule
holds everywhere.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)

IGNORED_AT_START = frozenset(s for s in STOP_SIGNALS if signal.getsignal(s) is signal.SIG_IGN)


def to_handle(signals: Iterable[int] = STOP_SIGNALS) -> tuple[int, ...]:
    """``signals`` less those the process was started with ignored."""
    return tuple(s for s in signals if s not in IGNORED_AT_START)


Handlers = dict[int, Any]


def install(handler: Any, signals: Iterable[int] = STOP_SIGNALS) -> Handlers:
    """``handler`` on each of ``signals`` the process was not started with ignored; the
    handlers it replaced, for ``restore``. Main thread only (Python's rule)."""
    return {s: signal.signal(s, handler) for s in to_handle(signals)}


def restore(previous: Handlers) -> None:
    for s, h in previous.items():
        signal.signal(s, h)


@contextmanager
def handled(handler: Any, signals: Iterable[int] = STOP_SIGNALS) -> Iterator[None]:
    """``install`` for the block, then ``restore``; off the main thread, nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = install(handler, signals)
    try:
        yield
    finally:
        restore(previous)
