"""The files a user names to a command (vector files, results files, ledgers) are read
whole: only a regular file is, so a device such as /dev/zero is refused at once instead
of being read without end; and a results file or ledger with a key given twice in one
object is refused (plain JSON keeps the last, so what a reader sees is not what a
reviewer read)."""

from __future__ import annotations

import json
import stat
from pathlib import Path
from typing import Any


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


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    document: dict[str, Any] = {}
    for key, value in pairs:
        if key in document:
            raise ValueError(f"the key {key!r} is given twice in one object")
        document[key] = value
    return document


def loads_unique(text: str) -> Any:
    """``json.loads``, refusing an object that gives a key twice (ValueError)."""
    return json.loads(text, object_pairs_hook=_unique)
