"""sse-frames JSON layer: feed ``input.chunks`` to one fresh SseFrameBuffer."""

from __future__ import annotations

from typing import Any

from impl_python.sse import SseFrameBuffer


def run(case_input: dict[str, Any]) -> dict[str, Any]:
    """Return ``{"frames": [...]}`` for ``{"chunks": [...]}``."""
    chunks = case_input["chunks"]
    buffer = SseFrameBuffer()
    frames = [frame for chunk in chunks for frame in buffer.feed(chunk)]
    return {
        "frames": [{"event": f.event, "data": f.data, "id": f.id, "retry": f.retry} for f in frames]
    }
