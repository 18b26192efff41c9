"""A progress line for long runs: cases done and failures so far, on a terminal only.

It writes to stderr, redraws in place with ``\\r``, and is off when stderr is not a
terminal (CI logs, pipes, files), when ``CI`` is set, and under ``-q``: a log never
fills with progress lines.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterable, Mapping
from typing import Any, TextIO

from ..judge.outcomes import Outcome


def wanted(stream: TextIO, quiet: bool) -> bool:
    if quiet or os.environ.get("CI"):
        return False
    return stream.isatty()


class Progress:
    WIDTH = 30

    def __init__(
        self, total: int | None, stream: TextIO | None = None, min_interval: float = 0.1
    ) -> None:
        self.total = max(total, 1) if total is not None else None  # None: not known ahead
        self.stream = stream or sys.stderr
        self.done = 0
        self.failed = 0
        self.min_interval = min_interval
        self._last = 0.0

    def update(self, outcomes: Iterable[Outcome | Mapping[str, Any]]) -> None:
        done = failed = 0
        for o in outcomes:
            done += 1
            status = o["status"] if isinstance(o, Mapping) else o.status
            failed += status in ("fail", "error")
        self.advance(done, failed)

    def advance(self, done: int, failed: int) -> None:
        """``done`` more results, ``failed`` of them fail or error."""
        self.done += done
        self.failed += failed
        now = time.monotonic()
        if now - self._last >= self.min_interval or (
            self.total is not None and self.done >= self.total
        ):
            self._last = now
            self.draw()

    def line(self) -> str:
        if self.total is None:
            return f"{self.done} results, {self.failed} failing"
        filled = self.WIDTH * min(self.done, self.total) // self.total
        bar = "#" * filled + "-" * (self.WIDTH - filled)
        return f"[{bar}] {self.done}/{self.total} results, {self.failed} failing"

    def draw(self) -> None:
        self.stream.write("\r" + self.line())
        self.stream.flush()

    def close(self) -> None:
        # Erase the line so the report starts on a clean terminal line.
        self.stream.write("\r" + " " * len(self.line()) + "\r")
        self.stream.flush()
