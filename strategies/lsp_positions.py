"""lsp-positions: documents of line ends (lone CR, CR LF, LF, and the Unicode breaks
that are not LSP line ends), astral and multi-byte characters, positions and offsets
inside characters and past every end, changes by range; framed byte streams with
header faults and content lengths counted in characters; negotiation lists."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hypothesis import strategies as st

from . import Property, Reader, Response, body, described, records

# Index 0 is the simplest choice of every read (a record shrinks toward zero bytes).
_PIECES = ("", "a", "\r", "\n", "\r\n", "b", "\u00e9", "\u20ac", "\U0001f600", "\u2028",
           "\u0085", "\f", "\u65e5", " ", "\r\r", "\n\r")  # fmt: skip
_ENCODINGS = ("utf-16", "utf-8", "utf-32", None) * 3 + ("UTF-8",)
_UNITS = ("utf-16", "utf-8", "utf-32") * 4 + ("bytes",)
_OPS = ("lines", "offset_at", "position_at", "change", "offset_at", "position_at")
_NUMBERS = (0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 2**31 - 1, 2**31, -1)
_FIELDS = ("Content-Length: {n}", "content-length:{n}", "CONTENT-LENGTH:  {n} ",
           "Content-Type: application/vscode-jsonrpc; charset=utf-8",
           "Content-Type: x; charset=utf8",
           "Content-Length: {n}", "X-Trace: 1", "Content-Length: {n}",
           "Content-Type: x; charset=latin1", "X-Trace: 1", "Content-Length : {n}",
           "Content-Length: +{n}", "Content-Length: 0{n}", "", "Content-Length {n}",
           "X: \u00e9")  # fmt: skip
_BODIES = ("", "{}", "\u00e9", "\U0001f600", "\r\n\r\n", "[1]", "\ufeff")
_OFFERS = ("utf-8", "utf-16", "utf-32", "utf-7")

DOC_RECORD = 48
FRAME_RECORD = 24
RECORD = 1 + DOC_RECORD


def _number(reader: Reader) -> int:
    b = reader.byte()
    return b % 12 if b < 240 else _NUMBERS[b % len(_NUMBERS)]


def _position(reader: Reader) -> dict[str, int]:
    return {"line": _number(reader) % 5 if reader.byte() < 250 else _number(reader),
            "character": _number(reader)}  # fmt: skip


def _op(reader: Reader) -> dict[str, Any]:
    kind = reader.pick(_OPS)
    if kind == "lines":
        return {"op": "lines"}
    if kind == "offset_at":
        return {"op": "offset_at", **_position(reader)}
    if kind == "position_at":
        b = reader.byte()
        return {"op": "position_at", "offset": b % 40 if b < 250 else _NUMBERS[b % len(_NUMBERS)]}
    change: dict[str, Any] = {"op": "change", "text": reader.joined(_PIECES, 2)}
    if reader.byte() % 4 != 3:
        change["range"] = {"start": _position(reader), "end": _position(reader)}
    return change


def _document(reader: Reader) -> dict[str, Any]:
    text = reader.joined(_PIECES, 12)
    encoding = reader.pick(_ENCODINGS)
    case: dict[str, Any] = {"text": text}
    if encoding is not None:
        case["encoding"] = encoding
    case["offset_unit"] = reader.pick(_UNITS)
    case["ops"] = [_op(reader) for _ in range(1 + reader.byte() % 4)]
    return case


def _message(reader: Reader) -> bytes:
    content = reader.joined(_BODIES, 2).encode("utf-8")
    kind = reader.byte() % 6
    # The right length, one off, or the length in characters (LSP-8f).
    n = (len(content), len(content) + 1, max(0, len(content) - 1),
         len(content.decode("utf-8")), len(content), len(content))[kind]  # fmt: skip
    fields = [reader.pick(_FIELDS).format(n=n) for _ in range(1 + reader.byte() % 3)]
    if not any("{n}" in f for f in _FIELDS if f.format(n=n) in fields):
        fields.insert(0, f"Content-Length: {n}")
    header = "\r\n".join(fields) + ("\r\n\r\n" if reader.byte() % 8 else "\n\n")
    return header.encode("utf-8") + content


def _frames(reader: Reader) -> dict[str, Any]:
    data = b"".join(_message(reader) for _ in range(1 + reader.byte() % 2))
    text = data.decode("latin-1")
    cuts = sorted({reader.byte() % (len(text) + 1) for _ in range(reader.byte() % 3)})
    return {"chunks": split(text, cuts)}


def split(text: str, cuts: Sequence[int]) -> list[str]:
    """``text`` cut at the ascending ``cuts``."""
    out, last = [], 0
    for cut in cuts:
        out.append(text[last:cut])
        last = cut
    out.append(text[last:])
    return out


def decode(record: bytes) -> dict[str, Any]:
    reader = Reader(record)
    kind = reader.byte() % 8
    if kind < 5:
        return _document(reader)
    if kind < 7:
        return _frames(reader)
    offers = [reader.pick(_OFFERS) for _ in range(reader.byte() % 4)]
    if reader.byte() % 2:
        supports = [reader.pick(_OFFERS) for _ in range(reader.byte() % 4)]
        return {"negotiate": {"client_offers": offers, "server_supports": supports}}
    answer = reader.byte()
    spec: dict[str, Any] = {"client_offers": offers}
    if answer % 5:
        spec["server_answer"] = _OFFERS[answer % 4]
    return {"accept": spec}


def inputs() -> st.SearchStrategy[dict[str, Any]]:
    return records(RECORD, decode)


_CODE_CLAUSES = {
    "unknown_encoding": "LSP-1",
    "invalid_position": "LSP-5",
    "invalid_offset": "LSP-5",
    "invalid_range": "LSP-6",
    "invalid_header": "LSP-8b",
    "missing_content_length": "LSP-8c",
    "invalid_content_length": "LSP-8c",
    "duplicate_content_length": "LSP-8c",
    "unsupported_charset": "LSP-8d",
    "invalid_content": "LSP-8f",
    "encoding_not_offered": "LSP-9b",
}
_OP_CLAUSES = {"lines": "LSP-2", "offset_at": "LSP-3", "position_at": "LSP-4", "change": "LSP-6"}


def clauses(case_input: Any, response: Response) -> set[str]:
    if "error" in response:
        code = response["error"].get("code")
        return {_CODE_CLAUSES.get(code, "LSP-7")}
    if "chunks" in case_input:
        return {"LSP-8a", "LSP-8f", "LSP-8g"}
    if "negotiate" in case_input:
        return {"LSP-9a"}
    if "accept" in case_input:
        return {"LSP-9b"}
    found = {"LSP-1", "LSP-2", "LSP-7"}
    found |= {_OP_CLAUSES[op["op"]] for op in case_input["ops"]}
    return found


# -- property: framing does not depend on how the bytes are chunked (LSP-8a) ------


def _stream(record: bytes) -> tuple[str, list[int]]:
    reader = Reader(record)
    text = "".join(_frames(reader)["chunks"])
    cuts = sorted({reader.byte() % (len(text) + 1) for _ in range(1 + reader.byte() % 3)})
    return text, cuts


def _chunkings(probe: tuple[str, list[int]]) -> list[Any]:
    text, cuts = probe
    return [{"chunks": [text]}, {"chunks": split(text, cuts)}, {"chunks": list(text)}]


def _same_messages(probe: tuple[str, list[int]], responses: Sequence[Response]) -> str | None:
    whole, *others = responses
    for chunking, other in zip(("as cut", "one byte a chunk"), others, strict=True):
        if body(other) != body(whole):
            return f"chunked {chunking}: {described(other)}; as one chunk: {described(whole)}"
    return None


PROPERTIES = (
    Property(
        name="messages-independent-of-chunking",
        clauses=("LSP-8a",),
        probes=records(FRAME_RECORD + 4, _stream),
        requests=_chunkings,
        check=_same_messages,
        candidate=lambda probe: {"chunks": split(*probe)},
        record=FRAME_RECORD + 4,
        decode=_stream,
    ),
)
