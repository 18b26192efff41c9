"""session-compaction: histories whose total sits at the trigger (0.9 x max_tokens)
and at max_tokens, tool calls and results around the recent-region boundary,
zero-cost and huge token counts, and histories that are not well-formed."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import strategies as st

from . import EncodedInput, Response, records

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


_TOKEN = [_tokens(b) for b in range(256)]  # _tokens by byte, looked up per message

# Each message is made with its JSON text (as the harness's encoder writes it): the
# search then sends that text instead of encoding every input again, which cost more
# than decoding it (tests/test_generate.py checks the two agree).
_ENCODE = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode


def _history(record: bytes) -> tuple[list[dict[str, Any]], list[str]]:
    """The messages, and each one's JSON text."""
    shape = record[OPTIONS + 5]
    messages: list[dict[str, Any]] = []
    texts: list[str] = []
    if shape & 1:
        tokens = _TOKEN[shape >> 1]
        messages.append({"role": "system", "content": "sys", "token_count": tokens})
        texts.append(f'{{"role":"system","content":"sys","token_count":{tokens}}}')
    calls = 0
    turns_end = TURNS + TURN_BYTES * ((shape >> 1) % (MAX_TURNS + 1))
    for at in range(TURNS, turns_end, TURN_BYTES):
        user, assistant, tools = record[at : at + 3]
        tokens = _TOKEN[user]
        messages.append({"role": "user", "content": "q", "token_count": tokens})
        texts.append(f'{{"role":"user","content":"q","token_count":{tokens}}}')
        # tools: the number of calls (0..2), their results' token counts, and now and
        # then an empty tool_calls list or an assistant follow-up after a result.
        n_calls = tools % 3
        ids = [f"c{calls + i}" for i in range(n_calls)]
        calls += n_calls
        tokens = _TOKEN[assistant]
        reply: dict[str, Any] = {"role": "assistant", "content": "a", "token_count": tokens}
        if ids or tools >= 240:
            reply["tool_calls"] = [{"id": call, "name": "fs.read"} for call in ids]
            listed = ",".join([f'{{"id":"{call}","name":"fs.read"}}' for call in ids])
            texts.append(
                f'{{"role":"assistant","content":"a","token_count":{tokens},'
                f'"tool_calls":[{listed}]}}'
            )
        else:
            texts.append(f'{{"role":"assistant","content":"a","token_count":{tokens}}}')
        messages.append(reply)
        for i, call in enumerate(ids):
            tokens = _TOKEN[tools // 3 + 17 * i]
            messages.append(
                {"role": "tool", "content": "r", "token_count": tokens, "tool_call_id": call}
            )
            texts.append(
                f'{{"role":"tool","content":"r","token_count":{tokens},"tool_call_id":"{call}"}}'
            )
        if ids and tools >= 216:
            messages.append({"role": "assistant", "content": "a2", "token_count": 1})
            texts.append('{"role":"assistant","content":"a2","token_count":1}')
    # Sometimes break it (COMP-4): a bad role, an orphan result, a summary flag, huge count.
    chance, where, kind = record[FLAW : FLAW + 3]
    if messages and chance % 5 == 4:
        i = where % len(messages)
        broken = dict(messages[i])
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
        messages[i] = broken
        texts[i] = _ENCODE(broken)
    return messages, texts


def _json(value: int | None) -> str:
    return "null" if value is None else str(value)


def decode(record: bytes) -> EncodedInput:
    budget, summary, compacted, reserve, flags = record[OPTIONS : OPTIONS + 5]
    messages, texts = _history(record)
    total = sum([m["token_count"] for m in messages])
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
    case = EncodedInput(
        messages=messages,
        max_tokens=max_tokens,
        summary_tokens=summary_tokens,
        compacted_tokens=compacted_tokens,
    )
    text = (
        f'{{"messages":[{",".join(texts)}],"max_tokens":{_json(max_tokens)},'
        f'"summary_tokens":{summary_tokens},"compacted_tokens":{compacted_tokens}'
    )
    if reserve & 1:
        case["reserve_recent"] = reserve_recent = (reserve >> 1) % 6 - 1
        text += f',"reserve_recent":{reserve_recent}'
    # A manual /compact (COMP-7a) and a failing summarizer (COMP-11), each now and then,
    # sometimes written out as false (the default).
    for bit, name in ((0, "force"), (2, "summarizer_fails")):
        if flags >> bit & 3 == 3:
            case[name] = True
            text += f',"{name}":true'
        elif flags >> bit & 3 == 2:
            case[name] = False
            text += f',"{name}":false'
    case.json = text + "}"
    return case


def inputs() -> st.SearchStrategy[EncodedInput]:
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
