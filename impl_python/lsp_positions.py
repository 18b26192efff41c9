"""LSP positions, line ends, document edits and base-protocol framing.

HIP-301 section 8 (``hanzo-lsp``); contract: docs/domains/lsp-positions.md.

>>> doc = TextDocument("a\\U0001f600b\\r\\nx")
>>> doc.offset_at(Position(0, 3), "utf-8")  # utf-16 character 3 is after the emoji
5
>>> doc.offset_at(Position(0, 2), "utf-16")  # inside the surrogate pair: before it
1
>>> doc.position_at(99, "utf-32")
Position(line=1, character=1)
>>> MessageReader().feed(b"Content-Length: 2\\r\\n\\r\\n{}")
['{}']
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from impl_python.errors import HanzoError

__all__ = [
    "ENCODINGS",
    "MAX_UINTEGER",
    "DuplicateContentLength",
    "Encoding",
    "EncodingNotOffered",
    "InvalidContent",
    "InvalidContentLength",
    "InvalidHeader",
    "InvalidOffset",
    "InvalidPosition",
    "InvalidRange",
    "Line",
    "LspError",
    "MessageReader",
    "MissingContentLength",
    "Position",
    "Range",
    "TextDocument",
    "UnknownEncoding",
    "UnsupportedCharset",
    "accept_position_encoding",
    "check_encoding",
    "negotiate_position_encoding",
    "units",
]

Encoding = Literal["utf-8", "utf-16", "utf-32"]
ENCODINGS: tuple[str, ...] = ("utf-8", "utf-16", "utf-32")
MAX_UINTEGER = 2**31 - 1
"""LSP ``uinteger``: the largest line, character, offset or Content-Length (LSP-5)."""


class LspError(HanzoError):
    """Base of every lsp-positions contract error."""

    code = "lsp_error"


class UnknownEncoding(LspError):
    """LSP-1: not one of utf-8, utf-16, utf-32."""

    code = "unknown_encoding"


class InvalidPosition(LspError):
    """LSP-5: a line or character outside [0, 2^31 - 1]."""

    code = "invalid_position"


class InvalidOffset(LspError):
    """LSP-5: an offset outside [0, 2^31 - 1]."""

    code = "invalid_offset"


class InvalidRange(LspError):
    """LSP-6: a range whose start comes after its end."""

    code = "invalid_range"


class InvalidHeader(LspError):
    """LSP-8b: a header field that is not ``name: value`` in ASCII."""

    code = "invalid_header"


class MissingContentLength(LspError):
    """LSP-8c: a header part without Content-Length."""

    code = "missing_content_length"


class InvalidContentLength(LspError):
    """LSP-8c: a Content-Length that is not 1*DIGIT up to 2^31 - 1."""

    code = "invalid_content_length"


class DuplicateContentLength(LspError):
    """LSP-8c: a second Content-Length field."""

    code = "duplicate_content_length"


class UnsupportedCharset(LspError):
    """LSP-8d: a Content-Type charset other than utf-8 / utf8."""

    code = "unsupported_charset"


class InvalidContent(LspError):
    """LSP-8f: content that is not well-formed UTF-8."""

    code = "invalid_content"


class EncodingNotOffered(LspError):
    """LSP-9b: the server chose an encoding the client did not offer."""

    code = "encoding_not_offered"


def check_encoding(name: object) -> Encoding:
    """``name`` if it is one of the three encodings, else UnknownEncoding (LSP-1)."""
    if name == "utf-8":
        return "utf-8"
    if name == "utf-16":
        return "utf-16"
    if name == "utf-32":
        return "utf-32"
    raise UnknownEncoding(f"unknown position encoding {name!r}")


def _width(code_point: int, encoding: Encoding) -> int:
    # utf-8 or utf-16: _boundary_at counts utf-32 (one unit per code point) itself.
    if encoding == "utf-16":
        return 2 if code_point > 0xFFFF else 1
    if code_point < 0x80:
        return 1
    if code_point < 0x800:
        return 2
    return 3 if code_point < 0x10000 else 4


def units(text: str, encoding: Encoding) -> int:
    """The length of ``text`` in ``encoding``'s code units (LSP-1)."""
    if encoding == "utf-32":
        return len(text)
    if encoding == "utf-16":
        return len(text) + sum(1 for c in text if ord(c) > 0xFFFF)
    return len(text.encode("utf-8"))


def _boundary_at(text: str, start: int, stop: int, count: int, encoding: Encoding) -> int:
    """The greatest code point index in [start, stop] with at most ``count`` units
    of ``encoding`` from ``start`` (LSP-3b/c, LSP-4a/b: snap back, never split)."""
    if encoding == "utf-32":
        return min(start + count, stop)
    used = 0
    at = start
    while at < stop:
        used += _width(ord(text[at]), encoding)
        if used > count:
            return at
        at += 1
    return stop


@dataclass(frozen=True)
class Position:
    """A zero-based line and a character counted in the document's position encoding."""

    line: int
    character: int


@dataclass(frozen=True)
class Range:
    """An LSP Range: ``start`` to ``end``."""

    start: Position
    end: Position


@dataclass(frozen=True)
class Line:
    """A line's content and its line end (``""`` for the last line), LSP-2."""

    text: str
    end: str


def _check_number(value: int, error: type[LspError], what: str) -> None:
    if not 0 <= value <= MAX_UINTEGER:
        raise error(f"{what} {value} is outside [0, 2^31 - 1]")


class TextDocument:
    """A text document addressed by LSP positions in one position encoding."""

    def __init__(self, text: str, encoding: str = "utf-16") -> None:
        self.encoding: Encoding = check_encoding(encoding)
        self._set_text(text)

    def _set_text(self, text: str) -> None:
        self._text = text
        # (start, content end, next start) of every line, in code point indices (LSP-2).
        spans: list[tuple[int, int, int]] = []
        start = 0
        for match in re.finditer(r"\r\n|\r|\n", text):
            spans.append((start, match.start(), match.end()))
            start = match.end()
        spans.append((start, len(text), len(text)))
        self._spans = spans
        self._unit_starts: dict[str, list[int]] = {}

    def _starts_in(self, unit: Encoding) -> list[int]:
        """Each line's start in ``unit``, then the document's length (once per text and unit)."""
        starts = self._unit_starts.get(unit)
        if starts is None:
            t = self._text
            starts = []
            total = 0
            for start, _, next_start in self._spans:
                starts.append(total)
                total += units(t[start:next_start], unit)
            starts.append(total)
            self._unit_starts[unit] = starts
        return starts

    @property
    def text(self) -> str:
        """The document text."""
        return self._text

    def lines(self) -> list[Line]:
        """Every line, with its line end (LSP-2)."""
        t = self._text
        return [Line(t[s:e], t[e:n]) for s, e, n in self._spans]

    def _index_of(self, position: Position) -> int:
        """The code point index ``position`` denotes (LSP-3)."""
        _check_number(position.line, InvalidPosition, "line")
        _check_number(position.character, InvalidPosition, "character")
        if position.line >= len(self._spans):
            return len(self._text)
        start, end, _ = self._spans[position.line]
        return _boundary_at(self._text, start, end, position.character, self.encoding)

    def offset_at(self, position: Position, unit: str) -> int:
        """The offset, in ``unit``, of the boundary ``position`` denotes (LSP-3)."""
        unit_encoding = check_encoding(unit)
        index = self._index_of(position)
        starts = self._starts_in(unit_encoding)
        if position.line >= len(self._spans):
            return starts[-1]
        start = self._spans[position.line][0]
        return starts[position.line] + units(self._text[start:index], unit_encoding)

    def position_at(self, offset: int, unit: str) -> Position:
        """The position of the greatest boundary at most ``offset`` ``unit``s in (LSP-4)."""
        unit_encoding = check_encoding(unit)
        _check_number(offset, InvalidOffset, "offset")
        starts = self._starts_in(unit_encoding)
        line = bisect.bisect_right(starts, offset, 0, len(self._spans)) - 1
        start, end, next_start = self._spans[line]
        index = _boundary_at(self._text, start, next_start, offset - starts[line], unit_encoding)
        index = min(index, end)  # inside a line end: the end of the content (LSP-4c)
        return Position(line, units(self._text[start:index], self.encoding))

    def apply_change(self, text: str, range: Range | None = None) -> None:
        """Apply one TextDocumentContentChangeEvent (LSP-6)."""
        if range is None:
            self._set_text(text)
            return
        start = self._index_of(range.start)
        end = self._index_of(range.end)
        if start > end:
            raise InvalidRange(f"range start (index {start}) is after its end (index {end})")
        self._set_text(self._text[:start] + text + self._text[end:])


_TOKEN = re.compile(rb"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
_VALUE = re.compile(rb"[\x20-\x7e\t]*")
_DIGITS = re.compile(rb"[0-9]+")
_HEADER_END = b"\r\n\r\n"


def _charset_ok(value: bytes) -> bool:
    """LSP-8d: the value's charset parameter, if any, is utf-8 or utf8."""
    for parameter in value.split(b";")[1:]:
        name, eq, raw = parameter.partition(b"=")
        if not eq or name.strip(b" \t").lower() != b"charset":
            continue
        charset = raw.strip(b" \t")
        if len(charset) >= 2 and charset.startswith(b'"') and charset.endswith(b'"'):
            charset = charset[1:-1]
        if charset.lower() not in (b"utf-8", b"utf8"):
            return False
    return True


def _content_length(header: bytes) -> int:
    """The Content-Length of a complete header part (without its final CRLF CRLF), LSP-8b-e."""
    length: int | None = None
    for field in header.split(b"\r\n") if header else ():
        name, colon, value = field.partition(b":")
        if not colon or not _TOKEN.fullmatch(name) or not _VALUE.fullmatch(value):
            raise InvalidHeader(f"malformed header field {field!r}")
        value = value.strip(b" \t")
        lowered = name.lower()
        if lowered == b"content-length":
            if length is not None:
                raise DuplicateContentLength("a second Content-Length field")
            if not _DIGITS.fullmatch(value) or int(value) > MAX_UINTEGER:
                raise InvalidContentLength(f"Content-Length {value!r} is not 1*DIGIT <= 2^31 - 1")
            length = int(value)
        elif lowered == b"content-type" and not _charset_ok(value):
            raise UnsupportedCharset(f"Content-Type {value!r}: only utf-8 is supported")
    if length is None:
        raise MissingContentLength("the header part has no Content-Length")
    return length


class MessageReader:
    """Splits a byte stream into LSP base-protocol messages (LSP-8)."""

    def __init__(self) -> None:
        self._buffer = bytearray()
        # (header size, content length) once a complete header part is read
        self._pending: tuple[int, int] | None = None

    @property
    def buffered(self) -> int:
        """Bytes received that belong to no complete message yet (LSP-8g)."""
        return len(self._buffer)

    def feed(self, data: bytes) -> list[str]:
        """Take ``data``; return the content of every message it completes, in order."""
        self._buffer += data
        messages: list[str] = []
        while True:
            if self._pending is None:
                end = self._buffer.find(_HEADER_END)
                if end < 0:
                    return messages
                length = _content_length(bytes(self._buffer[:end]))
                self._pending = (end + len(_HEADER_END), length)
            header_size, length = self._pending
            if len(self._buffer) - header_size < length:
                return messages
            body = bytes(self._buffer[header_size : header_size + length])
            try:
                messages.append(body.decode("utf-8"))
            except UnicodeDecodeError as exc:
                raise InvalidContent(f"content is not UTF-8: {exc}") from None
            del self._buffer[: header_size + length]
            self._pending = None


def negotiate_position_encoding(
    client_offers: Sequence[str] | None, server_supports: Sequence[str]
) -> str:
    """The encoding a server picks (LSP-9a): the client's first offer it supports, else utf-16."""
    supported = set(server_supports)
    for offer in client_offers or ():
        if offer in supported:
            return offer
    return "utf-16"


def accept_position_encoding(client_offers: Sequence[str] | None, server_answer: str | None) -> str:
    """The encoding in use after the server's answer, as its client checks it (LSP-9b)."""
    if server_answer is None or server_answer == "utf-16":
        return "utf-16"
    if server_answer in (client_offers or ()):
        return server_answer
    raise EncodingNotOffered(f"the server chose {server_answer!r}, which the client did not offer")
