"""The python session-compaction layer makes the messages the library's constructor would."""

from __future__ import annotations

import dataclasses
import itertools
from typing import Any

import pytest

from impl_python.compaction import Message, ToolCall
from impl_python.conformance.session_compaction import _message_in

OPTIONAL: dict[str, tuple[Any, Any]] = {
    # key: (JSON value, Message field value)
    "tool_calls": ([{"id": "c0", "name": "fs.read"}], (ToolCall("c0", "fs.read"),)),
    "tool_call_id": ("c0", "c0"),
    "summary": (False, False),
}


@pytest.mark.parametrize(
    "present",
    [combo for n in range(4) for combo in itertools.combinations(OPTIONAL, n)],
)
def test_message_in_equals_the_constructors_message(present: tuple[str, ...]) -> None:
    raw: dict[str, Any] = {"role": "assistant", "content": "a", "token_count": 7}
    fields: dict[str, Any] = {}
    for key in present:
        raw[key], fields[key] = OPTIONAL[key]
    made = _message_in(raw)
    expected = Message("assistant", "a", 7, **fields)
    assert made == expected
    assert vars(made) == vars(expected)  # every field set, none extra
    assert hash(made) == hash(expected)
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.content = "b"  # type: ignore[misc]
    assert dataclasses.replace(made, content="b") == dataclasses.replace(expected, content="b")


def test_an_empty_tool_call_list_stays_a_list_not_none() -> None:
    made = _message_in({"role": "assistant", "content": "a", "token_count": 1, "tool_calls": []})
    assert made.tool_calls == ()
    assert made == Message("assistant", "a", 1, tool_calls=())
