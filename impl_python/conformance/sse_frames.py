"""sse-frames JSON layer: feed the bytes of ``input.chunks`` to one fresh SseFrameBuffer."""

from __future__ import annotations

from typing import Any

from impl_python.sse import SseFrameBuffer


def chunk_bytes(chunks: list[str], encoding: str) -> list[bytes]:
    """The bytes each chunk stands for: its UTF-8 encoding for text cases, or, for
    ``"encoding": "bytes"``, one byte per code point (U+0000..U+00FF, i.e. Latin-1,
    which the schema guarantees)."""
    codec = "latin-1" if encoding == "bytes" else "utf-8"
    return [chunk.encode(codec) for chunk in chunks]


def run(case_input: dict[str, Any]) -> dict[str, Any]:
    """Return ``{"frames": [...]}`` for ``{"chunks": [...], "encoding"?: "bytes"}``."""
    buffer = SseFrameBuffer()
    frames = [
        frame
        for chunk in chunk_bytes(case_input["chunks"], case_input.get("encoding", "text"))
        for frame in buffer.feed(chunk)
    ]
    return {
        "frames": [{"event": f.event, "data": f.data, "id": f.id, "retry": f.retry} for f in frames]
    }
