"""Divergences grouped by cause (issue 9): pattern + kind, largest first, ids in the JSON."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import miniatures
import pytest
from conftest import hello_case, vector_document

from adapters.python import PythonAdapter
from adapters.registry import register_platform, unregister_platform
from adapters.worker import WorkerAdapter, case_of
from runners._cli import main
from runners.judge.crashes import crash_kind, result_crash_kind
from runners.judge.keys import cluster_id, difference_kind, pointer_pattern
from runners.vectors.schemas import results_validator

ROOT = Path(__file__).resolve().parent.parent
FAKE = ROOT / "tests" / "fake_workers" / "fake_worker.py"
HTTPX_SSE_WORKER = f"httpx-sse={sys.executable} {ROOT / 'examples/httpx-sse/worker.py'}"


def test_pointer_patterns_forget_indices_only():
    assert pointer_pattern("/frames/12/data") == "/frames/*/data"
    assert pointer_pattern("/tools/0/name/7") == "/tools/*/name/*"
    assert pointer_pattern("/a/01/b") == "/a/01/b"  # not an index: a key
    assert pointer_pattern("") == ""


def test_kinds_of_difference():
    assert difference_kind({"pointer": "/a", "expected": None, "actual": "x"}) == "null -> string"
    assert difference_kind({"pointer": "/a", "expected": "x"}) == "missing"
    assert difference_kind({"pointer": "/a", "actual": 1}) == "extra"
    assert difference_kind({"pointer": "/a", "expected": 1, "actual": 2}) == "other number"
    whole = {"pointer": "", "expected": {"error": "bad"}, "actual": {"output": {"x": 1}}}
    assert difference_kind(whole) == "error bad -> output"


def two_wrong_fields(output):
    for frame in output["frames"]:
        frame["event"] = "message"
        frame["id"] = ""
    return output


def test_many_failures_read_as_their_causes(capsys, write_vectors, tmp_path):
    cases = [
        hello_case(
            id=f"case-{i}",
            input={"chunks": [f"data: {i}\n\n" * (1 + i % 3)]},
            expected={
                "frames": [{"event": None, "data": str(i), "id": None, "retry": None}] * (1 + i % 3)
            },
        )
        for i in range(12)
    ]
    path = write_vectors(vector_document(cases))
    register_platform("renamer", lambda: miniatures.Rewriter("renamer", two_wrong_fields))
    results = tmp_path / "results.json"
    try:
        code = main(
            [
                "run",
                "--no-default-vectors",
                "--vectors",
                str(path),
                "--platform",
                "renamer",
                "--format",
                "json",
                "--output",
                str(results),
            ]
        )
    finally:
        unregister_platform("renamer")
    out, _ = capsys.readouterr()
    assert code == 1
    doc = json.loads(results.read_text())
    results_validator().validate(doc)
    found = {(c["pattern"], c["kind"]): c for c in doc["summary"]["clusters"]}
    assert set(found) == {("/frames/*/event", "null -> string"), ("/frames/*/id", "null -> string")}
    event = found[("/frames/*/event", "null -> string")]
    assert event["cases"] == 12 and event["clauses"] == ["SSE-1"] and len(event["examples"]) == 3
    # Each divergence carries the id of its cluster.
    for r in doc["results"]:
        for d in r["diff"]:
            assert d["cluster"] == cluster_id(pointer_pattern(d["pointer"]), "null -> string")
    section = out[out.index("divergences by cause") :]
    assert "renamer: 12 cases, /frames/*/event: null -> string" in section
    assert 'e.g. expected null, actual "message"' in section


def test_httpx_sse_reads_as_a_handful_of_clusters(capsys, tmp_path):
    """The README's worked example: a real foreign implementation's ~100 failures."""
    results = tmp_path / "httpx.json"
    code = main(
        [
            "run",
            "--worker",
            HTTPX_SSE_WORKER,
            "--platform",
            "httpx-sse",
            "--domain",
            "sse-frames",
            "--format",
            "json",
            "--output",
            str(results),
        ]
    )
    capsys.readouterr()
    assert code == 1
    doc = json.loads(results.read_text())
    assert doc["summary"]["platforms"]["httpx-sse"]["version"] == "0.4.3"
    failing = doc["summary"]["fail"] + doc["summary"]["error"]
    clusters = doc["summary"]["clusters"]
    assert failing > 80
    assert len(clusters) <= 8, [(c["pattern"], c["kind"]) for c in clusters]
    top = {(c["pattern"], c["kind"]) for c in clusters[:2]}
    assert top == {("/frames/*/event", "null -> string"), ("/frames/*/id", "null -> string")}


# -- crashes keyed by their cause ----------------------------------------------------


def test_crashes_the_harness_made_are_keyed_by_its_cause():
    """Each way a worker fails, as the worker adapter reports it (real messages)."""
    faults = {"c1": "crash", "c3": "raise", "c5": "kill", "c7": "hang", "c9": "garbage"}
    faults["c11"] = "bad-shape"
    switches = [arg for case, fault in faults.items() for arg in (f"--{fault}-on", case)]
    adapter = WorkerAdapter("fake", [sys.executable, str(FAKE), *switches], timeout=0.5)
    requests = [{"id": f"c{i}", "domain": "echo", "input": i} for i in range(13)]
    try:
        adapter.start()
        responses = adapter.run(requests)
    finally:
        adapter.stop()
    kinds = {r["id"]: crash_kind(r["crash"]["message"]) for r in responses if "crash" in r}
    assert kinds == {
        "c1": "crash exit 3",
        "c3": "crash exit 1",
        "c5": "crash signal SIGKILL",
        "c7": "crash timeout",
        "c9": "crash not JSON",
        "c11": "crash protocol",
    }
    [lacking] = PythonAdapter().run([{"id": "x", "domain": "no-such-domain", "input": None}])
    assert crash_kind(lacking["crash"]["message"]) == "crash not implemented"


def test_an_adapter_breaking_its_contract_is_keyed_by_how(capsys, write_vectors, tmp_path):
    path = write_vectors(vector_document([hello_case(id=f"case-{i}") for i in range(2)]))
    kinds = {}
    for name, adapter in (("raiser", miniatures.Raiser), ("dropper", miniatures.Dropper)):
        register_platform(name, lambda adapter=adapter, name=name: adapter(name))
        results = tmp_path / f"{name}.json"
        try:
            argv = ["run", "--no-default-vectors", "--vectors", str(path), "--platform", name]
            main([*argv, "--format", "json", "--output", str(results)])
        finally:
            unregister_platform(name)
        for r in json.loads(results.read_text())["results"]:
            if r["status"] == "error":
                kinds[name, r["case"]] = result_crash_kind(r)
    capsys.readouterr()
    assert kinds[("raiser", "case-0")] == kinds[("raiser", "case-1")] == "crash adapter bug"
    # Unanswered requests (of a case or of its chunkings):
    assert {kind for (name, _), kind in kinds.items() if name == "dropper"} == {"crash protocol"}


@pytest.mark.parametrize(
    ("messages", "kind"),
    [
        (  # a Python repr (hanzoai's worker) and str: bytes and positions vary
            [
                "UnicodeDecodeError('utf-8', b'\\xff', 0, 1, 'invalid start byte')",
                "UnicodeDecodeError('utf-8', b'data: \\xe2\\x82', 6, 8, 'unexpected end of data')",
                "UnicodeDecodeError: 'utf-8' codec can't decode byte 0xc0 in position 6",
            ],
            "crash UnicodeDecodeError",
        ),
        (
            [
                "TypeError: Cannot read properties of undefined (reading 'data')",
                "TypeError: frames[3] is not iterable",
            ],
            "crash TypeError",
        ),
        (
            ["json.decoder.JSONDecodeError: Expecting value: line 1 column 5 (char 4)"],
            "crash json.decoder.JSONDecodeError",
        ),
        (
            [
                "thread 'main' panicked at src/lib.rs:10:5:\nindex out of bounds",
                "thread 'main' panicked at src/parse.rs:99:1:\nattempt to add with overflow",
            ],
            "crash panic",
        ),
        (  # the JS platform's worker thread (hooks, tool-call-pipeline) wraps the error
            [
                "Error: hooks case crashed in its worker thread:\nRangeError: Invalid array "
                "length\n    at runCase (file:///x/hooks-case.js:10:3)",
                "RangeError: Maximum call stack size exceeded",
            ],
            "crash RangeError",
        ),
        (["Error: hooks worker thread gave no answer in 35000 ms"], "crash timeout"),
        (["boom", "thrown non-Error value: 42", "index: 7"], "crash"),  # no class named
    ],
)
def test_a_platform_crash_is_keyed_by_its_error_class_without_variable_parts(messages, kind):
    assert {crash_kind(m) for m in messages} == {kind}


def test_a_rust_panic_is_named_by_its_detail():
    detail = "panicked at crates/x/src/lib.rs:3:9: index out of bounds\nstack backtrace: ..."
    assert crash_kind("index out of bounds: the len is 3 but the index is 5", detail) == (
        "crash panic"
    )


def test_a_crash_result_is_keyed_by_the_platform_message_in_it():
    result = {
        "platform": "my sdk",
        "message": "my sdk crashed (chunking split@3): KeyError: 'id'",
        "detail": "Traceback ...",
    }
    assert result_crash_kind(result) == "crash KeyError"
    started = {"platform": "gone", "message": "gone did not start: cannot run worker ['x']"}
    assert result_crash_kind(started) == "crash did not start"


def test_reports_name_each_crash_cause(capsys, write_vectors, tmp_path):
    """Two causes of crash are two clusters, readable in the text report and the JSON."""
    cases = [hello_case(id=f"case-{i}") for i in range(4)]
    path = write_vectors(vector_document(cases))
    boom = {"case-0", "case-1"}  # the rest crash with a KeyError

    class TwoCauses(miniatures.ClassCrasher):
        def run(self, requests):
            return [
                {"id": r["id"], "crash": {"message": f"worker wrote invalid JSON {r['id']}"}}
                if case_of(r["id"]).split("/")[-1] in boom
                else response
                for r, response in zip(requests, super().run(requests), strict=True)
            ]

    register_platform("two", lambda: TwoCauses("two", "KeyError"))
    results = tmp_path / "results.json"
    try:
        argv = ["run", "--no-default-vectors", "--vectors", str(path), "--platform", "two"]
        code = main([*argv, "--format", "json", "--output", str(results)])
    finally:
        unregister_platform("two")
    out, _ = capsys.readouterr()
    assert code == 1
    assert "two: 2 cases, (whole output): crash KeyError" in out
    assert "two: 2 cases, (whole output): crash not JSON" in out
    doc = json.loads(results.read_text())
    results_validator().validate(doc)
    kinds = {c["id"]: c["kind"] for c in doc["summary"]["clusters"]}
    assert kinds == {
        cluster_id("", "crash KeyError"): "crash KeyError",
        cluster_id("", "crash not JSON"): "crash not JSON",
    }
    for r in doc["results"]:
        cause = "crash not JSON" if r["case"] in boom else "crash KeyError"
        assert r["cluster"] == cluster_id("", cause)
