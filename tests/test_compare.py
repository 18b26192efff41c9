"""The comparator: exact JSON equality, plus the two declared rule kinds."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from runners.judge.compare import MISSING, Difference, diff, rules_for
from runners.vectors.schemas import vector_file_validator

SUMMARY_MASK = {"kind": "ignore", "path": "/messages/*/content", "where": {"summary": True}}
JITTER_BOUND = {
    "kind": "at-most",
    "path": "/delays_ms/*",
    "when": {"/jitter": "full"},
    "unless": ["/samples"],
}


def test_equal_documents_have_no_difference():
    doc = {"a": [1, "x", None, True, {"b": 2.5}]}
    assert diff(doc, doc) == []


def test_each_difference_is_named_by_pointer():
    got = diff({"a": [1, 2], "b": {"c": "x"}}, {"a": [1, 3], "b": {"c": "y"}})
    assert got == [Difference("/a/1", 2, 3), Difference("/b/c", "x", "y")]


def test_missing_and_extra_keys_and_items():
    got = diff({"a": 1, "list": [1]}, {"b": 2, "list": [1, 2]})
    assert got == [
        Difference("/a", 1, MISSING),
        Difference("/list/1", MISSING, 2),
        Difference("/b", MISSING, 2),
    ]
    assert got[0].to_json() == {"pointer": "/a", "expected": 1}


def test_integer_valued_float_equals_integer_but_bool_is_not_a_number():
    assert diff({"n": 3}, {"n": 3.0}) == []
    assert diff({"n": 1}, {"n": True}) == [Difference("/n", 1, True)]
    assert diff({"n": None}, {"n": 0}) == [Difference("/n", None, 0)]


def test_numbers_beyond_2_pow_53_compare_as_doubles():
    assert diff({"n": 2**64}, {"n": 18446744073709552000}) == []
    assert diff({"n": 2.0**64}, {"n": 18446744073709552000}) == []
    assert diff({"n": 2**64}, {"n": 2**64 + 4096}) == [Difference("/n", 2**64, 2**64 + 4096)]


def test_pointer_segments_are_escaped():
    assert diff({"a/b": {"~": 1}}, {"a/b": {"~": 2}}) == [Difference("/a~1b/~0", 1, 2)]


def test_ignore_applies_only_where_the_holder_matches():
    expected = {"messages": [{"content": "a"}, {"content": "summary", "summary": True}]}
    masked = {"messages": [{"content": "a"}, {"content": "other words", "summary": True}]}
    assert diff(expected, masked, [SUMMARY_MASK]) == []
    wrong = {"messages": [{"content": "b"}, {"content": "summary", "summary": True}]}
    assert diff(expected, wrong, [SUMMARY_MASK]) == [Difference("/messages/0/content", "a", "b")]
    # The rest of the summary message is still compared.
    drifted = {"messages": [{"content": "a"}, {"content": "x", "summary": False}]}
    assert diff(expected, drifted, [SUMMARY_MASK]) == [
        Difference("/messages/1/summary", True, False)
    ]


def test_at_most_is_an_upper_bound_from_zero():
    rules = rules_for([JITTER_BOUND], {"jitter": "full"})
    assert diff({"delays_ms": [10, 20]}, {"delays_ms": [0, 20]}, rules) == []
    assert diff({"delays_ms": [10, 20]}, {"delays_ms": [11, -1]}, rules) == [
        Difference("/delays_ms/0", 10, 11),
        Difference("/delays_ms/1", 20, -1),
    ]
    assert diff({"delays_ms": [10]}, {"delays_ms": ["5"]}, rules) == [
        Difference("/delays_ms/0", 10, "5")
    ]
    # The array's length is still exact.
    assert diff({"delays_ms": [10]}, {"delays_ms": [1, 2]}, rules) == [
        Difference("/delays_ms/1", MISSING, 2)
    ]


def test_rules_apply_only_to_inputs_they_name():
    assert rules_for([JITTER_BOUND], {"jitter": "full"}) == [JITTER_BOUND]
    assert rules_for([JITTER_BOUND], {"jitter": "none"}) == []
    assert rules_for([JITTER_BOUND], {"jitter": "full", "samples": [0.5]}) == []
    assert diff(
        {"delays_ms": [10]}, {"delays_ms": [5]}, rules_for([JITTER_BOUND], {"jitter": "none"})
    ) == [Difference("/delays_ms/0", 10, 5)]


# The shared comparison table (tests/tables/comparison.json): the Rust and JS
# runners load the same rows and must reach the same verdicts.
COMPARISON_TABLE = json.loads(
    (Path(__file__).parent / "tables" / "comparison.json").read_text(encoding="utf-8")
)["cases"]


def _vector_file_with(rules: list[Any]) -> dict[str, Any]:
    return {
        "domain": "toy",
        "version": 1,
        "description": "one comparison rule under test",
        "tags": {},
        "comparison": rules,
        "cases": [],
    }


@pytest.mark.parametrize("row", COMPARISON_TABLE, ids=[row["id"] for row in COMPARISON_TABLE])
def test_comparison_table(row: dict[str, Any]) -> None:
    problems = list(vector_file_validator().iter_errors(_vector_file_with(row["rules"])))
    if row["verdict"] == "invalid":
        assert problems, f"the vector-file schema accepts {row['rules']}"
        return
    assert not problems, [p.message for p in problems]
    active = rules_for(row["rules"], row.get("input", {}))
    pointers = sorted(d.pointer for d in diff(row["expected"], row["actual"], active))
    assert pointers == sorted(row.get("differences", []))
    assert (row["verdict"] == "pass") == (pointers == [])


# -- aligned arrays (diff(..., align=True), for generate's known causes) ------------

FRAME_A = {"event": "e", "data": "", "retry": None}
FRAME_B = {"event": None, "data": "a", "retry": None}


def test_a_dropped_element_is_one_missing_difference_when_aligned():
    expected, actual = {"frames": [FRAME_A, FRAME_B]}, {"frames": [FRAME_B]}
    positional = diff(expected, actual)
    assert [d.pointer for d in positional] == ["/frames/0/event", "/frames/0/data", "/frames/1"]
    assert diff(expected, actual, align=True) == [Difference("/frames/0", FRAME_A, MISSING)]


def test_an_extra_element_is_named_by_its_index_in_the_actual_array():
    assert diff([1, 2], [1, 9, 2], align=True) == [Difference("/1", MISSING, 9)]


def test_alike_elements_pair_even_when_they_differ():
    changed = {**FRAME_B, "retry": 5}
    assert diff([FRAME_A, changed], [FRAME_B], align=True) == [
        Difference("/0", FRAME_A, MISSING),
        Difference("/1/retry", 5, None),
    ]


def test_of_two_alignments_that_cost_the_same_pairs_first_chooses():
    one, two = {"a": 1, "b": 1}, {"a": 2, "b": 2}
    both_half_alike = {"a": 1, "b": 2}
    early = diff([one, two], [both_half_alike], align=True)
    late = diff([one, two], [both_half_alike], align=True, pairs_first=False)
    assert early == [Difference("/0/b", 1, 2), Difference("/1", two, MISSING)]
    assert late == [Difference("/0", one, MISSING), Difference("/1/a", 2, 1)]


def test_arrays_of_equal_length_or_past_the_limit_stay_positional(monkeypatch):
    assert diff([1, 2], [2, 1], align=True) == diff([1, 2], [2, 1])
    monkeypatch.setattr("runners.judge.compare.ALIGN_LIMIT", 1)
    # Only what lies between the first and last difference counts against the limit:
    # here that is [2] against [] (one element), aligned ...
    assert diff([1, 2], [2], align=True) == [Difference("/0", 1, MISSING)]
    # ... and here [1, 2] against [3] (two pairs), past it: position by position.
    assert diff([1, 2], [3], align=True) == diff([1, 2], [3])


def test_equal_ends_are_paired_as_they_stand():
    frames = [{"data": str(i)} for i in range(400)]
    dropped = frames[:150] + frames[151:]
    assert diff(frames, dropped, align=True) == [Difference("/150", {"data": "150"}, MISSING)]
