"""sse-frames: line endings at and across chunk boundaries, BOMs, comments, fields,
astral and combining characters, NULs, and retry values at the integer edges."""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from typing import Any

from hypothesis import strategies as st

from . import Property, Response, body, described, records

# Pieces that, concatenated, hit the parser's states: whole field lines, field names
# with and without colon and space, comments, the BOM (leading or not), the
# characters text decoders get wrong, and retry values at the integer edges. Line
# endings are listed several times: they are what chunk boundaries must not change.
PIECES = (
    "",
    "data: a",
    "\n",
    "\r",
    "\r\n",
    "data",
    "data:",
    "data: ",
    "\n",
    "\r",
    "\r\n",
    "event: e",
    "event:",
    "id: 1",
    "id:",
    "retry: 5",
    "retry:",
    "\n",
    "\r",
    "\r\n",
    ":",
    ": c",
    " ",
    "\ufeff",
    "\x00",
    "data: b",
    "é",
    "e\u0301",
    "\U0001f600",
    "\u2028",
    "\n",
    "\r",
    "0",
    "-1",
    "1.5",
    "9007199254740991",
    "9007199254740992",
    "99999999999999999999",
    "id",
    "retry",
    "event",
    "\t",
)


# Pieces per input: fixed, since a zero byte is the empty piece (see strategies.joined).
SIZE = 20


def _text_and_cuts(raw: bytes) -> tuple[str, list[int]]:
    # Each byte is one piece (its low 7 bits) and, when its high bit is set, a chunk
    # boundary before that piece: one Hypothesis choice per input.
    text, cuts = "", []
    for b in raw:
        if b & 0x80 and text:
            cuts.append(len(text))
        text += PIECES[(b & 0x7F) % len(PIECES)]
    return text, cuts


def text_and_cuts() -> st.SearchStrategy[tuple[str, list[int]]]:
    return st.binary(min_size=SIZE, max_size=SIZE).map(_text_and_cuts)


def split(text: str, cuts: list[int]) -> list[str]:
    bounds = [0, *cuts, len(text)]
    return [text[a:b] for a, b in itertools.pairwise(bounds)]


# Byte sequences that are not valid UTF-8: lone continuation/invalid byte, truncated
# 2- and 3-byte sequences, an encoded surrogate, an overlong '/', a truncated emoji.
BAD_UTF8 = (b"\xff", b"\xc3", b"\xe2\x82", b"\xed\xa0\x80", b"\xc0\xaf", b"\xf0\x9f\x98")


# byte -> the bytes it stands for in the byte form (its low 7 bits pick them)
_BYTES_OF_BYTE = tuple(
    BAD_UTF8[(b & 0x7F) % len(BAD_UTF8)]
    if b & 0x7F >= 120
    else PIECES[(b & 0x7F) % len(PIECES)].encode("utf-8")
    for b in range(256)
)


def _bytes_case(raw: bytes) -> dict[str, Any]:
    """The byte form (SSE-11): pieces UTF-8 encoded (now and then invalid bytes), cut at
    byte positions, also inside a multi-byte character; one code point per byte."""
    pieces, cuts, length = [], set(), 0
    for b in raw:
        if b & 0x80 and length:
            cuts.add(max(0, length - (b >> 5 & 3)))  # at the end, or 1-3 bytes in
        piece = _BYTES_OF_BYTE[b]
        pieces.append(piece)
        length += len(piece)
    data = b"".join(pieces)
    bounds = [0, *sorted(cuts), length]
    chunks = [data[a:z].decode("latin-1") for a, z in itertools.pairwise(bounds)]
    return {"chunks": chunks, "encoding": "bytes"}


# One byte for the form (text, or bytes now and then), then SIZE pieces.
RECORD = 1 + SIZE


_PIECE_OF_BYTE = tuple(PIECES[(b & 0x7F) % len(PIECES)] for b in range(256))


def _chunks(raw: bytes) -> list[str]:
    """``split(*_text_and_cuts(raw))``, built chunk by chunk (it runs on every input)."""
    chunks: list[list[str]] = [[]]
    length = 0
    for b in raw:
        piece = _PIECE_OF_BYTE[b]
        if b & 0x80 and length:
            chunks.append([piece])
        else:
            chunks[-1].append(piece)
        length += len(piece)
    return ["".join(chunk) for chunk in chunks]


def decode(record: bytes) -> dict[str, Any]:
    if record[0] % 4 == 3:
        return _bytes_case(record[1:])
    return {"chunks": _chunks(record[1:])}


def inputs() -> st.SearchStrategy[dict[str, Any]]:
    return records(RECORD, decode)


_FIELD_LINE = re.compile(r"(?:^|\n)(?:event|id|retry)(?::|\n|$)")


def clauses(case_input: Any, response: Response) -> set[str]:
    # Runs on every passing input, so it works on the whole text with C-speed
    # string methods rather than line by line.
    chunks: list[str] = case_input["chunks"]
    text = "".join(chunks)
    found = {"SSE-6"}
    if case_input.get("encoding") == "bytes":
        found.add("SSE-11")
        text = text.encode("latin-1").decode("utf-8", "replace")
    if len(chunks) > 1 and sum(1 for c in chunks if c) > 1:
        found.add("SSE-1")
    if text.startswith("\ufeff"):
        found.add("SSE-2")
    if "\r" in text:
        found.add("SSE-3")
    lines = text.replace("\r\n", "\n").replace("\r", "\n")
    if lines.startswith("\n") or "\n\n" in lines:
        found.add("SSE-4")  # an empty line (not the last, unterminated one)
    if lines.startswith(":") or "\n:" in lines:
        found.add("SSE-5")
    if _FIELD_LINE.search(lines):
        found.add("SSE-7")
    if (response.get("output") or {}).get("frames"):
        found.add("SSE-8")
    if lines and not lines.endswith("\n"):
        found.add("SSE-9")
    return found


def _same_frames(probe: tuple[str, list[int]], responses: Sequence[Response]) -> str | None:
    whole, *others = responses
    for chunking, other in zip(("as drawn", "one code point a chunk"), others, strict=True):
        if body(other) != body(whole):
            return f"chunked {chunking}: {described(other)}; as one chunk: {described(whole)}"
    return None


def _chunkings(probe: tuple[str, list[int]]) -> list[Any]:
    text, cuts = probe
    return [{"chunks": [text]}, {"chunks": split(text, cuts)}, {"chunks": list(text)}]


PROPERTIES = (
    Property(
        name="frames-independent-of-chunking",
        clauses=("SSE-1",),
        probes=text_and_cuts(),
        requests=_chunkings,
        check=_same_frames,
        candidate=lambda probe: {"chunks": split(*probe)},
        record=SIZE,
        decode=_text_and_cuts,
    ),
)
