"""JSON pointers (RFC 6901): the one implementation the harness uses."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

MISSING: Any = type("Missing", (), {"__repr__": lambda self: "<missing>"})()


def parse(pointer: str) -> list[str]:
    """The unescaped segments of ``pointer`` (``""`` is the whole document)."""
    if pointer == "":
        return []
    if not pointer.startswith("/"):
        raise ValueError(f"not a JSON pointer: {pointer!r}")
    return [p.replace("~1", "/").replace("~0", "~") for p in pointer[1:].split("/")]


def escape(segment: object) -> str:
    return str(segment).replace("~", "~0").replace("/", "~1")


def format_pointer(segments: Iterable[object]) -> str:
    """The pointer naming ``segments`` (keys or indices)."""
    return "".join("/" + escape(s) for s in segments)


def is_index(segment: str) -> bool:
    """An array index as RFC 6901 spells it: ``0`` or digits without a leading zero."""
    canonical = segment == "0" or segment[:1] in ("1", "2", "3", "4", "5", "6", "7", "8", "9")
    return canonical and segment.isascii() and segment.isdigit()


def resolve(document: Any, pointer: str) -> Any:
    """The value at ``pointer`` in ``document``, or MISSING."""
    node = document
    for seg in parse(pointer):
        if isinstance(node, Mapping) and seg in node:
            node = node[seg]
        elif isinstance(node, list) and is_index(seg) and int(seg) < len(node):
            node = node[int(seg)]
        else:
            return MISSING
    return node
