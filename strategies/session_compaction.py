"""session-compaction: histories whose total sits at the trigger (0.9 x max_tokens)
and at max_tokens, tool calls and results around the recent-region boundary,
zero-cost and huge token counts, and histories that are not well-formed."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from . import Response, records

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
# are looked up, not computed (tool results read up to 255 // 3 + 17).
_TOKENS_OF = tuple(_tokens(b) for b in range(256))
_CALL_IDS = tuple(f"c{i}" for i in range(2 * MAX_TURNS))


def _history(record: bytes) -> tuple[list[dict[str, Any]], int]:
    """The messages and their total token count."""
    tokens_of = _TOKENS_OF
    shape = record[OPTIONS + 5]
    messages: list[dict[str, Any]] = []
    append = messages.append
    total = 0
    if shape & 1:
        total = tokens_of[shape >> 1]
        append({"role": "system", "content": "sys", "token_count": total})
    calls = 0
    at = TURNS
    for _ in range((shape >> 1) % (MAX_TURNS + 1)):
        user, assistant, tools = record[at], record[at + 1], record[at + 2]
        at += TURN_BYTES
        count = tokens_of[user]
        append({"role": "user", "content": "q", "token_count": count})
        # tools: the number of calls (0..2), their results' token counts, and now and
        # then an empty tool_calls list or an assistant follow-up after a result.
        n_calls = tools % 3
        reply_count = tokens_of[assistant]
        total += count + reply_count
        reply: dict[str, Any] = {"role": "assistant", "content": "a", "token_count": reply_count}
        append(reply)
        if n_calls:
            ids = _CALL_IDS[calls : calls + n_calls]
            calls += n_calls
            reply["tool_calls"] = [{"id": call, "name": "fs.read"} for call in ids]
            for i, call in enumerate(ids):
                count = tokens_of[tools // 3 + 17 * i]
                total += count
                append({"role": "tool", "content": "r", "token_count": count, "tool_call_id": call})
            if tools >= 216:
                total += 1
                append({"role": "assistant", "content": "a2", "token_count": 1})
        elif tools >= 240:
            reply["tool_calls"] = []
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
    return messages, total


def decode(record: bytes) -> dict[str, Any]:
    budget, summary, compacted, reserve, flags = record[OPTIONS : OPTIONS + 5]
    messages, total = _history(record)
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
    case: dict[str, Any] = {
        "messages": messages,
        "max_tokens": max_tokens,
        "summary_tokens": _SUMMARY[summary % 2] if summary < 128 else summary % 201,
        "compacted_tokens": _COMPACTED[compacted % 4],
    }
    if reserve & 1:
        case["reserve_recent"] = (reserve >> 1) % 6 - 1
    # A manual /compact (COMP-7a) and a failing summarizer (COMP-11), each now and then,
    # sometimes written out as false (the default).
    for bit, name in ((0, "force"), (2, "summarizer_fails")):
        if flags >> bit & 3 == 3:
            case[name] = True
        elif flags >> bit & 3 == 2:
            case[name] = False
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
    if case_input.get("summarizer_fails") and output.get("compacted_count"):
        found.add("COMP-11")
    return found


PROPERTIES = ()
