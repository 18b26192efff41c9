"""stream-assembly JSON layer: feed ``input.frames`` to one StreamAssembler, then end()."""

from __future__ import annotations

from typing import Any

from impl_python.sse import SseFrame
from impl_python.stream_assembly import (
    ContentDelta,
    MessageStop,
    StreamAssembler,
    StreamError,
    StreamEvent,
    ToolUse,
)


def event_json(event: StreamEvent) -> dict[str, Any]:
    """One event as the contract's JSON layer writes it."""
    if isinstance(event, ContentDelta):
        return {"type": "content_delta", "text": event.text}
    if isinstance(event, ToolUse):
        return {
            "type": "tool_use",
            "id": event.id,
            "name": event.name,
            "input": event.input,
            "input_json": event.input_json,
            "input_error": event.input_error,
        }
    if isinstance(event, MessageStop):
        return {
            "type": "message_stop",
            "stop_reason": event.stop_reason,
            "provider_stop_reason": event.provider_stop_reason,
        }
    assert isinstance(event, StreamError)
    return {"type": "error", "error_type": event.error_type, "message": event.message}


def run(case_input: dict[str, Any]) -> dict[str, Any]:
    """Return ``{"events": [...], "usage": ...}`` for ``{"dialect", "frames"}``."""
    assembler = StreamAssembler(case_input["dialect"])
    events: list[StreamEvent] = []
    for frame in case_input["frames"]:
        events.extend(
            assembler.feed(SseFrame(frame["event"], frame["data"], frame["id"], frame["retry"]))
        )
    events.extend(assembler.end())
    usage = assembler.usage
    return {
        "events": [event_json(e) for e in events],
        "usage": None
        if usage is None
        else {"input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens},
    }
