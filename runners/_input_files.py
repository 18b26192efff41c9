"""The files a user names to a command (vector files, results files, ledgers) are read
whole: only a regular file is, so a device such as /dev/zero is refused at once instead
of being read without end."""

from __future__ import annotations

import stat
from pathlib import Path


def not_regular(path: Path) -> str | None:
    """Why ``path`` cannot be read as a named input, or None (a missing file is left to
    the reader, which says so in its own words)."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return None
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return None
    return "not a regular file (a device, pipe or socket): refused, not read without end"
