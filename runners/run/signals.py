"""The stop signals this process was started with ignored, which the harness leaves so.

A shell starts a background job of a non-interactive script with SIGINT ignored, so
that Ctrl-C stops the script's foreground only; ``nohup`` does the same for SIGHUP.
Python itself keeps such an inherited ignore (it installs no KeyboardInterrupt
handler), and so does the harness: its own handlers go only on the signals that were
not ignored when the process started. Read once, at import, before any handler is set.
"""

from __future__ import annotations

import signal
from collections.abc import Iterable

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)

IGNORED_AT_START = frozenset(s for s in STOP_SIGNALS if signal.getsignal(s) is signal.SIG_IGN)


def to_handle(signals: Iterable[int] = STOP_SIGNALS) -> tuple[int, ...]:
    """``signals`` less those the process was started with ignored."""
    return tuple(s for s in signals if s not in IGNORED_AT_START)
