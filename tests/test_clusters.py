"""Divergences grouped by cause (issue 9): pattern + kind, largest first, ids in the JSON."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import miniatures
from conftest import hello_case, vector_document

from adapters.registry import register_platform, unregister_platform
from runners._cli import main
from runners._clusters import cluster_id, difference_kind, pointer_pattern
from runners._schemas import results_validator

ROOT = Path(__file__).resolve().parent.parent
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
