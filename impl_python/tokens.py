"""Token estimation: the ``token_count`` of a message that has none.

The contract is docs/domains/token-estimation.md; clause ids (TOK-n) below refer to
it. In short: strings are measured in UTF-8 bytes (TOK-1); a part of ``b`` bytes
costs ``b // 4 + 1`` tokens (TOK-2); a message is one text part (its content, and a
tool result's ``tool_call_id``) plus one part per tool call (id, name and arguments
as given, TOK-3, TOK-4); a given ``token_count`` is kept (TOK-5).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from impl_python.errors import HanzoError

__all__ = [
    "MessageText",
    "TokenCountError",
    "TokenCounts",
    "ToolCallText",
    "estimate_message",
    "estimate_text",
    "fill_token_counts",
    "part_cost",
    "utf8_length",
]

MAX_SAFE_INTEGER = 2**53 - 1


class TokenCountError(HanzoError):
    """A given ``token_count`` is negative, or the total exceeds 2**53 - 1 (TOK-5)."""

    code = "invalid_token_count"


@dataclass(frozen=True)
class ToolCallText:
    """The strings of one tool call that the estimate counts (TOK-3.2)."""

    id: str
    name: str
    arguments: str = ""


@dataclass(frozen=True)
class MessageText:
    """A message as the estimator sees it; ``token_count`` None means none given."""

    content: str
    token_count: int | None = None
    tool_calls: tuple[ToolCallText, ...] = ()
    tool_call_id: str | None = None


@dataclass(frozen=True)
class TokenCounts:
    """Each message's count, whether it was estimated, and their total (TOK-5)."""

    token_counts: list[int]
    estimated: list[bool]
    total_tokens: int


def utf8_length(text: str) -> int:
    """bytes(text) of TOK-1; a lone surrogate counts 3, as its WTF-8 form does."""
    if text.isascii():
        return len(text)
    return len(text.encode("utf-8", "surrogatepass"))


def part_cost(byte_count: int) -> int:
    """TOK-2: ``floor(b / 4) + 1``."""
    return byte_count // 4 + 1


def estimate_text(text: str) -> int:
    """The cost of ``text`` as one part (TOK-2)."""
    return part_cost(utf8_length(text))


def estimate_message(
    content: str,
    *,
    tool_calls: Iterable[ToolCallText] = (),
    tool_call_id: str | None = None,
) -> int:
    """TOK-3: the text part (content, plus ``tool_call_id``) and one part per tool call."""
    text_bytes = utf8_length(content)
    if tool_call_id is not None:
        text_bytes += utf8_length(tool_call_id)
    total = part_cost(text_bytes)
    for call in tool_calls:
        call_bytes = utf8_length(call.id) + utf8_length(call.name) + utf8_length(call.arguments)
        total += part_cost(call_bytes)
    return total


def fill_token_counts(messages: Sequence[MessageText]) -> TokenCounts:
    """Keep given counts, estimate missing ones, and sum them (TOK-5).

    Raises TokenCountError for a negative given count (the first, front to back) or
    a total above 2**53 - 1.
    """
    for index, message in enumerate(messages):
        if message.token_count is not None and message.token_count < 0:
            raise TokenCountError(f"message {index}: token_count {message.token_count} is negative")
    counts: list[int] = []
    estimated: list[bool] = []
    total = 0
    for message in messages:
        if message.token_count is None:
            count = estimate_message(
                message.content, tool_calls=message.tool_calls, tool_call_id=message.tool_call_id
            )
        else:
            count = message.token_count
        counts.append(count)
        estimated.append(message.token_count is None)
        total += count
        if total > MAX_SAFE_INTEGER:
            raise TokenCountError("total token count exceeds 2**53 - 1")
    return TokenCounts(counts, estimated, total)
