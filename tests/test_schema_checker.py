"""The compiled schema check (jsonschema-rs) and the exact-output fast path of judging
never change a verdict: jsonschema stays the authority, and an output that is not
exactly the expected value is judged the long way."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from adapters._json import same_json
from runners.judge.outcomes import judge
from runners.vectors.load import VECTORS_DIR, Case
from runners.vectors.schemas import Checker, domain_schema, file_fast_valid, vector_file_validator

VECTOR_FILES = sorted(VECTORS_DIR.glob("*.json"))


@pytest.mark.parametrize("path", VECTOR_FILES, ids=lambda p: p.stem)
def test_compiled_and_jsonschema_agree_on_every_vector(path: Path) -> None:
    document = json.loads(path.read_text(encoding="utf-8"))
    assert vector_file_validator().fast_valid(document)
    schema = domain_schema(document["domain"])
    assert schema is not None
    for case in document["cases"]:
        for key, checker in (
            ("input", schema.input),
            ("expected", schema.output),
            ("error", schema.error_code),
        ):
            if key in case:
                assert checker.fast_valid(case[key]) == checker.reference.is_valid(case[key])


@pytest.mark.parametrize("path", VECTOR_FILES, ids=lambda p: p.stem)
def test_the_whole_file_check_accepts_every_vector_and_refuses_a_bad_value(path: Path) -> None:
    """One compiled pass over a file (its shape, every case's values) says valid for
    every project vector file, and not valid once one case's value breaks the domain's
    schema (then the checks go one by one and jsonschema reports)."""
    document = json.loads(path.read_text(encoding="utf-8"))
    schema = domain_schema(document["domain"])
    assert schema is not None
    assert file_fast_valid(schema, document)
    broken = json.loads(json.dumps(document))
    case = broken["cases"][-1]
    if "expected" in case:
        case["expected"] = {"not-an-output-of-this-domain": [1, 2, 3]}
    else:
        case["error"] = 12345
    assert not file_fast_valid(schema, broken)
    assert not file_fast_valid(schema, {**document, "version": "one"})


def test_jsonschema_decides_when_the_compiled_validator_says_no() -> None:
    # ECMA-262's $ (jsonschema-rs) refuses a final newline that Python's $ accepts: the
    # compiled "no" is only a reason to ask jsonschema, whose verdict and messages stand.
    checker = Checker({"type": "string", "pattern": "^[a-z]+$"})
    assert not checker.fast_valid("abc\n")
    assert checker.is_valid("abc\n")
    assert list(checker.iter_errors("abc\n")) == []
    errors = list(checker.iter_errors("ABC"))
    assert [e.message for e in errors] == ["'ABC' does not match '^[a-z]+$'"]
    assert not checker.is_valid(1)


def test_a_value_without_json_form_is_left_to_jsonschema() -> None:
    checker = Checker({"type": "string"})
    assert not checker.fast_valid("\ud800")  # jsonschema-rs cannot take it
    assert checker.is_valid("\ud800")


@pytest.mark.parametrize(
    ("expected", "actual", "same"),
    [
        ({"a": [1, "x", None, True]}, {"a": [1, "x", None, True]}, True),
        ({"a": 1}, {"a": 1.0}, True),  # an integer-valued float equals the integer
        ({"a": 1}, {"a": True}, False),  # booleans are not numbers
        ({"a": True}, {"a": 1}, False),
        ({"a": 0}, {"a": False}, False),
        ({"a": [1]}, {"a": [1, 2]}, False),
        ({"a": 1}, {"a": 1, "b": 2}, False),
        ({"a": 1}, {"b": 1}, False),
        ([1], (1,), False),  # only JSON types
        ("x", "y", False),
        (None, 0, False),
    ],
)
def test_same_json(expected: Any, actual: Any, same: bool) -> None:
    assert same_json(expected, actual) is same


def _case(expected: Any) -> Case:
    return Case(
        domain="oauth-pkce",
        id="c",
        description="",
        tags=(),
        source={"kind": "derived", "ref": "test"},
        clauses=(),
        input={"verifier": "v"},
        expected=expected,
    )


def test_a_boolean_for_a_number_still_fails_with_its_diff_and_schema_error() -> None:
    case = _case({"challenge": "A" * 43})
    outcome = judge(case, "p", [(None, {"id": "c", "output": {"challenge": True}})], [])
    assert outcome.status == "fail"
    assert [d.pointer for d in outcome.diff] == ["/challenge"]
    assert [s.pointer for s in outcome.schema_errors] == ["/challenge"]


def test_an_exact_output_passes_and_a_rule_bound_case_takes_the_long_way() -> None:
    case = _case({"challenge": "A" * 43})
    exact = {"id": "c", "output": {"challenge": "A" * 43}}
    assert judge(case, "p", [(None, exact)], []).status == "pass"
    # An ignore rule in force: judged the long way, which finds nothing wrong either.
    rules = [{"kind": "ignore", "path": "/challenge"}]
    assert judge(case, "p", [(None, exact)], rules).status == "pass"
