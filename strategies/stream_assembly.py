"""stream-assembly: streams of both dialects built frame by frame from a byte record,
aimed at the edges the SDKs disagree on: ids and names repeated or changed at one
index, indices out of order or without one, argument fragments that split numbers,
escapes and big integers, errors, keep-alives, bad payloads and early ends."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from hypothesis import strategies as st

from . import Property, Reader, Response, body, described, records

FRAMES = 10  # frame slots per input; a zero kind byte is no frame
FRAME_BYTES = 4
RECORD = 2 + FRAMES * FRAME_BYTES

_dump = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode

IDS: tuple[str | None, ...] = (None, "call_1", "", "call_2", "call_1")
NAMES: tuple[str | None, ...] = (None, "get", "", "put", "get")
# Argument pieces: the zero byte is the empty piece; together they make objects,
# split numbers and escapes, exponents, big integers and things that are not JSON.
ARGS = (
    "",
    "{}",
    "{",
    "}",
    '"a":',
    "1",
    "12345678901234567890",
    "1.5e3",
    "-0",
    '"\\u00e9"',
    '"\\ud83d',
    '\\ude00"',
    "[",
    "]",
    ",",
    " ",
    "null",
    "NaN",
    "2.0",
    "1e400",
    '"x"',
)
TEXTS = ("a", "", "Hello", "é", "\U0001f600", " ")
FINISH = ("tool_calls", "stop", "length", "content_filter", "eos", "")
STOPS = ("end_turn", "tool_use", "max_tokens", "refusal")
BAD_DATA = ("{", "[1]", "5", "[DONE] ", '{"choices": "x"}', "not json")


def _frame(data: str, event: str | None = None) -> dict[str, Any]:
    return {"event": event, "data": data, "id": None, "retry": None}


def _openai_chunk(choice: dict[str, Any] | None, usage: Any = None) -> dict[str, Any]:
    chunk: dict[str, Any] = {"id": "c", "choices": [] if choice is None else [choice]}
    if usage is not None:
        chunk["usage"] = usage
    return _frame(_dump(chunk))


def _start(index: int, block: dict[str, Any]) -> dict[str, Any]:
    return _frame(_dump({"type": "content_block_start", "index": index, "content_block": block}))


def _call(r: Reader, index: int | None) -> dict[str, Any]:
    call: dict[str, Any] = {} if index is None else {"index": index}
    id_, name, args = r.pick(IDS), r.pick(NAMES), r.pick(ARGS)
    if id_ is not None:
        call["id"] = id_
    function: dict[str, Any] = {}
    if name is not None:
        function["name"] = name
    if args:
        function["arguments"] = args
    if function:
        call["function"] = function
    return call


def _openai(r: Reader) -> dict[str, Any]:
    kind, a = r.byte() % 12, r.byte()
    if kind in (1, 2, 3):  # the common case: a fragment (index 0..2)
        return _openai_chunk({"index": 0, "delta": {"tool_calls": [_call(r, a % 3)]}})
    if kind == 4:
        return _openai_chunk({"index": 0, "delta": {"content": TEXTS[a % len(TEXTS)]}})
    if kind == 5:
        return _openai_chunk({"index": 0, "delta": {}, "finish_reason": FINISH[a % len(FINISH)]})
    if kind == 6:
        return _frame("[DONE]")
    if kind == 7:
        return _openai_chunk(None, {"prompt_tokens": a, "completion_tokens": r.byte()})
    if kind == 8:
        error = {"message": "boom", "type": ("server_error", None)[a % 2], "code": "c"}
        return _frame(_dump({"error": error}), ("error", None)[a >> 1 & 1])
    if kind == 9:
        return _frame("", ("ping", None)[a % 2])
    if kind == 10:  # two calls in one chunk, or calls without index
        calls = [_call(r, None if a & 1 else 0), _call(r, None if a & 1 else 1)]
        return _openai_chunk({"index": 0, "delta": {"tool_calls": calls}})
    return _frame(BAD_DATA[a % len(BAD_DATA)])


def _anthropic(r: Reader) -> dict[str, Any]:
    kind, a = r.byte() % 12, r.byte()
    index = a % 3
    if kind == 1:
        id_, name = r.pick(IDS) or "", r.pick(NAMES) or ""
        block = {"type": "tool_use", "id": id_, "name": name, "input": {}}
        return _start(index, block)
    if kind in (2, 3):
        delta = {"type": "input_json_delta", "partial_json": r.pick(ARGS)}
        return _frame(_dump({"type": "content_block_delta", "index": index, "delta": delta}))
    if kind == 4:
        return _frame(_dump({"type": "content_block_stop", "index": index}))
    if kind == 5:
        block = {"type": "text", "text": ""}
        return _start(index, block)
    if kind == 6:
        delta = {"type": "text_delta", "text": TEXTS[r.byte() % len(TEXTS)]}
        return _frame(_dump({"type": "content_block_delta", "index": index, "delta": delta}))
    if kind == 7:
        payload = {
            "type": "message_delta",
            "delta": {"stop_reason": STOPS[a % len(STOPS)]},
            "usage": {"output_tokens": r.byte()},
        }
        return _frame(_dump(payload))
    if kind == 8:
        return _frame(_dump({"type": "message_stop"}))
    if kind == 9:
        return _frame(_dump({"type": "ping"}), "ping")
    if kind == 10:
        error = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
        return _frame(_dump(error), "error")
    return _frame(BAD_DATA[a % len(BAD_DATA)])


def decode(record: bytes) -> dict[str, Any]:
    r = Reader(record)
    anthropic = r.byte() % 2 == 1
    # A zero byte ends the stream properly, so shrinking keeps streams complete.
    proper_end = r.byte() % 4 != 3
    frames = []
    for _ in range(FRAMES):
        start = r.take(FRAME_BYTES)
        if start[0] == 0:
            continue
        sub = Reader(start)
        frames.append(_anthropic(sub) if anthropic else _openai(sub))
    if proper_end:
        if anthropic:
            frames.append(_frame(_dump({"type": "message_stop"})))
        else:
            frames.append(_openai_chunk({"index": 0, "delta": {}, "finish_reason": "tool_calls"}))
            frames.append(_frame("[DONE]"))
    return {"dialect": "anthropic" if anthropic else "openai-chat", "frames": frames}


def inputs() -> st.SearchStrategy[dict[str, Any]]:
    return records(RECORD, decode)


_NUMBER_FORMS = re.compile(r"\d[eE.]|\d{16}|-0")


def clauses(case_input: Any, response: Response) -> set[str]:
    anthropic = case_input["dialect"] == "anthropic"
    found = {"STREAM-1"}
    events = (response.get("output") or {}).get("events") or []
    kinds = {e["type"] for e in events}
    if any(not f["data"] for f in case_input["frames"]):
        found.add("STREAM-2a")
    if "content_delta" in kinds:
        found.add("STREAM-3a" if anthropic else "STREAM-3b")
    calls = [e for e in events if e["type"] == "tool_use"]
    if calls:
        found.update(("STREAM-4a", "STREAM-4c") if anthropic else ("STREAM-5a", "STREAM-5e"))
        found.add("STREAM-6a")
        if any(_NUMBER_FORMS.search(c["input_json"]) for c in calls if c["input"] is not None):
            found.add("STREAM-6e")
        errors = {c["input_error"] for c in calls}
        if None in errors:
            found.add("STREAM-6c")
        if "invalid_json" in errors:
            found.add("STREAM-6c")
        if "not_object" in errors:
            found.add("STREAM-6d")
        if any(c["input_json"].strip(" \t\n\r") == "" for c in calls):
            found.add("STREAM-6b")
    if not anthropic and len({c["id"] for c in calls}) < len(calls):
        found.add("STREAM-5b")
    for e in events:
        if e["type"] == "error":
            kind = e["error_type"]
            ours = {"invalid_event": "STREAM-2b", "incomplete_stream": "STREAM-8d"}
            found.update((ours[kind],) if kind in ours else ("STREAM-7a", "STREAM-7b"))
        elif e["type"] == "message_stop":
            found.add("STREAM-8a" if anthropic else "STREAM-8b")
    if (response.get("output") or {}).get("usage") is not None:
        found.add("STREAM-9")
    return found


# Property: a stream cut after any frame gives a prefix of the whole stream's events,
# then (unless the cut stream had finished) incomplete_stream (STREAM-1, STREAM-8d).


def _cut_probe(record: bytes) -> tuple[dict[str, Any], int]:
    case_input = decode(record[:-1])
    frames = case_input["frames"]
    return case_input, record[-1] % (len(frames) + 1)


def _cut_requests(probe: tuple[dict[str, Any], int]) -> list[Any]:
    case_input, cut = probe
    return [case_input, {**case_input, "frames": case_input["frames"][:cut]}]


def _cut_is_prefix(probe: tuple[dict[str, Any], int], responses: Sequence[Response]) -> str | None:
    whole, cut = responses
    if "output" not in whole or "output" not in cut:
        return None if body(whole).keys() == body(cut).keys() else "one answer is not an output"
    full = whole["output"]["events"]
    part = cut["output"]["events"]
    if part and part[-1] == {"type": "error", "error_type": "incomplete_stream", "message": ""}:
        part = part[:-1]
    if full[: len(part)] != part:
        return f"cut after {probe[1]} frames: {described(cut)}; whole: {described(whole)}"
    return None


PROPERTIES = (
    Property(
        name="cut-stream-is-a-prefix",
        clauses=("STREAM-1", "STREAM-8d"),
        probes=records(RECORD + 1, _cut_probe),
        requests=_cut_requests,
        check=_cut_is_prefix,
        candidate=lambda probe: {**probe[0], "frames": probe[0]["frames"][: probe[1]]},
        record=RECORD + 1,
        decode=_cut_probe,
    ),
)
