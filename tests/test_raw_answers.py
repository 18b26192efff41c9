"""Answers compared as text before they are decoded (issue 13, "Harness overhead").

A request made from a case (``runners.run.batches._own_request``) carries the expected
output's JSON text; a worker answer that is byte for byte ``{"id":..,"output":<that
text>}`` is that output without decoding (``adapters.protocol.OutputAsExpected``).
Every other spelling is decoded and judged as before: equal JSON passes, a wrong
value fails with its JSON-pointer diff. The served ``rust`` child answers each line as
text (``hanzo_conformance_rust.run_line``), and whatever that path declines takes the
ordinary one.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from adapters.messages import encode_request
from adapters.protocol import KnownInputText, OutputAsExpected, Request
from adapters.serve import MAX_GROUP
from adapters.served import served
from adapters.worker import WorkerAdapter
from runners.judge.outcomes import Judgement
from runners.run.batches import _own_request, run_cases, start_platform
from runners.vectors.load import VectorFile, load_vector_file

ROOT = Path(__file__).resolve().parent.parent
FAKES = Path(__file__).resolve().parent / "fake_workers"
SPELLINGS = ("exact", "spaced", "reordered", "escaped", "wrong", "wrong-spaced")


@pytest.fixture
def pkce(tmp_path: Path) -> VectorFile:
    """Real oauth-pkce cases, each under every spelling of tests/fake_workers/respelled.py."""
    doc = json.loads((ROOT / "vectors" / "oauth-pkce.json").read_text(encoding="utf-8"))
    outputs = [c for c in doc["cases"] if "expected" in c][:2]
    error = next(c for c in doc["cases"] if "error" in c)
    doc["cases"] = [
        {**case, "id": f"{spelling}-{i}"}
        for spelling in SPELLINGS
        for i, case in enumerate(outputs)
    ] + [{**error, "id": "exact-error"}]
    path = tmp_path / "oauth-pkce.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return load_vector_file(path)


@pytest.fixture
def respelled(monkeypatch: pytest.MonkeyPatch) -> Iterator[WorkerAdapter]:
    monkeypatch.setenv(
        "PYTHONPATH", os.pathsep.join([str(FAKES), os.environ.get("PYTHONPATH", "")])
    )
    command = [sys.executable, "-m", "adapters.serve", "respelled:create"]
    adapter = WorkerAdapter("respelled", command, timeout=10.0, answers_in_groups=MAX_GROUP)
    yield adapter
    adapter.stop()


def test_only_the_expected_bytes_skip_decoding(pkce: VectorFile, respelled: Any) -> None:
    respelled.start()
    requests = [_own_request(case, True) for case in pkce.cases]
    responses = respelled.run(requests)
    for case, response in zip(pkce.cases, responses, strict=True):
        fast = type(response) is OutputAsExpected
        assert fast == (case.id.startswith("exact") and not case.expects_error), case.id
        if fast:
            assert response == {"id": f"oauth-pkce/{case.id}#0", "output": case.expected}
            assert response["output"] is case.expected  # handed over, not decoded
        elif case.id.startswith("wrong"):
            assert response["output"]["challenge"] == case.expected["challenge"] + "!"
        elif not case.expects_error:  # decoded from another spelling: the same value
            assert response == {"id": f"oauth-pkce/{case.id}#0", "output": case.expected}


def test_every_spelling_is_judged_by_its_value(pkce: VectorFile, respelled: Any) -> None:
    platform = start_platform("respelled", respelled)
    outcomes = {o.case: o for o in run_cases(platform, pkce, pkce.cases)}
    for case in pkce.cases:
        record = outcomes[case.id].to_json()
        if case.id.startswith("wrong"):
            assert record["status"] == "fail", record
            assert record["diff"] == [
                {
                    "pointer": "/challenge",
                    "expected": case.expected["challenge"],
                    "actual": case.expected["challenge"] + "!",
                }
            ]
            assert record["actual"] == {"challenge": case.expected["challenge"] + "!"}
        else:
            assert record["status"] == "pass", record
            assert record["diff"] == []
            if not case.expects_error:
                assert record["actual"] == case.expected


def test_the_fast_path_takes_only_the_expected_object(pkce: VectorFile) -> None:
    """An OutputAsExpected holding anything but the case's own expected value is judged by value."""
    case = next(c for c in pkce.cases if c.id == "exact-0")
    wrong = {"challenge": "not-it"}
    judgement = Judgement(case, "p", ())
    judgement.add(None, OutputAsExpected(id="x", output=wrong))
    outcome = judgement.outcome()
    assert outcome.status == "fail"
    assert [d.pointer for d in outcome.diff] == ["/challenge"]
    equal_copy = json.loads(json.dumps(case.expected))
    judgement = Judgement(case, "p", ())
    judgement.add(None, OutputAsExpected(id="x", output=equal_copy))
    assert judgement.outcome().status == "pass"


def test_a_request_is_made_once_and_says_its_expectation_only_when_asked(pkce: VectorFile) -> None:
    case = pkce.cases[0]
    request = _own_request(case, True)
    assert _own_request(case, True) is request  # shared by every platform's run
    assert isinstance(request, KnownInputText)
    assert request.expected_output_json == json.dumps(case.expected, separators=(",", ":"))
    unchecked = _own_request(case, False)  # a file with comparison rules
    assert isinstance(unchecked, KnownInputText)
    assert unchecked.expected_output_json is None
    error_case = next(c for c in pkce.cases if c.expects_error)
    assert getattr(_own_request(error_case, True), "expected_output_json", 0) is None


def test_served_rust_answers_as_text_and_declines_what_it_cannot_parse() -> None:
    import hanzo_conformance_rust as ext

    line = b'{"cmd":"run","id":"a#0","domain":"oauth-pkce","input":{"verifier":"short"}}'
    answer = ext.run_line(line)
    assert answer is not None and answer.endswith(b"\n")
    assert json.loads(answer)["error"]["code"] == "invalid_verifier"
    assert json.loads(answer)["id"] == "a#0"
    surrogate = b'{"cmd":"run","id":"b#0","domain":"oauth-pkce","input":{"verifier":"\\ud800"}}'
    assert ext.run_line(surrogate) is None  # serde_json refuses a lone surrogate
    assert ext.run_line(b"{not json") is None
    assert ext.run_line(b"\xff") is None

    adapter = served("rust", "rust")
    try:
        adapter.start()
        verifier = "a" * 43
        requests: list[Request] = [
            {"id": "ok#0", "domain": "oauth-pkce", "input": {"verifier": verifier}},
            {"id": "lone#0", "domain": "oauth-pkce", "input": {"verifier": "\ud800" * 43}},
            {"id": "none#0", "domain": "no-such-domain", "input": {}},
            {"id": "after#0", "domain": "oauth-pkce", "input": {"verifier": "x"}},
        ]
        ok, lone, missing, after = adapter.run(requests)
    finally:
        adapter.stop()
    [reference] = json.loads(ext.run_batch(json.dumps([requests[0]])))
    assert ok == reference
    # Declined by the text path, then refused by the ordinary one, as before.
    assert "rust extension rejected the request" in lone["crash"]["message"]  # type: ignore[typeddict-item]
    assert "no-such-domain" in missing["crash"]["message"]  # type: ignore[typeddict-item]
    assert after["error"]["code"] == "invalid_verifier"  # type: ignore[typeddict-item]


def test_served_python_reads_the_harness_spelling_and_declines_any_other() -> None:
    from adapters.answers import encode
    from adapters.python import PythonAdapter

    adapter = PythonAdapter()
    adapter.start()
    requests: list[Request] = [
        {"id": "ok#0", "domain": "oauth-pkce", "input": {"verifier": "a" * 43}},
        {"id": 'short \\ "quoted" é#0', "domain": "oauth-pkce", "input": {"verifier": "x"}},
        {"id": "none#0", "domain": "no-such-domain", "input": {}},
        {"id": "lone#0", "domain": "mcp-normalization", "input": {"server": "\ud800", "tool": "t"}},
    ]
    for request in requests:
        line = encode_request(request).rstrip(b"\n")
        fast = adapter.run_line(line)
        assert fast is not None, request["id"]
        got, want = json.loads(fast), json.loads(encode(adapter.run([request])[0]))
        if "crash" in want and want["crash"]["detail"]:
            # The traceback names the frame that called the implementation (run_line's
            # own, not run's): the same exception, raised by the same code below it.
            assert (
                got["crash"]["detail"].splitlines()[-3:]
                == want["crash"]["detail"].splitlines()[-3:]
            )
            got["crash"]["detail"] = want["crash"]["detail"]
        assert got == want, request["id"]
    ok = encode_request(requests[0]).rstrip(b"\n")
    for other in (
        ok.replace(b'"id":', b'"id": '),  # spaced
        ok[:-1] + b',"extra":1}',  # a fifth key
        ok[:-1],  # cut short
        ok.replace(b'"cmd":"run"', b'"cmd":"stop"'),
        b"\xff" + ok,
    ):
        assert adapter.run_line(other) is None, other


def test_a_python_adapter_that_overrides_run_is_always_asked_through_run() -> None:
    from adapters.python import PythonAdapter

    class Overriding(PythonAdapter):
        def run(self, requests: Any) -> Any:
            return [{"id": r["id"], "output": "overridden"} for r in requests]

    adapter = Overriding()
    adapter.start()
    line = encode_request({"id": "a#0", "domain": "oauth-pkce", "input": {"verifier": "x"}})
    assert adapter.run_line(line.rstrip(b"\n")) is None
