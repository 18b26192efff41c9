"""Derived inputs: one case run several ways, as the vector file's ``variants`` declare.

``rechunk`` re-splits the text held as a list of strings at ``path``. The derived
chunkings, in this order (``docs/architecture.md``, "variants"):

* ``one-per-chunk``: one code point per chunk;
* ``split@k``: two chunks, the first holding ``k`` code points, for ascending ``k``:
  every ``0 < k < n`` when the text has ``n <= ALL_SPLITS_UP_TO`` code points;
  otherwise exactly ``SPLIT_POINTS`` of them, chosen deterministically (see
  ``split_points``).

So a case costs a bounded number of runs, each as long as its text: time linear in
its length, and the chunkings are generated lazily, one at a time. The Rust
(``impl_rust/hanzo-conformance/src/variants.rs``) and JS (``impl_js/test/variants.js``)
runners expand alike; ``tests/tables/variants.json`` is the table all three pass.
"""

from __future__ import annotations

import copy
import re
from array import array
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from .pointer import parse as parse_pointer

ALL_SPLITS_UP_TO = 256
"""Texts of at most this many code points are split at every boundary."""

SPLIT_POINTS = 64
"""Longer texts are split at exactly this many boundaries..."""

PREFERRED_SPLITS = 32
"""...of which at most this many are next to one of PREFERRED (the rest evenly spaced)."""

PREFERRED = frozenset("\r\n\ufeff:")
"""Code points where chunking bugs live: line endings (CR, LF, CRLF split), the BOM,
and the field colon."""

_INDEX = re.compile(r"0|[1-9][0-9]*")
_PREFERRED_RE = re.compile("[" + "".join(sorted(PREFERRED)) + "]")


class VariantError(ValueError):
    """A variant does not apply to an input; ``kind`` is ``path-missing`` or
    ``not-a-list-of-strings`` (the names tests/tables/variants.json uses)."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


def _child(node: Any, segment: str) -> tuple[bool, Any]:
    if isinstance(node, dict):
        return (True, node[segment]) if segment in node else (False, None)
    if isinstance(node, list) and _INDEX.fullmatch(segment) and int(segment) < len(node):
        return True, node[int(segment)]
    return False, None


def chunks_at(document: Any, pointer: str) -> list[str]:
    """The list of strings at ``pointer``; VariantError if absent or anything else."""
    node = document
    for segment in parse_pointer(pointer):
        found, node = _child(node, segment)
        if not found:
            raise VariantError("path-missing", f"the input has nothing at {pointer!r}")
    if not isinstance(node, list) or not all(isinstance(c, str) for c in node):
        raise VariantError(
            "not-a-list-of-strings", f"the input at {pointer!r} is not a list of strings"
        )
    return node


def _replaced(document: Any, pointer: str, value: Any) -> Any:
    """A copy of ``document`` with ``value`` at ``pointer`` (which chunks_at found)."""
    parts = parse_pointer(pointer)
    if not parts:
        return value
    out = copy.deepcopy(document)  # strings are shared, so this costs the structure, not the text
    node = out
    for segment in parts[:-1]:
        node = node[int(segment)] if isinstance(node, list) else node[segment]
    node[int(parts[-1]) if isinstance(node, list) else parts[-1]] = value
    return out


def _evenly(count: int, total: int, centred: bool) -> list[int]:
    """``count`` distinct ordinals in ``range(total)`` (count <= total), spread evenly."""
    if centred:
        return [(2 * i + 1) * total // (2 * count) for i in range(count)]
    return [i * total // count for i in range(count)]


def _preferred_boundaries(text: str) -> Iterator[int]:
    """Ascending boundaries 0 < k < len(text) with a PREFERRED code point on either side."""
    last = 0
    for match in _PREFERRED_RE.finditer(text):
        at = match.start()
        for k in (at, at + 1):
            if last < k < len(text):
                yield k
                last = k


def split_points(text: str) -> list[int]:
    """The ``k`` of the ``split@k`` chunkings of ``text``, ascending.

    With ``n`` code points: every ``0 < k < n`` if ``n <= ALL_SPLITS_UP_TO``. Else
    ``SPLIT_POINTS`` boundaries: a boundary is *preferred* when the code point
    before or after it is in PREFERRED; of the ``p`` preferred boundaries,
    ``m = min(p, PREFERRED_SPLITS)`` are taken, those with ordinals
    ``i * p // m`` (``i < m``) in ascending order; the other ``SPLIT_POINTS - m``
    are taken from the boundaries not yet taken (``q`` of them, ascending) at
    ordinals ``(2j + 1) * q // (2 * (SPLIT_POINTS - m))``. One pass over the text.
    """
    n = len(text)
    if n <= ALL_SPLITS_UP_TO:
        return list(range(1, n))
    preferred = array("q", _preferred_boundaries(text))  # 8 bytes per boundary
    p = len(preferred)
    m = min(p, PREFERRED_SPLITS)
    taken = [preferred[i] for i in _evenly(m, p, centred=False)]
    rest = SPLIT_POINTS - m
    chosen = list(taken)
    for t in _evenly(rest, n - 1 - m, centred=True):
        k = t + 1  # the t-th boundary of 1..n-1, skipping those already taken
        for s in taken:
            if s <= k:
                k += 1
        chosen.append(k)
    return sorted(chosen)


def rechunkings(chunks: Sequence[str]) -> Iterator[tuple[str, list[str]]]:
    """The joined text one code point per chunk, then split in two at each split point."""
    text = "".join(chunks)
    yield "one-per-chunk", list(text)
    for k in split_points(text):
        yield f"split@{k}", [text[:k], text[k:]]


def expand(
    case_input: Any, variants: Sequence[Mapping[str, Any]]
) -> Iterator[tuple[str | None, Any]]:
    """The original input (variant name None), then every derived input, made one at a time.

    Raises VariantError before anything is made when a variant does not apply
    (validation rejects such files), as the Rust and JS expanders do.
    """
    texts = []
    for variant in variants:
        if variant["kind"] != "rechunk":  # the vector-file schema admits no other kind
            raise ValueError(f"unknown variant kind {variant['kind']!r}")
        texts.append((variant["path"], chunks_at(case_input, variant["path"])))
    return _derived(case_input, texts)


def _derived(
    case_input: Any, texts: list[tuple[str, list[str]]]
) -> Iterator[tuple[str | None, Any]]:
    yield None, case_input
    for path, chunks in texts:
        for name, rechunked in rechunkings(chunks):
            yield name, _replaced(case_input, path, rechunked)
