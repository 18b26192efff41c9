"""session-compaction: histories whose total sits at the trigger (0.9 x max_tokens)
and at max_tokens, tool calls and results around the recent-region boundary,
zero-cost and huge token counts, and histories that are not well-formed."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from . import Response

MAX_SAFE = 2**53 - 1
TOKENS = st.one_of(st.sampled_from((0, 1, 5, 10, 100)), st.integers(0, 200))


# Built once: strategies built inside a draw cost more than the drawing itself.
_BOOL = st.booleans()
_TURNS, _CALLS, _RESERVE = st.integers(0, 7), st.integers(0, 2), st.integers(-1, 4)
_ONE_IN_5, _ONE_IN_6 = st.integers(0, 4), st.integers(0, 5)
_FLAW = st.sampled_from(("role", "orphan", "summary", "huge", "negative"))
_SUMMARY = st.one_of(st.sampled_from((0, 16)), TOKENS)
_COMPACTED = st.sampled_from((0, 1, 3, -1))


@st.composite
def history(draw: st.DrawFn) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = []
    if draw(_BOOL):
        messages.append({"role": "system", "content": "sys", "token_count": draw(TOKENS)})
    calls = 0
    for _ in range(draw(_TURNS)):
        messages.append({"role": "user", "content": "q", "token_count": draw(TOKENS)})
        n_calls = draw(_CALLS)
        ids = [f"c{calls + i}" for i in range(n_calls)]
        calls += n_calls
        reply: dict[str, Any] = {"role": "assistant", "content": "a", "token_count": draw(TOKENS)}
        if len(ids) > 0 or draw(_BOOL):  # an empty tool_calls list now and then
            reply["tool_calls"] = [{"id": call, "name": "fs.read"} for call in ids]
        messages.append(reply)
        for call in ids:
            messages.append(
                {"role": "tool", "content": "r", "token_count": draw(TOKENS), "tool_call_id": call}
            )
            if draw(_ONE_IN_6) == 0:
                messages.append({"role": "assistant", "content": "a2", "token_count": 1})
    # Sometimes break it (COMP-4): a bad role, an orphan result, a summary flag, huge count.
    if messages and draw(_ONE_IN_5) == 0:
        i = draw(st.integers(0, len(messages) - 1))
        broken = dict(messages[i])
        flaw = draw(_FLAW)
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


@st.composite
def inputs(draw: st.DrawFn) -> dict[str, Any]:
    messages = draw(history())
    total = sum(m["token_count"] for m in messages)
    # Budgets around the trigger (total > 0.9 x max) and around the total itself.
    near = [total * 10 // 9 + d for d in (-1, 0, 1)] + [total + d for d in (-1, 0, 1)]
    near = [m for m in near if 0 <= m <= MAX_SAFE]
    max_tokens = draw(st.one_of(st.sampled_from(near or [0]), st.none(), TOKENS))
    case = {
        "messages": messages,
        "max_tokens": max_tokens,
        "summary_tokens": draw(_SUMMARY),
        "compacted_tokens": draw(_COMPACTED),
    }
    if draw(_BOOL):
        case["reserve_recent"] = draw(_RESERVE)
    return case


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
    return found


PROPERTIES = ()
