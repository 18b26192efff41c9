"""session-compaction: histories whose total sits at the trigger (0.9 x max_tokens)
and at max_tokens, tool calls and results around the recent-region boundary,
zero-cost and huge token counts, and histories that are not well-formed."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from . import Encoded, Response, encode_input, records

MAX_SAFE = 2**53 - 1
_TOKENS = (0, 1, 5, 10, 100)
_FLAWS = ("role", "orphan", "summary", "huge", "negative")
_SUMMARY = (16, 0)
_COMPACTED = (0, 1, 3, -1)
MAX_TURNS = 5  # one more than the largest reserve_recent drawn, so a middle can exist

# One input as bytes at fixed offsets (shrinking one field leaves the others): the
# options, the history's shape, a flaw, then three bytes per turn. Hypothesis's cost
# is per byte drawn, and every platform's grows with the history, so turns are few
# and each is three bytes: user tokens, assistant tokens, and the tool calls.
OPTIONS, FLAW, TURNS = 0, 6, 9
TURN_BYTES = 3
RECORD = TURNS + TURN_BYTES * MAX_TURNS


def _tokens(b: int) -> int:
    return _TOKENS[b % 5] if b < 40 else b % 201


# Decoding is per record, and every record drawn is new: byte -> tokens and call ids
# are looked up, not computed (tool results read up to 255 // 3 + 17), and so are the
# messages with their JSON text (encoding a history costs more than building it):
# the input's text is these joined (``Encoded``), checked equal to encode_input's.
# The messages are shared between inputs, as nothing changes an input once made.
_TOKENS_OF = tuple(_tokens(b) for b in range(256))
_CALL_IDS = tuple(f"c{i}" for i in range(2 * MAX_TURNS))

Message = tuple[dict[str, Any], str]  # a message and its JSON text


def _message(**fields: Any) -> Message:
    return fields, encode_input(fields)


_SYSTEM = tuple(_message(role="system", content="sys", token_count=t) for t in _TOKENS_OF)
_USER = tuple(_message(role="user", content="q", token_count=t) for t in _TOKENS_OF)
_FOLLOW_UP = _message(role="assistant", content="a2", token_count=1)
_REPLIES: dict[tuple[int, int, int], Message] = {}  # (tokens byte, first call, calls)
_RESULTS: dict[tuple[int, int], Message] = {}  # (tokens byte, call)


def _reply(tokens: int, first: int, calls: int) -> Message:
    """An assistant reply; calls -1 is an empty tool_calls list."""
    key = (tokens, first, calls)
    made = _REPLIES.get(key)
    if made is None:
        fields: dict[str, Any] = {"token_count": _TOKENS_OF[tokens]}
        if calls:
            ids = _CALL_IDS[first : first + max(0, calls)]
            fields["tool_calls"] = [{"id": call, "name": "fs.read"} for call in ids]
        made = _REPLIES[key] = _message(role="assistant", content="a", **fields)
    return made


def _result(tokens: int, call: int) -> Message:
    key = (tokens, call)
    made = _RESULTS.get(key)
    if made is None:
        made = _RESULTS[key] = _message(
            role="tool",
            content="r",
            token_count=_TOKENS_OF[tokens],
            tool_call_id=_CALL_IDS[call],
        )
    return made


def _history(record: bytes) -> tuple[list[Message], int]:
    """The messages with their texts, and their total token count."""
    shape = record[OPTIONS + 5]
    messages: list[Message] = []
    append = messages.append
    total = 0
    if shape & 1:
        system = _SYSTEM[shape >> 1]
        total = system[0]["token_count"]
        append(system)
    calls = 0
    at = TURNS
    for _ in range((shape >> 1) % (MAX_TURNS + 1)):
        user, assistant, tools = record[at], record[at + 1], record[at + 2]
        at += TURN_BYTES
        # tools: the number of calls (0..2), their results' token counts, and now and
        # then an empty tool_calls list or an assistant follow-up after a result.
        n_calls = tools % 3
        asked = _USER[user]
        append(asked)
        total += asked[0]["token_count"]
        reply = _reply(assistant, calls, n_calls if n_calls or tools < 240 else -1)
        append(reply)
        total += reply[0]["token_count"]
        for i in range(n_calls):
            result = _result(tools // 3 + 17 * i, calls + i)
            append(result)
            total += result[0]["token_count"]
        calls += n_calls
        if n_calls and tools >= 216:
            total += 1
            append(_FOLLOW_UP)
    # Sometimes break it (COMP-4): a bad role, an orphan result, a summary flag, huge count.
    chance, where, kind = record[FLAW : FLAW + 3]
    if messages and chance % 5 == 4:
        i = where % len(messages)
        broken = dict(messages[i][0])
        total -= broken["token_count"]
        flaw = _FLAWS[kind % len(_FLAWS)]
        if flaw == "role":
            broken["role"] = "developer"
        elif flaw == "orphan":
            broken = {"role": "tool", "content": "r", "token_count": 1, "tool_call_id": "zz"}
        elif flaw == "summary":
            broken["summary"] = True
        elif flaw == "huge":
            broken["token_count"] = MAX_SAFE
        else:
            broken["token_count"] = -1
        total += broken["token_count"]
        messages[i] = (broken, encode_input(broken))
    return messages, total


_FLAGS = ((0, "force"), (2, "summarizer_fails"))


def decode(record: bytes) -> Encoded:
    budget, summary, compacted, reserve, flags = record[OPTIONS : OPTIONS + 5]
    history, total = _history(record)
    # Budgets around the trigger (total > 0.9 x max) and around the total itself.
    near = [total * 10 // 9 + d for d in (-1, 0, 1)] + [total + d for d in (-1, 0, 1)]
    near = [m for m in near if 0 <= m <= MAX_SAFE] or [0]
    kind = budget % 4
    max_tokens = (
        near[budget // 4 % len(near)]
        if kind < 2
        else None
        if kind == 2
        else _TOKENS[budget // 4 % 5]
        if budget < 128
        else budget % 201
    )
    summary_tokens = _SUMMARY[summary % 2] if summary < 128 else summary % 201
    compacted_tokens = _COMPACTED[compacted % 4]
    case: dict[str, Any] = {
        "messages": [message for message, _ in history],
        "max_tokens": max_tokens,
        "summary_tokens": summary_tokens,
        "compacted_tokens": compacted_tokens,
    }
    text = [
        '{"messages":[',
        ",".join([message_text for _, message_text in history]),
        '],"max_tokens":',
        "null" if max_tokens is None else str(max_tokens),
        ',"summary_tokens":',
        str(summary_tokens),
        ',"compacted_tokens":',
        str(compacted_tokens),
    ]
    if reserve & 1:
        case["reserve_recent"] = reserve_recent = (reserve >> 1) % 6 - 1
        text.append(f',"reserve_recent":{reserve_recent}')
    # A manual /compact (COMP-7a) and a failing summarizer (COMP-11), each now and then,
    # sometimes written out as false (the default).
    for bit, name in _FLAGS:
        if flags >> bit & 3 == 3:
            case[name] = True
            text.append(f',"{name}":true')
        elif flags >> bit & 3 == 2:
            case[name] = False
            text.append(f',"{name}":false')
    text.append("}")
    return Encoded(case, "".join(text))


def inputs() -> st.SearchStrategy[dict[str, Any]]:
    return records(RECORD, decode)


def clauses(case_input: Any, response: Response) -> set[str]:
    if "error" in response:
        return {"COMP-3"}
    found = {"COMP-1", "COMP-7"}
    output = response.get("output") or {}
    messages = case_input["messages"]
    if messages and messages[0]["role"] == "system":
        found.add("COMP-8")
    if any(m["role"] == "tool" for m in messages):
        found.add("COMP-4")
    if output.get("compacted_count"):
        found |= {"COMP-9", "COMP-10"}
    if any(m.get("summary") for m in output.get("messages", ())):
        found |= {"COMP-5", "COMP-6", "COMP-9"}
    if case_input.get("force"):
        found.add("COMP-7a")
    if case_input.get("summarizer_fails") and output.get("compacted_count"):
        found.add("COMP-11")
    return found


PROPERTIES = ()
