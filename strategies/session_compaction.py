"""session-compaction: histories whose total sits at the trigger (0.9 x max_tokens)
and at max_tokens, tool calls and results around the recent-region boundary,
zero-cost and huge token counts, and histories that are not well-formed."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from . import Reader, Response, records

MAX_SAFE = 2**53 - 1
_TOKENS = (0, 1, 5, 10, 100)
_FLAWS = ("role", "orphan", "summary", "huge", "negative")
_SUMMARY = (16, 0)
_COMPACTED = (0, 1, 3, -1)
MAX_TURNS = 7


def _tokens(r: Reader) -> int:
    b = r.byte()
    return _TOKENS[b % 5] if b < 40 else b % 201


def _history(r: Reader) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = []
    if r.chance(2):
        messages.append({"role": "system", "content": "sys", "token_count": _tokens(r)})
    calls = 0
    for _ in range(r.byte() % (MAX_TURNS + 1)):
        messages.append({"role": "user", "content": "q", "token_count": _tokens(r)})
        n_calls = r.byte() % 3
        ids = [f"c{calls + i}" for i in range(n_calls)]
        calls += n_calls
        reply: dict[str, Any] = {"role": "assistant", "content": "a", "token_count": _tokens(r)}
        if ids or r.chance(2):  # an empty tool_calls list now and then
            reply["tool_calls"] = [{"id": call, "name": "fs.read"} for call in ids]
        messages.append(reply)
        for call in ids:
            messages.append(
                {"role": "tool", "content": "r", "token_count": _tokens(r), "tool_call_id": call}
            )
            if r.chance(6):
                messages.append({"role": "assistant", "content": "a2", "token_count": 1})
    # Sometimes break it (COMP-4): a bad role, an orphan result, a summary flag, huge count.
    if messages and r.chance(5):
        i = r.byte() % len(messages)
        broken = dict(messages[i])
        flaw = r.pick(_FLAWS)
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
        messages[i] = broken
    return messages


# The options first (fixed offsets), then the history, read as far as it goes: the
# longest (system, 7 turns of 2 calls and a follow-up each, a flaw) reads 62 bytes.
RECORD = 8 + 62


def decode(record: bytes) -> dict[str, Any]:
    r = Reader(record)
    budget, summary, compacted, reserve, flags = r.take(5)
    tail = Reader(record[8:])
    messages = _history(tail)
    total = sum(m["token_count"] for m in messages)
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
