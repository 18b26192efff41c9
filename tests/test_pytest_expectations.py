"""--expectations under pytest: recorded divergences are xfail; gate failures match the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import hello_case, vector_document

from runners.vectors.load import load_vector_file

TESTS = Path(__file__).resolve().parent


@pytest.fixture
def project(pytester: pytest.Pytester):
    (pytester.path / "vectors").mkdir()
    doc = vector_document([hello_case(), hello_case(id="other")])
    path = pytester.path / "vectors" / "sse-frames.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    pytester.makeini("[pytest]\nhanzo_conformance_vectors = vectors\n")
    pytester.makeconftest(
        f"""
import sys
sys.path.insert(0, {str(TESTS)!r})
import miniatures
from adapters.registry import register_platform
register_platform("liar", lambda: miniatures.Liar(when=lambda r: "hello" in r["id"]))
"""
    )
    hashes = {c.id: c.content_hash() for c in load_vector_file(path).cases}
    yield pytester, hashes
    from adapters.registry import unregister_platform

    unregister_platform("liar")


def ledger(pytester, entries, platform="liar"):
    path = pytester.path / "ledger.json"
    path.write_text(json.dumps({"platform": platform, "entries": entries}))
    return str(path)


def entry(case, case_hash, **extra):
    return {
        "domain": "sse-frames",
        "case": case,
        "hash": case_hash,
        "fails": {"pointers": ["/frames/0/data"]},
        "reason": "known",
        "link": "",
        "owner": "me",
        **extra,
    }


def test_a_recorded_divergence_is_xfail(project):
    pytester, hashes = project
    result = pytester.runpytest_inprocess(
        "--platform", "liar", "--expectations", ledger(pytester, [entry("hello", hashes["hello"])])
    )
    result.assert_outcomes(passed=2, xfailed=1)  # "other" passes, plus the ledger's entries item
    assert result.ret == 0


def test_stale_and_expired_entries_fail_like_the_cli(project):
    pytester, hashes = project
    entries = [
        entry("other", hashes["other"]),
        entry("hello", hashes["hello"], expires="2001-01-01"),
        entry("missing-case", hashes["hello"]),
    ]
    result = pytester.runpytest_inprocess(
        "--platform", "liar", "--expectations", ledger(pytester, entries)
    )
    assert result.ret == 1
    out = result.stdout.str()
    assert "sse-frames::other now passes on liar: delete entry #0" in out
    assert "entry #1 (sse-frames::hello) expired on 2001-01-01" in out
    assert "names case sse-frames::missing-case, which does not exist" in out
    result.assert_outcomes(failed=3)  # other (stale), hello (unexpected), the entries item


def test_an_invalid_ledger_is_exit_2_as_in_the_cli(project):
    pytester, _ = project
    result = pytester.runpytest_inprocess(
        "--platform", "liar", "--expectations", ledger(pytester, [{"case": "x"}])
    )
    assert result.ret == 2
    result.stdout.fnmatch_lines(["*invalid expectations file*"])


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--case-timeout", "nan"], "argument --case-timeout: must be a finite number"),
        (["--batch-cases", "0"], "argument --batch-cases: must be 1 or more"),
        (["--worker", "w=node 'x"], "argument --worker: cannot split the command"),
        (["--worker", "js=node x"], "'js' is a built-in platform"),
        (["--worker", "w=a", "--worker", "w=b"], "'w' is given twice"),
    ],
)
def test_bad_plugin_options_exit_2_as_in_the_cli(project, argv, says):
    pytester, _ = project
    result = pytester.runpytest_subprocess("--platform", "liar", *argv)
    assert result.ret == 2
    assert says in result.stderr.str() + result.stdout.str()


def test_shards_under_pytest_split_the_cases_like_the_cli(project):
    pytester, _ = project
    counts = []
    for shard in ("1/2", "2/2"):
        result = pytester.runpytest_inprocess("--platform", "python", "--shard", shard)
        outcomes = result.parseoutcomes()
        counts.append(outcomes.get("passed", 0))
        assert outcomes.get("deselected", 0) == 2 - counts[-1]
    assert sum(counts) == 2
