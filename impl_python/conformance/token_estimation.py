"""token-estimation JSON layer: a bare text's cost, or a message list's counts."""

from __future__ import annotations

from typing import Any

from impl_python.tokens import (
    MessageText,
    ToolCallText,
    estimate_text,
    fill_token_counts,
    utf8_length,
)


def _message_in(raw: dict[str, Any]) -> MessageText:
    calls = raw.get("tool_calls") or ()
    return MessageText(
        content=raw["content"],
        token_count=raw.get("token_count"),
        tool_calls=tuple(ToolCallText(c["id"], c["name"], c.get("arguments", "")) for c in calls),
        tool_call_id=raw.get("tool_call_id"),
    )


def run(case_input: dict[str, Any]) -> dict[str, Any]:
    """``{"utf8_bytes", "tokens"}`` for a text; ``{"token_counts", "estimated",
    "total_tokens"}`` for messages (TokenCountError propagates with its code)."""
    if "text" in case_input:
        text = case_input["text"]
        return {"utf8_bytes": utf8_length(text), "tokens": estimate_text(text)}
    counts = fill_token_counts([_message_in(m) for m in case_input["messages"]])
    return {
        "token_counts": counts.token_counts,
        "estimated": counts.estimated,
        "total_tokens": counts.total_tokens,
    }
