"""mcp-stdio: server stdout made of whole and partial JSON-RPC lines, blank and log
lines, BOMs, CR/LF, non-ASCII and invalid bytes, cut anywhere (inside UTF-8 sequences
too), decoded alone or driving a session (initialize, calls, tool pages, list_changed).

Only the stdout operations (``decode``, ``session``) are drawn: their inputs carry the
``/chunks`` the vector file's ``rechunk`` variant needs, so a candidate is a valid case
of ``vectors/mcp-stdio.json``.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

from hypothesis import strategies as st

from . import Property, Response, body, described, records

_INIT = '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18"}}\n'

# Pieces whose concatenations hit the decoder's and the session's states. Line
# endings are listed several times: they are what chunk boundaries must not change.
PIECES = (
    "",
    _INIT,
    "\n",
    '{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"a"},{"name":"a.b"}],"nextCursor":"c"}}\n',
    '{"jsonrpc":"2.0","id":3,"result":{"tools":[{"name":"a_b"}]}}\n',
    '{"jsonrpc":"2.0","id":3,"result":{"tools":[],"nextCursor":"c"}}\n',
    '{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}\n',
    "\r\n",
    '{"jsonrpc":"2.0","id":"1","result":1}\n',
    '{"jsonrpc":"2.0","id":2.0,"result":"x"}\n',
    '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}\n',
    '{"jsonrpc":"2.0","id":4,"error":{"code":-1,"message":"m","data":[1]}}\n',
    '{"jsonrpc":"2.0","id":"p","method":"ping"}\n',
    '{"jsonrpc":"2.0","id":7,"method":"roots/list"}\n',
    '{"jsonrpc":"1.0","id":8,"method":"ping"}\n',
    '{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"m"}}\n',
    "[]\n",
    "\n",
    "log line\n",
    "\r",
    "\ufeff",
    '{"jsonrpc":"2.0",',
    '"id":2,"result":"caf\u00e9 \U0001f600"}',
    '"id":3,"result":{"tools":[{"name":"\u00e9"}]}}',
    '"method":"notifications/message","params":{"x":"\u2028"}}',
    "\n",
    " \t",
    '{"jsonrpc":"2.0","id":9007199254740992,"result":0}\n',
    '{"jsonrpc":"2.0","id":2,"result":"\\ud800"}\n',
    "\r\n",
)

SIZE = 16

# Byte sequences that are not UTF-8 (for the bytes form): a lone continuation byte,
# a truncated 3-byte sequence, an encoded surrogate.
BAD_UTF8 = (b"\xff", b"\xe2\x82", b"\xed\xa0\x80")

_PIECE_OF_BYTE = tuple(PIECES[(b & 0x7F) % len(PIECES)] for b in range(256))
_BYTES_OF_BYTE = tuple(
    BAD_UTF8[(b & 0x7F) % len(BAD_UTF8)]
    if b & 0x7F >= 120
    else PIECES[(b & 0x7F) % len(PIECES)].encode("utf-8")
    for b in range(256)
)


def _text_and_cuts(raw: bytes) -> tuple[str, list[int]]:
    # Each byte is one piece (low 7 bits) and, with its high bit, a chunk boundary
    # before it.
    text, cuts = "", []
    for b in raw:
        if b & 0x80 and text:
            cuts.append(len(text))
        text += _PIECE_OF_BYTE[b]
    return text, cuts


def split(text: str, cuts: list[int]) -> list[str]:
    bounds = [0, *cuts, len(text)]
    return [text[a:z] for a, z in itertools.pairwise(bounds)]


def _byte_chunks(raw: bytes) -> list[str]:
    """The byte form: pieces UTF-8 encoded (now and then invalid bytes), cut at byte
    positions, also inside a multi-byte character; one code point per byte."""
    pieces, cuts, length = [], set(), 0
    for b in raw:
        if b & 0x80 and length:
            cuts.add(max(0, length - (b >> 5 & 3)))  # at the end, or 1-3 bytes in
        piece = _BYTES_OF_BYTE[b]
        pieces.append(piece)
        length += len(piece)
    data = b"".join(pieces)
    bounds = [0, *sorted(cuts), length]
    return [data[a:z].decode("latin-1") for a, z in itertools.pairwise(bounds)]


# Byte 0: the operation and its flags; byte 1: calls and max_line_bytes; then pieces.
RECORD = 2 + SIZE

_CALLS = ({"method": "a"}, {"method": "tools/call", "params": {"name": "a"}})


def decode(record: bytes) -> dict[str, Any]:
    flags, extra, raw = record[0], record[1], record[2:]
    if flags & 4:
        case: dict[str, Any] = {"op": "decode", "chunks": _byte_chunks(raw), "encoding": "bytes"}
    else:
        case = {"op": "decode", "chunks": split(*_text_and_cuts(raw))}
    if flags & 1:
        case["op"] = "session"
        if flags & 8:
            case["list_tools"] = {"server": "s"}
        calls = extra & 3
        if calls:
            case["calls"] = [_CALLS[i % 2] for i in range(calls)]
    if flags & 2:
        case["eof"] = True
    if extra & 0x70 == 0x70:
        case["max_line_bytes"] = 1 + (extra >> 2 & 3) * 30
    return case


def inputs() -> st.SearchStrategy[dict[str, Any]]:
    return records(RECORD, decode)


def clauses(case_input: Any, response: Response) -> set[str]:
    chunks: list[str] = case_input["chunks"]
    text = "".join(chunks)
    found = {"STDIO-2", "STDIO-7"}
    if case_input.get("encoding") == "bytes":
        text = text.encode("latin-1").decode("utf-8", "replace")
    if sum(1 for c in chunks if c) > 1:
        found.add("STDIO-1")
    if text.startswith("\ufeff"):
        found.add("STDIO-3")
    if "\n\n" in text or "\n\r\n" in text or text.startswith("\n"):
        found.add("STDIO-4")
    if case_input.get("eof") and text and not text.endswith("\n"):
        found.add("STDIO-5b")
    if "max_line_bytes" in case_input:
        found.add("STDIO-6")
    output = response.get("output") or {}
    if output.get("writes"):
        found.add("STDIO-10")
    if case_input["op"] == "session":
        found.update(("STDIO-12", "STDIO-13", "STDIO-14"))
        if "list_tools" in case_input:
            found.add("STDIO-15")
    return found


def _same_output(probe: tuple[str, list[int]], responses: Sequence[Response]) -> str | None:
    whole, *others = responses
    for chunking, other in zip(("as drawn", "one code point a chunk"), others, strict=True):
        if body(other) != body(whole):
            return f"chunked {chunking}: {described(other)}; as one chunk: {described(whole)}"
    return None


def _chunkings(probe: tuple[str, list[int]]) -> list[Any]:
    text, cuts = probe
    return [
        {"op": "session", "chunks": chunks, "list_tools": {"server": "s"}, "eof": True}
        for chunks in ([text], split(text, cuts), list(text))
    ]


PROPERTIES = (
    Property(
        name="session-independent-of-chunking",
        clauses=("STDIO-1",),
        probes=st.binary(min_size=SIZE, max_size=SIZE).map(_text_and_cuts),
        requests=_chunkings,
        check=_same_output,
        candidate=lambda probe: {
            "op": "session",
            "chunks": split(*probe),
            "list_tools": {"server": "s"},
            "eof": True,
        },
        record=SIZE,
        decode=_text_and_cuts,
    ),
)
