"""session-compaction JSON layer: case input -> ``CompactionResult`` as JSON."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from impl_python.compaction import (
    CompactionResult,
    Message,
    SessionCompactor,
    Summary,
    ToolCall,
    placeholder_summarizer,
)


def _message_in(raw: dict[str, Any]) -> Message:
    calls = raw.get("tool_calls")
    message = object.__new__(Message)
    # Message is a frozen dataclass: its generated __init__ sets every field through
    # object.__setattr__, which was most of this layer's time per history entry.
    # Filling the new instance's __dict__ makes the same object (it has no
    # __post_init__); tests/test_compaction_layer.py checks both agree.
    vars(message).update(
        role=raw["role"],
        content=raw["content"],
        token_count=raw.get("token_count"),
        tool_calls=None if calls is None else tuple([ToolCall(c["id"], c["name"]) for c in calls]),
        tool_call_id=raw.get("tool_call_id"),
        summary=raw.get("summary"),
    )
    return message


def _message_out(message: Message) -> dict[str, Any]:
    out: dict[str, Any] = {
        "role": message.role,
        "content": message.content,
        "token_count": message.token_count,
    }
    if message.tool_calls is not None:
        out["tool_calls"] = [{"id": c.id, "name": c.name} for c in message.tool_calls]
    if message.tool_call_id is not None:
        out["tool_call_id"] = message.tool_call_id
    if message.summary is not None:
        out["summary"] = message.summary
    return out


def _result_out(result: CompactionResult) -> dict[str, Any]:
    return {
        "messages": [_message_out(m) for m in result.messages],
        "compacted_count": result.compacted_count,
        "tokens_saved": result.tokens_saved,
        "total_tokens": result.total_tokens,
        "over_budget": result.over_budget,
    }


class SummarizationFailed(RuntimeError):
    """What the ``summarizer_fails`` summarizer raises: a failed model call."""


def failing_summarizer(middle: Sequence[Message]) -> Summary:
    """``summarizer_fails``: every summarization call fails (COMP-11)."""
    raise SummarizationFailed(f"summarizing {len(middle)} messages failed")


def run(case_input: dict[str, Any]) -> dict[str, Any]:
    """Compact ``messages``; contract errors (CompactionError) propagate with their code."""
    max_tokens = case_input["max_tokens"]
    reserve_recent = case_input.get("reserve_recent")
    summary_tokens = case_input["summary_tokens"]
    compacted_tokens = case_input["compacted_tokens"]
    force = case_input.get("force")
    summarizer_fails = case_input.get("summarizer_fails", False)
    # Construction order is the validation order of COMP-3.
    # Absent optional inputs are left to the library's defaults (reserve_recent 3,
    # force False), so the vectors check those defaults too.
    if reserve_recent is None:
        compactor = SessionCompactor(max_tokens, compacted_tokens=compacted_tokens)
    else:
        compactor = SessionCompactor(max_tokens, reserve_recent, compacted_tokens=compacted_tokens)
    summarizer = placeholder_summarizer(summary_tokens)  # validates the cost either way
    compactor = compactor.with_summarizer(failing_summarizer if summarizer_fails else summarizer)
    # The history is read once the options passed their checks (COMP-3 checks it last).
    messages = [_message_in(m) for m in case_input["messages"]]
    if force is None:
        return _result_out(compactor.compact(messages))
    return _result_out(compactor.compact(messages, force=force))
