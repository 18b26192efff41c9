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
from dataclasses import dataclass

__all__ = ["MAX_RETRY", "SseFrame", "SseFrameBuffer", "parse_retry"]

MAX_RETRY = 2**53 - 1
"""The largest accepted ``retry`` value (SSE-7d): every platform represents it exactly."""

_MAX_RETRY_DIGITS = str(MAX_RETRY)
_BOM = "\ufeff"


@dataclass(frozen=True, slots=True)
class SseFrame:
    """One dispatched block (SSE-8a). Unset fields are ``None``; ``data`` is ``""`` if unset."""

    event: str | None
    data: str
    id: str | None
    retry: int | None


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
_Utf8Decoder = codecs.getincrementaldecoder("utf-8")


class SseFrameBuffer:
    """Accumulates byte chunks and returns complete SSE frames."""

    __slots__ = (
        "_after_cr",
        "_data",
        "_decode",
        "_event",
        "_id",
        "_pending",
        "_retry",
        "_started",
        "_touched",
    )

    def __init__(self) -> None:
        self._decode = _Utf8Decoder("replace").decode  # holds a split sequence (SSE-11)
        self._started = False  # a code point has been decoded (SSE-2)
        self._after_cr = False  # the last code point fed was CR (SSE-3b)
        self._pending: list[str] = []  # pieces of the incomplete line (SSE-3d)
        # The current block (SSE-8c resets all of it).
        self._event: str | None = None
        self._data: list[str] = []
        self._id: str | None = None
        self._retry: int | None = None
        self._touched = False  # an event/data/id/retry line was accepted

    def feed(self, chunk: bytes) -> list[SseFrame]:
        """Feed one chunk of the stream; return the frames it completes, in order."""
        return self._feed_text(self._decode(chunk))

    def _feed_text(self, chunk: str) -> list[SseFrame]:
        """Parse the text decoded from one chunk (SSE-2 to SSE-9)."""
        if not chunk:
            return []
        if not self._started:
            self._started = True
            if chunk[0] == _BOM:  # SSE-2
                chunk = chunk[1:]
                if not chunk:
                    return []
        if self._after_cr and chunk[0] == "\n":  # SSE-3b
            chunk = chunk[1:]
            if not chunk:
                self._after_cr = False
                return []
        if "\r" in chunk:
            # SSE-3: CRLF and lone CR end lines like LF. A chunk-final CR ends its line now
            # (SSE-3a); the LF that may start the next chunk is swallowed above.
            self._after_cr = chunk[-1] == "\r"
            lines = chunk.replace("\r\n", "\n").replace("\r", "\n").split("\n")
        else:
            self._after_cr = False
            lines = chunk.split("\n")
        tail = lines.pop()  # the incomplete line, "" if the chunk ended a line (SSE-3d)
        if not lines:
            self._pending.append(tail)
            return []
        pending = self._pending
        if pending:
            pending.append(lines[0])
            lines[0] = "".join(pending)
            pending.clear()
        if tail:
            pending.append(tail)

        # SSE-4 to SSE-8, with the block state in locals for speed.
        frames: list[SseFrame] = []
        event, data, id_, retry, touched = (
            self._event,
            self._data,
            self._id,
            self._retry,
            self._touched,
        )
        for line in lines:
            if not line:  # SSE-4
                if touched:
                    frames.append(SseFrame(event, "\n".join(data), id_, retry))
                    event = id_ = retry = None
                    data = []
                    touched = False
                continue
            if line[:6] == "data: ":  # the common case, same result as below
                data.append(line[6:])
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
        self._event, self._data, self._id, self._retry, self._touched = (
            event,
            data,
            id_,
            retry,
            touched,
        )
        return frames
