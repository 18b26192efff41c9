"""Incremental Server-Sent Events frame parsing (HIP-301 §3, contract: docs/domains/sse-frames.md).

``SseFrameBuffer().feed(chunk)`` takes byte chunks of the response body in stream
order and returns the frames each chunk completes. Lines are found in the bytes and
each finished value is decoded as UTF-8, which equals decoding the whole stream
(SSE-11: invalid sequences become U+FFFD, maximal subparts; a character split across
chunks survives, see the note at ``_decode``). Chunk boundaries never change the result
(SSE-1), and feeding is linear in the total input (SSE-10): only newly fed bytes are
scanned, and the pending incomplete line is held as a list of pieces joined once per
line.
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["MAX_RETRY", "SseFrame", "SseFrameBuffer", "parse_retry"]

MAX_RETRY = 2**53 - 1
"""The largest accepted ``retry`` value (SSE-7d): every platform represents it exactly."""

_MAX_RETRY_DIGITS = str(MAX_RETRY)


class SseFrame(NamedTuple):
    """One dispatched block (SSE-8a). Unset fields are ``None``; ``data`` is ``""`` if unset.

    A named tuple (immutable, compared field by field) because a parser builds one per
    event: built with ``tuple.__new__`` it costs a quarter of a frozen dataclass's
    ``__init__``, which was the largest single cost per event (bench/README.md).
    """

    event: str | None
    data: str
    id: str | None
    retry: int | None


_new_tuple = tuple.__new__
_BOM = b"\xef\xbb\xbf"  # UTF-8 of U+FEFF, dropped at the stream's start (SSE-2)

_Block = tuple[str | None, list[bytes], str | None, int | None, bool]


def parse_retry(value: str) -> int | None:
    """Return the ``retry`` value, or ``None`` if the line is to be ignored (SSE-7d)."""
    if not value or not value.isascii() or not value.isdigit():
        return None
    digits = value.lstrip("0")
    if len(digits) > len(_MAX_RETRY_DIGITS) or (
        len(digits) == len(_MAX_RETRY_DIGITS) and digits > _MAX_RETRY_DIGITS
    ):
        return None
    return int(digits) if digits else 0


# The parse runs on bytes and decodes only finished values (SSE-11). This is exact: the
# bytes that end lines (CR, LF), separate a name from its value (":", " ") and join data
# lines (LF) are ASCII, and an ASCII byte never belongs to a UTF-8 sequence (a decoder
# ends a cut or invalid sequence at it and decodes it as itself), so decoding each value
# alone gives the characters that decoding the whole stream would. Python's UTF-8 decoder
# replaces exactly the maximal subparts that the WHATWG Encoding Standard's decoder
# replaces (checked by the SSE-11 vectors). It is also faster: splitting text that holds
# any non-ASCII character builds every line with a character-width scan, and bytes need
# no check for the other characters str.splitlines breaks at (bytes.splitlines breaks
# only at CR, LF and CRLF: SSE-3).


def _decode(raw: bytes) -> str:
    return raw.decode("utf-8", "replace")


class SseFrameBuffer:
    """Accumulates byte chunks and returns complete SSE frames."""

    __slots__ = ("_block", "_pending", "_skip_lf", "_start")

    def __init__(self) -> None:
        # Bytes at the stream's start that may still be a cut BOM (SSE-2), or None once the
        # start is settled.
        self._start: bytes | None = b""
        self._skip_lf = False  # the last chunk ended with CR: a first LF is its CRLF (SSE-3b)
        self._pending: list[bytes] = []  # pieces of the incomplete line (SSE-3d)
        # The current block (SSE-8c resets all of it): event, raw data values, id, retry,
        # and whether an event/data/id/retry line was accepted. One tuple, read and
        # written once per chunk that ends a line.
        self._block: _Block = (None, [], None, None, False)

    def feed(self, chunk: bytes) -> list[SseFrame]:
        """Feed one chunk of the stream; return the frames it completes, in order."""
        # Everything runs inline in this one method: at one byte per chunk the cost
        # is mostly calls and attribute reads.
        if self._start is not None:
            chunk = self._start + chunk
            if len(chunk) < 3 and _BOM.startswith(chunk):
                self._start = chunk  # perhaps a BOM cut by the chunk's end
                return []
            self._start = None
            if chunk[:3] == _BOM:
                chunk = chunk[3:]
        if self._skip_lf:
            if not chunk:
                return []
            self._skip_lf = False
            if chunk[0] == 0x0A:
                chunk = chunk[1:]
        if 0x0D in chunk:  # an int operand: a memchr, no substring search
            # SSE-3: CRLF and lone CR end lines like LF. A chunk-final CR ends its line now
            # (SSE-3a); the LF that may start the next chunk is dropped above.
            last = chunk[-1]
            self._skip_lf = last == 0x0D
            lines = chunk.splitlines()
            if last in b"\r\n":
                lines.append(b"")  # split() keeps the empty piece after a final ending
        elif 0x0A in chunk:
            lines = chunk.split(b"\n")
        else:
            if chunk:
                self._pending.append(chunk)
            return []
        tail = lines.pop()  # the incomplete line, b"" if the chunk ended a line (SSE-3d)
        pending = self._pending
        if pending:
            pending.append(lines[0])
            lines[0] = b"".join(pending)
            pending.clear()
        if tail:
            pending.append(tail)

        # SSE-4 to SSE-8, with the block state in locals for speed.
        frames: list[SseFrame] = []
        event, data, id_, retry, touched = self._block
        for line in lines:
            if not line:  # SSE-4
                if touched:
                    text = b"\n".join(data).decode("utf-8", "replace")
                    frames.append(_new_tuple(SseFrame, (event, text, id_, retry)))
                    event = id_ = retry = None
                    data = []
                    touched = False
                continue
            # The common shapes first, each with the same result as the general path
            # below, picked by the first byte (an int: no slice is built for it).
            first = line[0]
            if first == 0x64:  # "d"
                if line[:6] == b"data: ":
                    data.append(line[6:])
                    touched = True
                    continue
            elif first == 0x3A:  # ":", a comment (SSE-5)
                continue
            elif first == 0x65:  # "e"
                if line[:7] == b"event: ":
                    event = line[7:].decode("utf-8", "replace") or None
                    touched = True
                    continue
            elif first == 0x69 and line[:4] == b"id: ":  # "i"
                value = line[4:]
                if b"\0" not in value:
                    id_ = value.decode("utf-8", "replace")
                    touched = True
                continue
            colon = line.find(b":")
            if colon == 0:  # SSE-5
                continue
            if colon < 0:  # SSE-6: the whole line is the name, the value is empty
                name = line
                value = b""
            else:
                name = line[:colon]
                value = line[colon + 2 :] if line.startswith(b" ", colon + 1) else line[colon + 1 :]
            if name == b"data":  # SSE-7b
                data.append(value)
                touched = True
            elif name == b"event":  # SSE-7a: the empty value unsets the event type
                event = _decode(value) or None
                touched = True
            elif name == b"id":  # SSE-7c
                if b"\0" not in value:
                    id_ = _decode(value)
                    touched = True
            elif name == b"retry":  # SSE-7d
                parsed = parse_retry(_decode(value))
                if parsed is not None:
                    retry = parsed
                    touched = True
            # SSE-7e: any other name is ignored.
        self._block = (event, data, id_, retry, touched)
        return frames
