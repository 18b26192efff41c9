"""Processes read from Linux /proc, for the benchmarks that count a run's child processes."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator

TICKS = os.sysconf("SC_CLK_TCK")


def processes() -> Iterator[tuple[int, int, float]]:
    """(pid, parent pid, CPU seconds used so far) of every process; none without /proc."""
    for entry in os.listdir("/proc") if os.path.isdir("/proc") else ():
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()  # the name may hold spaces
        except OSError:
            continue  # gone meanwhile
        yield int(entry), int(fields[1]), (int(fields[11]) + int(fields[12])) / TICKS


def tree(root: int, table: Iterable[tuple[int, int, float]]) -> list[int]:
    """``root`` first, then every process descended from it in ``table``."""
    children: dict[int, list[int]] = {}
    for pid, parent, _ in table:
        children.setdefault(parent, []).append(pid)
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, []))
    return found
