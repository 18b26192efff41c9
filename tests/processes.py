"""Which processes are still alive, read from /proc (no psutil): the no-survivor checks."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")


def _stat(pid: str) -> tuple[str, int] | None:
    """(state, session id) of a process, or None if it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2 :].split()
    return fields[0], int(fields[3])


def recorded(pid_file: Path) -> tuple[set[str], set[int]]:
    """The pids and session ids a fake worker appended to ``pid_file`` (--pid-file)."""
    pids, sessions = set(), set()
    if pid_file.exists():
        for line in pid_file.read_text().split("\n"):
            if line.strip():
                pid, sid = line.split()
                pids.add(pid)
                sessions.add(int(sid))
    return pids, sessions


def survivors(pid_file: Path, grace: float = 3.0) -> list[str]:
    """Live (non-zombie) processes that are, or share a session with, a recorded worker.

    Waits up to ``grace`` seconds for SIGKILLed processes to disappear.
    """
    pids, sessions = recorded(pid_file)
    assert pids, f"no worker recorded its pid in {pid_file}"
    deadline = time.monotonic() + grace
    while True:
        alive = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            stat = _stat(entry.name)
            if stat is None or stat[0] == "Z":
                continue
            if entry.name in pids or stat[1] in sessions:
                alive.append(entry.name)
        if not alive or time.monotonic() > deadline:
            return alive
        time.sleep(0.05)


def within(seconds: float, action: Callable[[], T]) -> T:
    """``action()``; fails the test (instead of hanging it) if it takes over ``seconds``."""
    result: list[T] = []
    errors: list[BaseException] = []

    def target() -> None:
        try:
            result.append(action())
        except BaseException as e:  # re-raised in the test's thread
            errors.append(e)

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"still running after {seconds} s (the harness hangs)"
    if errors:
        raise errors[0]
    return result[0]
