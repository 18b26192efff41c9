"""The canonical vector layout: lossless, idempotent, compact where it can be."""

from __future__ import annotations

import json

from runners.vectors.format import WIDTH, canonical

DOC = {
    "a": [1, 2],
    "nested": {"x": None, "y": "ü 😀"},
    "empty": [],
    "strings": ["a" * 60, "b" * 60],
    "numbers": list(range(100)),
    "objects": [{"k": 1}, {"k": [1, {"deep": True}]}],
}


def test_round_trips_and_is_idempotent():
    text = canonical(DOC)
    assert json.loads(text) == DOC
    assert canonical(json.loads(text)) == text
    assert text.endswith("}\n")


def test_layout():
    text = canonical(DOC)
    assert '  "a": [1, 2],\n' in text
    assert '  "nested": {"x": null, "y": "ü 😀"},\n' in text  # non-ASCII stays text
    assert '  "strings": [\n    "' in text  # too long for one line: one string a line
    numbers = text[text.index('"numbers"') : text.index('"objects"')]
    assert numbers.count("\n") <= 8  # numbers fill their lines (100 would be 102 lines)
    assert all(len(line) <= WIDTH for line in numbers.splitlines())
