"""SSE frames into HIP-301 StreamEvents, assembling tool calls (docs/domains/stream-assembly.md).

A ``StreamAssembler`` for one dialect (``anthropic`` or ``openai-chat``) is fed the
frames of one response (sse-frames' ``SseFrame``, or anything with ``event`` and
``data``) and returns the ``ContentDelta``, ``ToolUse``, ``MessageStop`` and
``StreamError`` events they complete; ``end()`` is called when the body ends.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Protocol

MAX_SAFE = 2**53 - 1
MAX_DEPTH = 64
DIALECTS = ("anthropic", "openai-chat")
_WHITESPACE = " \t\n\r"
# Lone surrogates can only come from \uD800-\uDFFF escapes; a text without one needs no walk.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_OPENAI_STOP_REASONS = {
    "stop": "end_turn",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
    "length": "max_tokens",
}


class _Invalid(ValueError):
    """Not strict I-JSON (STREAM-6c), or a payload field of the wrong type (STREAM-2)."""


@dataclass(frozen=True, slots=True)
class ContentDelta:
    """A piece of the assistant's text (STREAM-3); never empty."""

    text: str


@dataclass(frozen=True, slots=True)
class ToolUse:
    """One assembled tool call (STREAM-6): ``input`` is None exactly when ``input_error`` is set."""

    id: str
    name: str
    input: dict[str, Any] | None
    input_json: str
    input_error: str | None


@dataclass(frozen=True, slots=True)
class MessageStop:
    """The message ended (STREAM-8): the common stop reason and the provider's own."""

    stop_reason: str | None
    provider_stop_reason: str | None


@dataclass(frozen=True, slots=True)
class StreamError:
    """The stream failed (STREAM-7, STREAM-2b, STREAM-8d); nothing follows it."""

    error_type: str
    message: str


@dataclass(frozen=True, slots=True)
class Usage:
    """Token counts (STREAM-9); a count is None until the provider sends it."""

    input_tokens: int | None
    output_tokens: int | None


StreamEvent = ContentDelta | ToolUse | MessageStop | StreamError


class Frame(Protocol):
    """What the assembler reads of an SSE frame (sse-frames' ``SseFrame`` has both)."""

    @property
    def event(self) -> str | None: ...

    @property
    def data(self) -> str: ...


def _parse_int(text: str) -> int | float:
    # STREAM-6e: integers within +-MAX_SAFE stay exact, others become the nearest double.
    if len(text) <= 17:
        value = int(text)
        if -MAX_SAFE <= value <= MAX_SAFE:
            return value
    return _number(float(text))


def _parse_float(text: str) -> int | float:
    return _number(float(text))


def _number(value: float) -> int | float:
    if value in (float("inf"), float("-inf")):
        raise _Invalid("a number beyond binary64")
    if value.is_integer() and -MAX_SAFE <= value <= MAX_SAFE:
        return int(value)  # 1.5e3 is 1500, -0 is 0
    return value


def _parse_constant(text: str) -> Any:
    raise _Invalid(f"{text} is not JSON")


_DECODER = json.JSONDecoder(
    parse_int=_parse_int, parse_float=_parse_float, parse_constant=_parse_constant
)


def _walk(value: Any, depth: int, strings: bool) -> None:
    if isinstance(value, dict):
        if depth >= MAX_DEPTH:
            raise _Invalid("nested deeper than 64 levels")
        for key, item in value.items():
            if strings:
                _check_string(key)
            _walk(item, depth + 1, strings)
    elif isinstance(value, list):
        if depth >= MAX_DEPTH:
            raise _Invalid("nested deeper than 64 levels")
        for item in value:
            _walk(item, depth + 1, strings)
    elif strings and isinstance(value, str):
        _check_string(value)


def _check_string(text: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise _Invalid("a lone surrogate") from None


def loads(text: str) -> Any:
    """Parse ``text`` as strict I-JSON with STREAM-6e's numbers; raise ``ValueError`` if not."""
    try:
        value = _DECODER.decode(text)
    except (ValueError, RecursionError) as error:
        raise _Invalid(str(error)) from None
    deep = text.count("{") + text.count("[") > MAX_DEPTH
    strings = _SURROGATE_ESCAPE.search(text) is not None
    if deep or strings:
        try:
            _walk(value, 0, strings)
        except RecursionError:
            raise _Invalid("nested too deep") from None
    return value


def _optional(payload: dict[str, Any], key: str, kind: type) -> Any:
    """``payload[key]`` if of ``kind``, None if absent or null; anything else is invalid."""
    value = payload.get(key)
    if value is None or isinstance(value, kind):
        return value
    raise _Invalid(f"{key} is not a {kind.__name__}")


def _index(value: Any) -> int:
    if type(value) is int and 0 <= value <= MAX_SAFE:
        return value
    raise _Invalid("index is not an integer in [0, MAX_SAFE]")


def _tool_use(id_: str, name: str, text: str, empty: dict[str, Any]) -> ToolUse:
    if not text.strip(_WHITESPACE):
        return ToolUse(id_, name, empty, text, None)  # STREAM-6b, STREAM-4d
    try:
        value = loads(text)
    except _Invalid:
        return ToolUse(id_, name, None, text, "invalid_json")
    if not isinstance(value, dict):
        return ToolUse(id_, name, None, text, "not_object")
    return ToolUse(id_, name, value, text, None)


class _Slot:
    __slots__ = ("id", "index", "name", "parts", "start_input")

    def __init__(self, index: int, id_: str, name: str, start_input: dict[str, Any]) -> None:
        self.index = index
        self.id = id_
        self.name = name
        self.parts: list[str] = []
        self.start_input = start_input

    def emit(self) -> ToolUse:
        return _tool_use(self.id, self.name, "".join(self.parts), self.start_input)


class StreamAssembler:
    """Turns one response's SSE frames into StreamEvents (docs/domains/stream-assembly.md)."""

    __slots__ = (
        "_anthropic",
        "_current",
        "_finished",
        "_slots",
        "_started",
        "_stop",
        "usage",
    )

    def __init__(self, dialect: str) -> None:
        if dialect not in DIALECTS:
            raise ValueError(f"unknown dialect {dialect!r}; expected one of {DIALECTS}")
        self._anthropic = dialect == "anthropic"
        self._finished = False
        self._stop: str | None = None
        self.usage: Usage | None = None
        # anthropic: every started index (STREAM-4a); openai-chat: unused.
        self._started: set[int] = set()
        # The open slot per index, and (openai-chat) every slot not yet emitted, in open order.
        self._current: dict[int, _Slot] = {}
        self._slots: list[_Slot] = []

    def feed(self, frame: Frame) -> list[StreamEvent]:
        """The events completed by ``frame`` (STREAM-1)."""
        if self._finished:
            return []
        data = frame.data
        if not data:
            return []  # STREAM-2a
        if not self._anthropic and data == "[DONE]":
            return self._done()
        try:
            payload: Any = loads(data)
        except _Invalid:
            payload = None  # not JSON, so not an object either
        if frame.event == "error" or (
            isinstance(payload, dict)
            and (payload.get("type") == "error" or payload.get("error") is not None)
        ):
            return [self._error(payload, data)]
        if not isinstance(payload, dict):
            return [self._fail("invalid_event")]
        feed = self._feed_anthropic if self._anthropic else self._feed_openai
        try:
            return feed(payload)
        except _Invalid:
            # STREAM-2: a broken frame emits only the error, nothing it held before the fault.
            return [self._fail("invalid_event")]

    def end(self) -> list[StreamEvent]:
        """The body ended: an ``incomplete_stream`` error unless the message stopped (STREAM-8d)."""
        if self._finished:
            return []
        return [self._fail("incomplete_stream")]

    def _fail(self, error_type: str) -> StreamError:
        self._finished = True
        self._current.clear()
        self._slots.clear()
        return StreamError(error_type, "")

    def _error(self, payload: Any, data: str) -> StreamError:
        # STREAM-7b
        error_type, message = "unknown", ""
        if isinstance(payload, dict):
            error = payload.get("error")
            if isinstance(error, dict):
                kind, code, text = error.get("type"), error.get("code"), error.get("message")
                if isinstance(kind, str) and kind:
                    error_type = kind
                elif isinstance(code, str) and code:
                    error_type = code
                if isinstance(text, str):
                    message = text
            elif isinstance(error, str):
                message = error
        else:
            message = data  # not a JSON object: its text
        self._fail("unknown")
        return StreamError(error_type, message)

    def _set_usage(self, usage: Any, input_key: str, output_key: str) -> None:
        if not isinstance(usage, dict):
            return
        old = self.usage or Usage(None, None)
        new_in, new_out = usage.get(input_key), usage.get(output_key)
        self.usage = Usage(
            new_in if type(new_in) is int and new_in >= 0 else old.input_tokens,
            new_out if type(new_out) is int and new_out >= 0 else old.output_tokens,
        )

    # anthropic (STREAM-3a, STREAM-4, STREAM-8a)

    def _feed_anthropic(self, payload: dict[str, Any]) -> list[StreamEvent]:
        kind = payload.get("type")
        out: list[StreamEvent] = []
        if kind == "content_block_delta":
            index = _index(payload.get("index"))
            if index not in self._started:
                raise _Invalid("a delta for a block never started")
            delta = payload.get("delta")
            if not isinstance(delta, dict):
                raise _Invalid("delta is not an object")
            delta_type = delta.get("type")
            if delta_type == "text_delta":
                text = _optional(delta, "text", str)
                if text:
                    out.append(ContentDelta(text))
            elif delta_type == "input_json_delta":
                part = _optional(delta, "partial_json", str)
                slot = self._current.get(index)
                if part and slot is not None:
                    slot.parts.append(part)
        elif kind == "content_block_start":
            index = _index(payload.get("index"))
            block = payload.get("content_block")
            if not isinstance(block, dict):
                raise _Invalid("content_block is not an object")
            if index in self._started:
                raise _Invalid("a second start at one index")
            if block.get("type") == "tool_use":
                id_ = _optional(block, "id", str) or ""
                name = _optional(block, "name", str) or ""
                start_input = block.get("input")
                self._current[index] = _Slot(
                    index, id_, name, start_input if isinstance(start_input, dict) else {}
                )
            self._started.add(index)
        elif kind == "content_block_stop":
            index = _index(payload.get("index"))
            if index not in self._started:
                raise _Invalid("a stop for a block never started")
            slot = self._current.pop(index, None)
            if slot is not None:
                out.append(slot.emit())
        elif kind == "message_start":
            message = payload.get("message")
            if isinstance(message, dict):
                self._set_usage(message.get("usage"), "input_tokens", "output_tokens")
        elif kind == "message_delta":
            delta = payload.get("delta")
            if isinstance(delta, dict) and isinstance(delta.get("stop_reason"), str):
                self._stop = delta["stop_reason"]
            self._set_usage(payload.get("usage"), "input_tokens", "output_tokens")
        elif kind == "message_stop":
            out.extend(self._current[i].emit() for i in sorted(self._current))
            self._current.clear()
            out.append(MessageStop(self._stop, self._stop))
            self._finished = True
        return out

    # openai-chat (STREAM-3b, STREAM-5, STREAM-8b)

    def _feed_openai(self, payload: dict[str, Any]) -> list[StreamEvent]:
        choices = _optional(payload, "choices", list) or []
        out: list[StreamEvent] = []
        for position, choice in enumerate(choices):
            if not isinstance(choice, dict):
                raise _Invalid("a choice is not an object")
            number = choice.get("index")
            if (position if number is None else _index(number)) != 0:
                continue
            delta = _optional(choice, "delta", dict)
            if delta is not None:
                text = _optional(delta, "content", str)
                if text:
                    out.append(ContentDelta(text))
                calls = _optional(delta, "tool_calls", list)
                if calls:
                    self._fragments(calls)
            finish = _optional(choice, "finish_reason", str)
            if finish is not None:
                self._stop = finish
                out.extend(self._emit_slots())
        self._set_usage(payload.get("usage"), "prompt_tokens", "completion_tokens")
        return out

    def _fragments(self, calls: list[Any]) -> None:
        for position, call in enumerate(calls):
            if not isinstance(call, dict):
                raise _Invalid("a tool call is not an object")
            number = call.get("index")
            index = position if number is None else _index(number)
            id_ = _optional(call, "id", str)
            function = _optional(call, "function", dict)
            name = arguments = None
            if function is not None:
                name = _optional(function, "name", str)
                arguments = _optional(function, "arguments", str)
            slot = self._current.get(index)
            if slot is None or (id_ and slot.id and id_ != slot.id):
                # STREAM-5a opens a slot; STREAM-5c a changed id opens another at this index.
                slot = _Slot(index, "", "", {})
                self._current[index] = slot
                self._slots.append(slot)
            if id_:
                slot.id = id_  # STREAM-5b: set, not appended
            if name:
                slot.name = name
            if arguments:
                slot.parts.append(arguments)

    def _emit_slots(self) -> list[StreamEvent]:
        # STREAM-5e: by index, then in open order (sorted is stable).
        slots = sorted(self._slots, key=lambda slot: slot.index)
        self._slots.clear()
        self._current.clear()
        return [slot.emit() for slot in slots]

    def _done(self) -> list[StreamEvent]:
        out = self._emit_slots()
        stop = self._stop
        out.append(MessageStop(_OPENAI_STOP_REASONS.get(stop, stop) if stop else stop, stop))
        self._finished = True
        return out
