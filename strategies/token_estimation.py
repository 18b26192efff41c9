"""token-estimation: texts that mix 1-, 2-, 3- and 4-byte scalars around the
multiples of 4 (where bytes, code points and UTF-16 units give different costs),
combining marks, ZWJ and special-token strings; message lists with and without
given counts, tool calls with and without arguments, tool results, and counts near
2^53 - 1."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from . import Reader, Response, records

MAX_SAFE = 2**53 - 1

# "" first: a zero byte is the empty piece, so shrinking shortens the text. The
# pieces cover every UTF-8 length and its edges (U+007F/U+0080, U+07FF/U+0800,
# U+FFFF/U+10000), and characters whose UTF-16 length differs from their byte length.
PIECES = (
    "",
    "a",
    " ",
    "\u00e9",
    "\u65e5",
    "\U0001f600",
    "\u0301",
    "\u200d",
    "\ufeff",
    "\n",
    "\r\n",
    "\x7f",
    "\u0080",
    "\u07ff",
    "\u0800",
    "\uffff",
    "\U00010000",
    "\U0010ffff",
    "<|endoftext|>",
    '{"a": 1}',
    "\\u00e9",
    "abcd",
)
TEXT_PIECES = 12
ROLES = ("user", "assistant", "tool", "system")
_COUNTS = (0, 1, 3, 4, 1000, MAX_SAFE - 1, MAX_SAFE, -1)
MAX_MESSAGES = 4
MAX_CALLS = 2

# A form byte, then either one text (TEXT_PIECES bytes) or up to MAX_MESSAGES
# messages: role, count kind, count, tool calls, tool_call_id, then content pieces
# and each call's id, name and arguments pieces.
_MESSAGE_BYTES = 5 + TEXT_PIECES + MAX_CALLS * 3 * 4
RECORD = 2 + MAX_MESSAGES * _MESSAGE_BYTES


def _text(reader: Reader, count: int) -> str:
    return reader.joined(PIECES, count)


def _message(reader: Reader) -> dict[str, Any]:
    role = reader.pick(ROLES)
    has_count = reader.chance(3)
    count = _COUNTS[reader.byte() % len(_COUNTS)]
    calls = reader.byte() % (MAX_CALLS + 1)
    has_call_id = reader.chance(2)
    message: dict[str, Any] = {"role": role, "content": _text(reader, TEXT_PIECES)}
    if has_count:
        message["token_count"] = count
    if calls:
        drawn = []
        for _ in range(calls):
            call: dict[str, Any] = {"id": _text(reader, 4), "name": _text(reader, 4)}
            arguments = _text(reader, 4)
            if arguments:
                call["arguments"] = arguments
            drawn.append(call)
        message["tool_calls"] = drawn
    if has_call_id:
        message["tool_call_id"] = _text(reader, 4)
    return message


def decode(record: bytes) -> dict[str, Any]:
    reader = Reader(record)
    if reader.byte() % 2 == 0:
        return {"text": _text(reader, TEXT_PIECES)}
    count = reader.byte() % (MAX_MESSAGES + 1)
    return {"messages": [_message(reader) for _ in range(count)]}


def inputs() -> st.SearchStrategy[dict[str, Any]]:
    return records(RECORD, decode)


def clauses(case_input: Any, response: Response) -> set[str]:
    # TOK-1 where the unit matters: a non-ASCII string has more UTF-8 bytes than
    # code points or UTF-16 units.
    found = {"TOK-2"}
    if "text" in case_input:
        if not case_input["text"].isascii():
            found.add("TOK-1")
        return found
    messages = case_input["messages"]
    found.add("TOK-5")
    for message in messages:
        if "token_count" in message:
            continue
        found.add("TOK-3")
        strings = [message["content"], message.get("tool_call_id", "")]
        for call in message.get("tool_calls", ()):
            strings += [call["id"], call["name"], call.get("arguments", "")]
        if not all(s.isascii() for s in strings):
            found.add("TOK-1")
        if any("arguments" in call for call in message.get("tool_calls", ())):
            found.add("TOK-4")
    return found
