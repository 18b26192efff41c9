"""The one canonical layout of a vector file, so diffs show content changes only.

Two-space indentation, keys in their written order, non-ASCII kept as text; an
array or object of scalars stays on one line when that line fits in WIDTH, and a
longer array of numbers fills its lines.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

WIDTH = 100


def _is_scalar(value: Any) -> bool:
    return not isinstance(value, (dict, list))


def _inline(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


def _render(value: Any, indent: int, key_prefix: str) -> str:
    pad = " " * indent
    if _is_scalar(value) or not value:
        return pad + key_prefix + _inline(value)
    items = value.values() if isinstance(value, dict) else value
    if all(_is_scalar(v) for v in items):
        line = pad + key_prefix + _inline(value)
        if len(line) <= WIDTH:
            return line
    inner = indent + 2
    if isinstance(value, list) and all(_is_scalar(v) and not isinstance(v, str) for v in value):
        return f"{pad}{key_prefix}[\n" + _packed(value, inner) + f"\n{pad}]"
    if isinstance(value, dict):
        parts = [_render(v, inner, _inline(k) + ": ") for k, v in value.items()]
        open_, close = "{", "}"
    else:
        parts = [_render(v, inner, "") for v in value]
        open_, close = "[", "]"
    return f"{pad}{key_prefix}{open_}\n" + ",\n".join(parts) + f"\n{pad}{close}"


def _packed(numbers: list[Any], indent: int) -> str:
    """Long arrays of numbers fill lines up to WIDTH rather than one number a line."""
    lines: list[str] = []
    line = ""
    for text in (_inline(n) for n in numbers):
        candidate = f"{line}, {text}" if line else text
        if line and indent + len(candidate) + 1 > WIDTH:
            lines.append(line + ",")
            candidate = text
        line = candidate
    lines.append(line)
    return "\n".join(" " * indent + part for part in lines)


def canonical(document: Any) -> str:
    """The canonical text of a parsed vector file, ending in a newline."""
    return _render(document, 0, "") + "\n"


def canonical_pieces(members: Iterable[tuple[str, Any]]) -> Iterator[str]:
    """``canonical`` of a file's top-level object given member by member, a piece at a
    time: a member whose value is an iterator (a large file's cases, read one by one) is
    laid out as the array of its items, each item as it comes. For a vector file, whose
    ``cases`` are objects."""
    yield "{"
    for index, (key, value) in enumerate(members):
        yield ",\n" if index else "\n"
        if not isinstance(value, Iterator):
            yield _render(value, 2, _inline(key) + ": ")
            continue
        first = next(value, _NONE)
        if first is _NONE:
            yield f"  {_inline(key)}: []"
            continue
        yield f"  {_inline(key)}: [\n" + _render(first, 4, "")
        for item in value:
            yield ",\n" + _render(item, 4, "")
        yield "\n  ]"
    yield "\n}\n"


_NONE = object()
