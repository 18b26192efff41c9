"""Token-budget session compaction (HIP-301 "Session compaction").

The contract is docs/domains/session-compaction.md; clause ids (COMP-n) below
refer to it. In short: keep the system prompt and the last ``reserve_recent``
turns; when the total exceeds 90% of ``max_tokens`` (or when forced, as by a
manual ``/compact``), first replace tool results in the middle with
``"[compacted]"``, and if that is not enough, replace the whole middle with one
summary message from the user role, or drop the middle if the summarizer fails.
A message without a ``token_count`` is costed by the token estimator (COMP-13).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from impl_python.errors import HanzoError
from impl_python.tokens import ToolCallText, estimate_message

__all__ = [
    "COMPACTED",
    "SUMMARY_ROLE",
    "CompactionError",
    "CompactionResult",
    "InvalidBudget",
    "InvalidMessages",
    "InvalidReserve",
    "InvalidTokenCount",
    "Message",
    "SessionCompactor",
    "Summarizer",
    "Summary",
    "ToolCall",
    "estimated_token_count",
    "placeholder_summarizer",
    "trigger_threshold",
]

COMPACTED = "[compacted]"
"""Content of a pruned tool result (COMP-9)."""

MAX_SAFE_INTEGER = 2**53 - 1
DEFAULT_COMPACTED_TOKENS = 3
DEFAULT_SUMMARY_TOKENS = 16
_ROLES = frozenset({"system", "user", "assistant", "tool"})


class CompactionError(HanzoError):
    """Base of the session-compaction contract errors."""

    code = "compaction_error"


class InvalidBudget(CompactionError):
    """``max_tokens`` is not null and below 1 (COMP-3.1)."""

    code = "invalid_budget"


class InvalidReserve(CompactionError):
    """``reserve_recent`` is negative (COMP-3.2)."""

    code = "invalid_reserve"


class InvalidTokenCount(CompactionError):
    """A negative token cost, or a total above 2**53 - 1 (COMP-3)."""

    code = "invalid_token_count"


class InvalidMessages(CompactionError):
    """The history is not well-formed (COMP-4)."""

    code = "invalid_messages"


@dataclass(frozen=True)
class ToolCall:
    """One tool call made by an assistant message."""

    id: str
    name: str


@dataclass(frozen=True)
class Message:
    """A history entry; ``None`` optional fields are absent (COMP-2). A ``token_count``
    of None is estimated by ``compact`` (COMP-13)."""

    role: str
    content: str
    token_count: int | None = None
    tool_calls: tuple[ToolCall, ...] | None = None
    tool_call_id: str | None = None
    summary: bool | None = None


@dataclass(frozen=True)
class Summary:
    """What a summarizer returns: the text and its cost in tokens."""

    content: str
    token_count: int


Summarizer = Callable[[Sequence[Message]], Summary]
"""Turns the pruned middle into one summary; raising any ``Exception`` is a failed
summarization call, and the compactor then truncates instead (COMP-11)."""

SUMMARY_ROLE = "user"
"""The role of the summary message (COMP-12): providers reject a history whose first
non-system message is not from the user."""


@dataclass(frozen=True)
class CompactionResult:
    """The outcome of ``compact`` (COMP-1)."""

    messages: list[Message]
    compacted_count: int
    tokens_saved: int
    total_tokens: int
    over_budget: bool


def trigger_threshold(max_tokens: int) -> int:
    """T = max_tokens - ceil(max_tokens / 10); ``total > T`` iff ``total > 0.9 * max_tokens``."""
    return max_tokens - -(-max_tokens // 10)


def placeholder_summarizer(token_count: int) -> Summarizer:
    """A summarizer writing ``"Summary of N earlier messages."`` at a fixed cost.

    Raises InvalidTokenCount at once if ``token_count`` is negative.
    """
    if token_count < 0:
        raise InvalidTokenCount(f"summary token_count {token_count} is negative")

    def summarize(messages: Sequence[Message]) -> Summary:
        return Summary(f"Summary of {len(messages)} earlier messages.", token_count)

    return summarize


def estimated_token_count(message: Message) -> int:
    """The token-estimation estimate of ``message`` (COMP-13): its content (and
    ``tool_call_id``) as one part, each tool call's id and name as another."""
    calls = [ToolCallText(call.id, call.name) for call in message.tool_calls or ()]
    return estimate_message(message.content, tool_calls=calls, tool_call_id=message.tool_call_id)


def _counted(messages: Sequence[Message]) -> Sequence[Message]:
    """``messages`` with every missing ``token_count`` set to its estimate (COMP-13)."""
    if all(message.token_count is not None for message in messages):
        return messages
    return [
        message
        if message.token_count is not None
        else dataclasses.replace(message, token_count=estimated_token_count(message))
        for message in messages
    ]


def _cost(message: Message) -> int:
    # Every message is counted (_counted) before any total is taken.
    count = message.token_count
    return estimated_token_count(message) if count is None else count


def _checked_total(messages: Sequence[Message]) -> int:
    total = 0
    for message in messages:
        total += _cost(message)
        if total > MAX_SAFE_INTEGER:
            raise InvalidTokenCount("total token count exceeds 2**53 - 1")
    return total


def _validate(messages: Sequence[Message]) -> None:
    """COMP-3 steps 4 and 5 (COMP-4)."""
    for index, message in enumerate(messages):
        if message.token_count is not None and message.token_count < 0:
            raise InvalidTokenCount(f"messages[{index}].token_count is negative")
    call_ids: set[str] = set()
    answered: set[str] = set()
    for index, message in enumerate(messages):
        where = f"messages[{index}]"
        if message.role not in _ROLES:
            raise InvalidMessages(f"{where}: unknown role {message.role!r}")
        if message.role == "system" and index != 0:
            raise InvalidMessages(f"{where}: a system message is allowed only at index 0")
        if message.tool_calls is not None:
            if message.role != "assistant":
                raise InvalidMessages(f"{where}: only assistant messages have tool_calls")
            for call in message.tool_calls:
                if not call.id or call.id in call_ids:
                    raise InvalidMessages(f"{where}: tool call id {call.id!r} is empty or reused")
                call_ids.add(call.id)
        if message.summary is not None and message.role not in ("user", "assistant"):
            raise InvalidMessages(f"{where}: only user and assistant messages have summary")
        if message.role == "tool":
            call_id = message.tool_call_id
            if call_id is None or call_id not in call_ids:
                raise InvalidMessages(f"{where}: tool result does not answer an earlier call")
            if call_id in answered:
                raise InvalidMessages(f"{where}: call {call_id!r} already has a result")
            answered.add(call_id)
        elif message.tool_call_id is not None:
            raise InvalidMessages(f"{where}: only tool messages have tool_call_id")


def _turn_starts(messages: Sequence[Message], body_start: int) -> list[int]:
    """Start indices of the body's turns, ascending (COMP-5)."""
    return [
        index
        for index in range(body_start, len(messages))
        if index == body_start or messages[index].role == "user"
    ]


def _recent_start(messages: Sequence[Message], body_start: int, reserve: int) -> int:
    """The first index of the recent region (COMP-6)."""
    starts = _turn_starts(messages, body_start)
    if reserve == 0:
        recent = len(messages)
    elif len(starts) <= reserve:
        recent = body_start
    else:
        recent = starts[-reserve]
    caller_of: dict[str, int] = {}
    for index, message in enumerate(messages):
        for call in message.tool_calls or ():
            caller_of[call.id] = index
    moved = True
    while moved:
        moved = False
        for message in messages[recent:]:
            if message.role != "tool" or message.tool_call_id is None:
                continue
            caller = caller_of[message.tool_call_id]
            if caller < recent:
                recent = max(start for start in starts if start <= caller)
                moved = True
                break
    return recent


class SessionCompactor:
    """Compacts a conversation history to fit a token budget (HIP-301)."""

    def __init__(
        self,
        max_tokens: int | None,
        reserve_recent: int = 3,
        *,
        compacted_tokens: int = DEFAULT_COMPACTED_TOKENS,
        summarizer: Summarizer | None = None,
    ) -> None:
        if max_tokens is not None and max_tokens < 1:
            raise InvalidBudget(f"max_tokens must be at least 1 or None, got {max_tokens}")
        if reserve_recent < 0:
            raise InvalidReserve(f"reserve_recent must be >= 0, got {reserve_recent}")
        if compacted_tokens < 0:
            raise InvalidTokenCount(f"compacted_tokens {compacted_tokens} is negative")
        self.max_tokens = max_tokens
        self.reserve_recent = reserve_recent
        self.compacted_tokens = compacted_tokens
        self.summarizer: Summarizer = (
            placeholder_summarizer(DEFAULT_SUMMARY_TOKENS) if summarizer is None else summarizer
        )

    def with_summarizer(self, summarizer: Summarizer) -> SessionCompactor:
        """A copy of this compactor that summarizes with ``summarizer``."""
        return SessionCompactor(
            self.max_tokens,
            self.reserve_recent,
            compacted_tokens=self.compacted_tokens,
            summarizer=summarizer,
        )

    def compact(self, messages: Sequence[Message], *, force: bool = False) -> CompactionResult:
        """Return the compacted history (COMP-1 .. COMP-12); ``messages`` is not modified.

        ``force`` (a manual ``/compact``, COMP-7) compacts whatever the total and the
        budget: the middle is pruned and then summarized (or truncated).
        """
        messages = _counted(messages)
        _validate(messages)
        before = _checked_total(messages)
        unchanged = CompactionResult(
            list(messages),
            0,
            0,
            before,
            self.max_tokens is not None and before > self.max_tokens,
        )
        threshold = None if self.max_tokens is None else trigger_threshold(self.max_tokens)
        if not force and (threshold is None or before <= threshold):
            return unchanged
        body_start = 1 if messages and messages[0].role == "system" else 0
        recent = _recent_start(messages, body_start, self.reserve_recent)
        if recent == body_start:
            return unchanged

        pruned = list(messages)
        pruned_count = 0
        for index in range(body_start, recent):
            message = pruned[index]
            if message.role == "tool" and message.content != COMPACTED:
                pruned[index] = dataclasses.replace(
                    message, content=COMPACTED, token_count=self.compacted_tokens
                )
                pruned_count += 1
        after_prune = _checked_total(pruned)
        if threshold is not None and not force and after_prune <= threshold:
            return self._result(pruned, pruned_count, before)

        middle = pruned[body_start:recent]
        try:
            summary = self.summarizer(middle)
        except Exception:  # any failed summarization call (COMP-11)
            return self._result([*messages[:body_start], *messages[recent:]], len(middle), before)
        if summary.token_count < 0:
            raise InvalidTokenCount(f"summary token_count {summary.token_count} is negative")
        summary_message = Message(SUMMARY_ROLE, summary.content, summary.token_count, summary=True)
        result = [*messages[:body_start], summary_message, *messages[recent:]]
        return self._result(result, len(middle), before)

    def _result(self, messages: list[Message], compacted: int, before: int) -> CompactionResult:
        total = _checked_total(messages)
        over = self.max_tokens is not None and total > self.max_tokens
        return CompactionResult(messages, compacted, before - total, total, over)
