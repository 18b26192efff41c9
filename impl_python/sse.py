"""Incremental Server-Sent Events frame parsing (HIP-301 §3, contract: docs/domains/sse-frames.md).

``SseFrameBuffer().feed(chunk)`` takes byte chunks of the response body in stream
order and returns the frames each chunk completes. Bytes are decoded as UTF-8 by one
incremental decoder for the whole stream (SSE-11: invalid sequences become U+FFFD,
maximal subparts; a character split across chunks survives). Chunk boundaries never
change the result (SSE-1), and feeding is linear in the total input (SSE-10): only
newly fed text is scanned, and the pending incomplete line is held as a list of
pieces joined once per line.
"""

from __future__ import annotations

import codecs
from typing import NamedTuple

__all__ = ["MAX_RETRY", "SseFrame", "SseFrameBuffer", "parse_retry"]

MAX_RETRY = 2**53 - 1
"""The largest accepted ``retry`` value (SSE-7d): every platform represents it exactly."""

_MAX_RETRY_DIGITS = str(MAX_RETRY)
_BOM = "\ufeff"


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
_ASCII_CHARS = [chr(b) for b in range(0x80)]


def _has_other_line_breaks(text: str) -> bool:
    """Whether ``str.splitlines`` would also break ``text`` where SSE does not (SSE-3)."""
    return (
        "\x0b" in text
        or "\x0c" in text
        or "\x1c" in text
        or "\x1d" in text
        or "\x1e" in text
        or "\x85" in text
        or "\u2028" in text
        or "\u2029" in text
    )


_Block = tuple[str | None, list[str], str | None, int | None, bool]


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


# Python's UTF-8 decoder replaces exactly the maximal subparts that the WHATWG
# Encoding Standard's decoder replaces (checked by the SSE-11 vectors). The plain
# "utf-8" codec keeps a BOM; feed drops the first decoded U+FEFF itself (SSE-2).
# utf_8_decode with final=False is what codecs' incremental UTF-8 decoder calls, minus
# that decoder's Python-level wrapper (a third of the time at 512-byte chunks); feed
# holds the unconsumed tail itself.
_utf_8_decode = codecs.utf_8_decode


class SseFrameBuffer:
    """Accumulates byte chunks and returns complete SSE frames."""

    __slots__ = ("_block", "_held", "_pending", "_skip")

    def __init__(self) -> None:
        self._held = b""  # the start of a UTF-8 sequence cut by the end of a chunk (SSE-11)
        # The character dropped if it starts the next non-empty text: a BOM before any
        # text (SSE-2), LF right after a CR (SSE-3b), else "" (nothing).
        self._skip = _BOM
        self._pending: list[str] = []  # pieces of the incomplete line (SSE-3d)
        # The current block (SSE-8c resets all of it): event, data values, id, retry, and
        # whether an event/data/id/retry line was accepted. One tuple, read and written
        # once per chunk that ends a line.
        self._block: _Block = (None, [], None, None, False)

    def feed(self, chunk: bytes) -> list[SseFrame]:
        """Feed one chunk of the stream; return the frames it completes, in order."""
        # Everything runs inline in this one method: at one byte per chunk the cost
        # is mostly calls and attribute reads.
        held = self._held
        if not held and len(chunk) == 1 and chunk[0] < 0x80:
            # One ASCII byte and no split sequence held (c1 feeding): its own text.
            text = _ASCII_CHARS[chunk[0]]
        else:
            if held:
                chunk = held + chunk
            text, used = _utf_8_decode(chunk, "replace", False)
            if used != len(chunk):
                self._held = bytes(chunk[used:])  # a sequence cut by the chunk's end
            elif held:
                self._held = b""
        if not text:
            return []
        skip = self._skip
        if skip and text[0] == skip:
            text = text[1:]
            if not text:
                self._skip = ""
                return []
        if "\r" in text:
            # SSE-3: CRLF and lone CR end lines like LF. A text-final CR ends its line now
            # (SSE-3a); the LF that may start the next text is dropped above.
            self._skip = "\n" if text[-1] == "\r" else ""
            if _has_other_line_breaks(text):
                lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
            else:
                # Exactly SSE's three endings here; one C pass instead of two
                # replacements (replacing CRLF alone cost more than the split).
                lines = text.splitlines()
                if text[-1] in "\r\n":
                    lines.append("")  # split() keeps the empty piece after a final ending
        elif "\n" in text:
            if skip:
                self._skip = ""
            lines = text.split("\n")
        else:
            if skip:
                self._skip = ""
            self._pending.append(text)
            return []
        tail = lines.pop()  # the incomplete line, "" if the text ended a line (SSE-3d)
        pending = self._pending
        if pending:
            pending.append(lines[0])
            lines[0] = "".join(pending)
            pending.clear()
        if tail:
            pending.append(tail)

        # SSE-4 to SSE-8, with the block state in locals for speed.
        frames: list[SseFrame] = []
        event, data, id_, retry, touched = self._block
        for line in lines:
            if not line:  # SSE-4
                if touched:
                    frames.append(_new_tuple(SseFrame, (event, "\n".join(data), id_, retry)))
                    event = id_ = retry = None
                    data = []
                    touched = False
                continue
            # The common shapes first, each with the same result as the general path below.
            if line[:6] == "data: ":
                data.append(line[6:])
                touched = True
                continue
            if line[:7] == "event: ":
                event = line[7:] or None
                touched = True
                continue
            if line[:4] == "id: ":
                value = line[4:]
                if "\0" not in value:
                    id_ = value
                    touched = True
                continue
            colon = line.find(":")
            if colon == 0:  # SSE-5
                continue
            if colon < 0:  # SSE-6: the whole line is the name, the value is empty
                name = line
                value = ""
            else:
                name = line[:colon]
                value = line[colon + 2 :] if line.startswith(" ", colon + 1) else line[colon + 1 :]
            if name == "data":  # SSE-7b
                data.append(value)
                touched = True
            elif name == "event":  # SSE-7a: the empty value unsets the event type
                event = value or None
                touched = True
            elif name == "id":  # SSE-7c
                if "\0" not in value:
                    id_ = value
                    touched = True
            elif name == "retry":  # SSE-7d
                parsed = parse_retry(value)
                if parsed is not None:
                    retry = parsed
                    touched = True
            # SSE-7e: any other name is ignored.
        self._block = (event, data, id_, retry, touched)
        return frames
