"""Derived inputs: one case run several ways, as the vector file's ``variants`` declare."""

from __future__ import annotations

import copy
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from ._pointer import parse as parse_pointer


def _set(document: Any, pointer: str, value: Any) -> Any:
    parts = parse_pointer(pointer)
    if not parts:
        return value
    out = copy.deepcopy(document)
    node = out
    for seg in parts[:-1]:
        node = node[int(seg)] if isinstance(node, list) else node[seg]
    last = parts[-1]
    if isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value
    return out


def _get(document: Any, pointer: str) -> Any:
    node = document
    for seg in parse_pointer(pointer):
        node = node[int(seg)] if isinstance(node, list) else node[seg]
    return node


def rechunkings(chunks: Sequence[str]) -> Iterator[tuple[str, list[str]]]:
    """The joined text one code point per chunk, then split in two at every boundary."""
    text = "".join(chunks)
    yield "one-per-chunk", list(text)
    for i in range(1, len(text)):
        yield f"split@{i}", [text[:i], text[i:]]


def expand(case_input: Any, variants: Sequence[Mapping[str, Any]]) -> list[tuple[str | None, Any]]:
    """The original input (variant name None) followed by every derived input."""
    out: list[tuple[str | None, Any]] = [(None, case_input)]
    for variant in variants:
        if variant["kind"] == "rechunk":
            path = variant["path"]
            for name, chunks in rechunkings(_get(case_input, path)):
                out.append((name, _set(case_input, path, chunks)))
        else:  # the vector-file schema admits no other kind
            raise ValueError(f"unknown variant kind {variant['kind']!r}")
    return out
