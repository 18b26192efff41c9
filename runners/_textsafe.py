"""Values made safe to print: bounded in size, invisible and confusable characters escaped.

A report line must never be megabytes long (a platform that returns 100 MB of
output) and must never hide what it shows: a byte order mark, a zero-width space
or a right-to-left override printed raw makes ``"\\ufeff"`` look like ``""``.
"""

from __future__ import annotations

import json
import re
import unicodedata
from typing import Any

# The documented bound on one printed value (docs/reports.md): 2 KiB of text.
MAX_VALUE_CHARS = 2048

# Characters a terminal or browser would not show as what they are: controls (C0,
# DEL, C1), format characters (Cf: BOM, zero-width, bidi controls, soft hyphen),
# separators other than the ASCII space (NBSP, line/paragraph separators, ...),
# surrogates and private-use or unassigned code points.
_HIDDEN_CATEGORIES = {"Cc", "Cf", "Zs", "Zl", "Zp", "Cs", "Co", "Cn"}


def _is_hidden(ch: str) -> bool:
    return ch != " " and unicodedata.category(ch) in _HIDDEN_CATEGORIES


def _escape_char(ch: str) -> str:
    code = ord(ch)
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


_NON_ASCII = re.compile(r"[^\x20-\x7e]")


def escape_hidden(text: str) -> str:
    """``text`` with every invisible or confusable character written as ``\\uXXXX``."""
    return _NON_ASCII.sub(lambda m: _escape_char(m[0]) if _is_hidden(m[0]) else m[0], text)


def bound(text: str, limit: int = MAX_VALUE_CHARS) -> str:
    """``text`` with hidden characters escaped, cut to about ``limit`` characters.

    The elided size counts characters of the original text; only the shown prefix is
    escaped, so a 100 MB value costs time in the limit, not in its size.
    """
    if len(text) <= limit:
        escaped = escape_hidden(text)
        if len(escaped) <= limit:
            return escaped
    keep = max(limit - 60, limit // 2)
    head = escape_hidden(text[:keep])[:keep]
    return f"{head}… [{len(text) - keep} more characters elided of {len(text)}]"


def shown(value: Any, limit: int = MAX_VALUE_CHARS) -> str:
    """A JSON value as it may be printed: JSON text, hidden characters escaped, bounded."""
    return bound(json.dumps(value, ensure_ascii=False), limit)
