"""The expect extension (docs/protocol.md): the harness's own children judge exact outputs.

The served python and rust children and the JS worker take the extension after the
handshake; a request then carries the expected output's JSON text, and a child whose
output is exactly that answers ``=`` instead of the whole answer. These tests make the
children's comparison meet outputs that are *almost* the expected ones (key order, a
boolean for 1, 1.0 for 1, one character off) and check that only true equality is
acknowledged, that everything else is judged by the harness as before (a pass for the
same JSON value, a fail with its JSON-pointer diff otherwise), and that workers the
harness does not own never see the extension.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import hanzo_conformance_rust
import pytest

from adapters import registry
from adapters.messages import EXTENSIONS_LINE, encode_request, expect_line
from adapters.protocol import ACK, KnownInputText, OutputAsExpected, Request, Response
from adapters.python import PythonAdapter
from adapters.worker import WorkerAdapter
from runners.run.batches import _own_request, run_cases, start_platform
from runners.vectors.load import VectorFile, load_vector_file

ROOT = Path(__file__).resolve().parent.parent
FAKE = Path(__file__).resolve().parent / "fake_workers" / "fake_worker.py"
PLATFORMS = ("python", "rust", "js")


def _reordered(value: dict[str, Any]) -> dict[str, Any]:
    return dict(reversed(list(value.items())))


# How each case's expected value is skewed from what every platform really outputs,
# and what the harness must then say.
SKEWS = {
    "exact": (lambda e: e, "pass"),
    # The same JSON value in another key order: the child's text differs (and rust's
    # sorted keys differ again), so it is judged by value, and passes.
    "reordered": (_reordered, "pass"),
    # 0 written 0.0: equal as JSON numbers (the harness compares 1 and 1.0 as equal),
    # but another text: never acknowledged by text; judged, and passes.
    "float-spelling": (lambda e: {**e, "rule_index": float(e["rule_index"])}, "pass"),
    # false for 0 (Python's False == 0): a boolean is never a number.
    "bool-for-int": (lambda e: {**e, "rule_index": bool(e["rule_index"])}, "fail"),
    # One character off, deep inside.
    "wrong": (
        lambda e: {**e, "audit": {**e["audit"], "tool_name": e["audit"]["tool_name"] + "!"}},
        "fail",
    ),
}


@pytest.fixture(scope="module")
def skewed() -> VectorFile:
    """permission-policy cases whose rule_index is 0, each under every skew of SKEWS."""
    vf = load_vector_file(ROOT / "vectors" / "permission-policy.json")
    base = [c for c in vf.cases if not c.expects_error and c.expected["rule_index"] == 0][:3]
    assert len(base) == 3
    cases = [
        dataclasses.replace(c, id=f"{skew}-{c.id}", expected=make(c.expected))
        for skew, (make, _) in SKEWS.items()
        for c in base
    ]
    return dataclasses.replace(vf, cases=tuple(cases))


@pytest.fixture(scope="module", params=PLATFORMS)
def platform(request: pytest.FixtureRequest) -> Iterator[Any]:
    adapter = registry.create(request.param, timeout=10.0)
    started = start_platform(request.param, adapter)
    assert started.failure is None, started.failure
    yield started
    adapter.stop()


def test_the_harness_children_take_the_extension(platform: Any) -> None:
    assert platform.adapter.expecting is True


def test_only_true_equality_is_acknowledged(platform: Any, skewed: VectorFile) -> None:
    requests = [_own_request(case, True) for case in skewed.cases]
    responses = platform.adapter.run(requests)
    for case, response in zip(skewed.cases, responses, strict=True):
        acknowledged = type(response) is OutputAsExpected
        skew = case.id.split("-")[0]
        # rust compares by value too (its keys come out sorted): the reordered value is
        # the same JSON value, so it may acknowledge that one as well.
        assert acknowledged == (
            skew == "exact" or (skew == "reordered" and platform.name == "rust")
        ), (platform.name, case.id, response)
        if acknowledged:
            assert response["output"] is case.expected


def test_every_skew_is_judged_as_without_the_extension(platform: Any, skewed: VectorFile) -> None:
    outcomes = {o.case: o for o in run_cases(platform, skewed, skewed.cases)}
    for case in skewed.cases:
        skew = next(s for s in SKEWS if case.id.startswith(f"{s}-"))
        outcome = outcomes[case.id]
        assert outcome.status == SKEWS[skew][1], (platform.name, case.id, outcome)
        if skew == "bool-for-int":
            assert [(d.pointer, d.expected, d.actual) for d in outcome.diff] == [
                ("/rule_index", False, 0)
            ]
        if skew == "wrong":
            [difference] = outcome.diff
            assert difference.pointer == "/audit/tool_name"
            assert difference.expected == difference.actual + "!"


def test_a_deliberately_wrong_served_platform_still_fails_with_its_diff(
    skewed: VectorFile, served_liar: Any
) -> None:
    # miniatures.Liar appends "!" to the first string of every output; served, it
    # speaks the extension, and its outputs never equal the expected text.
    adapter, started = served_liar
    assert adapter.expecting is True
    exact = [c for c in skewed.cases if c.id.startswith("exact-")]
    for case, outcome in zip(exact, run_cases(started, skewed, exact), strict=True):
        assert outcome.status == "fail"
        [difference] = outcome.diff
        assert difference.pointer == "/mode"
        assert difference.actual == case.expected["mode"] + "!"


def test_rust_compares_by_value_never_a_boolean_for_a_number() -> None:
    line = encode_request(
        {
            "id": "p",
            "domain": "permission-policy",
            "input": json.loads(
                json.dumps(
                    next(
                        c.input
                        for c in load_vector_file(ROOT / "vectors" / "permission-policy.json").cases
                        if not c.expects_error and c.expected["rule_index"] == 0
                    )
                )
            ),
        }
    )
    plain = hanzo_conformance_rust.run_line(line[:-1])
    assert plain is not None
    output = json.loads(plain)["output"]

    def answer(expect: str) -> bytes | None:
        text = line[:-2] + b',"expect":' + json.dumps(expect).encode() + b"}"
        return hanzo_conformance_rust.run_line(text)

    compact = json.dumps(output, separators=(",", ":"))
    assert answer(compact) == ACK + b"\n"
    assert answer(json.dumps(_reordered(output))) == ACK + b"\n"  # same value, any order
    for near in (
        {**output, "rule_index": False},
        {**output, "rule_index": 0.0},
        {**output, "mode": output["mode"] + "!"},
        {**output, "extra": None},
    ):
        assert answer(json.dumps(near)) == plain, near
    assert answer("not json") == plain


def test_expect_needs_the_plain_spelling_and_utf8() -> None:
    request = KnownInputText(
        "oauth-pkce/x#0", "oauth-pkce", {"verifier": "v"}, '{"verifier":"v"}', '{"a":"\\ud800"}'
    )
    assert expect_line(request) is not None  # the escape is ASCII text
    lone = KnownInputText(
        "oauth-pkce/x#0", "oauth-pkce", {"verifier": "v"}, '{"verifier":"v"}', '"\ud800"'
    )
    assert expect_line(lone) is None  # no UTF-8 form: sent plain, judged as usual
    plain: Request = {"id": "x", "domain": "oauth-pkce", "input": {}}
    assert expect_line(plain) is None


def test_workers_the_harness_does_not_own_never_see_it(tmp_path: Path) -> None:
    # A foreign worker (tests/fake_workers/fake_worker.py, --reference) is driven by the
    # base protocol: no extensions offer, no expect key, its answers read as usual.
    log = tmp_path / "stdin"
    command = [
        "sh",
        "-c",
        f"tee {log} | {sys.executable} {FAKE} --reference",
    ]
    adapter = WorkerAdapter("foreign", command)
    started = start_platform("foreign", adapter)
    try:
        vf = load_vector_file(ROOT / "vectors" / "oauth-pkce.json")
        outcomes = run_cases(started, vf, vf.cases[:5])
        assert {o.status for o in outcomes} == {"pass"}
        assert adapter.expecting is None
    finally:
        adapter.stop()
    sent = log.read_bytes()
    assert EXTENSIONS_LINE not in sent
    assert b'"expect"' not in sent


class _ErrorAs(PythonAdapter):
    """The reference, but every contract error comes back with this code and message."""

    def __init__(self, code: str | None, message: str) -> None:
        super().__init__()
        self.code, self.message = code, message

    def run(self, requests: Sequence[Request]) -> list[Response]:
        return [
            {
                "id": r["id"],
                "error": {"code": self.code or e["error"]["code"], "message": self.message},
            }
            if "error" in e
            else e
            for r, e in zip(requests, super().run(requests), strict=True)
        ]


@pytest.mark.parametrize(
    ("code", "message", "status"),
    [
        (None, "the reference's code", "pass"),
        ("something_else", "another code", "fail"),
        (None, "a lone surrogate \ud800", "fail"),  # not I-JSON: never passed unchecked
    ],
)
def test_an_expected_error_passes_only_with_its_code_in_plain_utf8(
    code: str | None, message: str, status: str
) -> None:
    # Expected errors pass without a Judgement (runners.run.batches._run_own_inputs): only the
    # expected code with plain UTF-8 strings does.
    vf = load_vector_file(ROOT / "vectors" / "oauth-pkce.json")
    errors = [c for c in vf.cases if c.expects_error]
    started = start_platform("errors", _ErrorAs(code, message))
    outcomes = run_cases(started, vf, errors)
    assert {o.status for o in outcomes} == {status}
    if code is not None:
        [difference] = outcomes[0].diff
        assert (difference.expected, difference.actual) == (
            {"error": errors[0].error},
            {"error": "something_else"},
        )
    elif status == "fail":
        assert "is not valid I-JSON" in (outcomes[0].message or "")
    else:
        assert outcomes[0].actual == {"error": {"code": errors[0].error, "message": message}}
