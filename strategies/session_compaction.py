"""session-compaction: histories whose total sits at the trigger (0.9 x max_tokens)
and at max_tokens, tool calls and results around the recent-region boundary,
zero-cost and huge token counts, a message without a count (estimated, COMP-13), and
histories that are not well-formed."""

from __future__ import annotations

import json
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
# A turn is three lookups: the user message by its byte, the reply by (its byte,
# calls so far, calls made), and the tool results (with any follow-up) by (the tools
# byte, calls so far), each a (messages, texts, tokens) piece made when first needed.
# The messages are shared between inputs, as nothing changes an input once made.
_TOKENS_OF = tuple(_tokens(b) for b in range(256))
_CALL_IDS = tuple(f"c{i}" for i in range(2 * MAX_TURNS))
MAX_CALLS_BEFORE = 2 * (MAX_TURNS - 1)  # calls made before the last turn, at most

Message = tuple[dict[str, Any], str]  # a message and its JSON text
Piece = tuple[list[dict[str, Any]], list[str], int]  # messages, their texts, their tokens


def _one_encoder() -> Any:
    """``encode_input`` for a flat message, by one C encoder made once (JSONEncoder.encode
    makes one per call, most of its cost for a message this small)."""
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:  # no C accelerator
        return encode_input

    def refuse(value: Any) -> Any:
        raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")

    encoder = make(
        None, refuse, json.encoder.encode_basestring, None, ":", ",", False, False, False
    )
    return lambda value: "".join(encoder(value, 0))


_encode_message = _one_encoder()


def _message(**fields: Any) -> Message:
    return fields, encode_input(fields)


def _piece(*messages: Message) -> Piece:
    return (
        [message for message, _ in messages],
        [text for _, text in messages],
        sum(message["token_count"] for message, _ in messages),
    )


_SYSTEM = tuple(_piece(_message(role="system", content="sys", token_count=t)) for t in _TOKENS_OF)
_USER = tuple(_piece(_message(role="user", content="q", token_count=t)) for t in _TOKENS_OF)
_FOLLOW_UP = _message(role="assistant", content="a2", token_count=1)
# Filled on first use: index (calls so far * 4 + calls made + 1) * 256 + tokens byte.
_REPLIES: list[Piece | None] = [None] * ((MAX_CALLS_BEFORE + 1) * 4 * 256)
# Filled on first use: index calls so far * 256 + tools byte.
_RESULTS: list[Piece | None] = [None] * ((MAX_CALLS_BEFORE + 1) * 256)


def _reply(tokens: int, first: int, calls: int) -> Piece:
    """An assistant reply; calls -1 is an empty tool_calls list."""
    fields: dict[str, Any] = {"token_count": _TOKENS_OF[tokens]}
    if calls:
        ids = _CALL_IDS[first : first + max(0, calls)]
        fields["tool_calls"] = [{"id": call, "name": "fs.read"} for call in ids]
    made = _REPLIES[(first * 4 + calls + 1) * 256 + tokens] = _piece(
        _message(role="assistant", content="a", **fields)
    )
    return made


def _results(tools: int, first: int) -> Piece:
    """The tools byte's results to the calls from ``first`` on, then maybe a follow-up.

    The byte holds the number of calls (0..2), their results' token counts, and now
    and then an empty tool_calls list or an assistant follow-up after a result.
    """
    n_calls = tools % 3
    results = [
        _message(
            role="tool",
            content="r",
            token_count=_TOKENS_OF[tools // 3 + 17 * i],
            tool_call_id=_CALL_IDS[first + i],
        )
        for i in range(n_calls)
    ]
    if n_calls and tools >= 216:
        results.append(_FOLLOW_UP)
    made = _RESULTS[first * 256 + tools] = _piece(*results)
    return made


def _history(record: bytes) -> tuple[list[dict[str, Any]], list[str], int]:
    """The messages, their texts, and their total token count."""
    shape = record[OPTIONS + 5]
    messages: list[dict[str, Any]] = []
    texts: list[str] = []
    total = 0
    if shape & 1:
        messages, texts, total = _SYSTEM[shape >> 1]
        messages, texts = messages[:], texts[:]
    calls = 0
    at = TURNS
    for _ in range((shape >> 1) % (MAX_TURNS + 1)):
        user, assistant, tools = record[at], record[at + 1], record[at + 2]
        at += TURN_BYTES
        n_calls = tools % 3
        made = n_calls if n_calls or tools < 240 else -1
        asked = _USER[user]
        reply = _REPLIES[(calls * 4 + made + 1) * 256 + assistant] or _reply(assistant, calls, made)
        results = _RESULTS[calls * 256 + tools] or _results(tools, calls)
        messages += asked[0]
        messages += reply[0]
        messages += results[0]
        texts += asked[1]
        texts += reply[1]
        texts += results[1]
        total += asked[2] + reply[2] + results[2]
        calls += n_calls
    # Sometimes break it (COMP-4): a bad role, an orphan result, a summary flag, huge count.
    chance, where, kind = record[FLAW : FLAW + 3]
    if messages and chance % 5 == 4:
        i = where % len(messages)
        broken = dict(messages[i])
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
        messages[i] = broken
        texts[i] = _encode_message(broken)
    elif messages and chance % 5 == 3 and chance >= 128:
        # A message without token_count, costed by the estimator (COMP-13). The total
        # only aims the budget, so the message's estimate is taken as 1 ("q", "a" and
        # "r" cost 1; a call adds its id and name).
        i = where % len(messages)
        uncounted = {k: v for k, v in messages[i].items() if k != "token_count"}
        total += 1 - messages[i]["token_count"]
        messages[i] = uncounted
        texts[i] = _encode_message(uncounted)
    return messages, texts, total


_FLAGS = ((0, "force"), (2, "summarizer_fails"))


def decode(record: bytes) -> Encoded:
    budget, summary, compacted, reserve, flags = record[OPTIONS : OPTIONS + 5]
    messages, texts, total = _history(record)
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
    # Filled in place (Encoded's constructor would copy a dict made first).
    case = dict.__new__(Encoded)
    case["messages"] = messages
    case["max_tokens"] = max_tokens
    case["summary_tokens"] = summary_tokens
    case["compacted_tokens"] = compacted_tokens
    text = [
        '{"messages":[',
        ",".join(texts),
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
    case.json = "".join(text)
    return case


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
    if any("token_count" not in m for m in messages):
        found.add("COMP-13")
    if case_input.get("summarizer_fails") and output.get("compacted_count"):
        found.add("COMP-11")
    return found


PROPERTIES = ()
