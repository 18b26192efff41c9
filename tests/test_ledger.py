"""The expectations ledger (issue 9): a platform with known gaps gates without going soft."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import miniatures
import pytest
from conftest import hello_case, vector_document

from adapters.registry import register_platform, unregister_platform
from runners._cli import main
from runners.gate.ledger import ledger_text
from runners.gate.triage import triage
from runners.gate.verdict import in_shard
from runners.vectors.load import load_vector_file
from runners.vectors.schemas import results_validator

ROOT = Path(__file__).resolve().parent.parent


def event_is_message(output):
    for frame in output["frames"]:
        frame["event"] = "message"
    return output


@pytest.fixture
def messenger():
    register_platform("messenger", lambda: miniatures.Rewriter("messenger", event_is_message))
    yield "messenger"
    unregister_platform("messenger")


@pytest.fixture
def two_cases(write_vectors):
    cases = [
        hello_case(),
        hello_case(
            id="empty",
            input={"chunks": [": comment only\n\n"]},
            expected={"frames": []},
            description="A comment alone dispatches nothing.",
        ),
    ]
    path = write_vectors(vector_document(cases))
    return path, {c.id: c.content_hash() for c in load_vector_file(path).cases}


def run(capsys, path, *argv):
    code = main(
        ["run", "--no-default-vectors", "--vectors", str(path), "--platform", "messenger", *argv]
    )
    out, err = capsys.readouterr()
    return code, out, err


def write_ledger(tmp_path, entries, platform="messenger"):
    path = tmp_path / "expectations.json"
    path.write_text(ledger_text({"platform": platform, "entries": entries}))
    return str(path)


def hello_entry(hashes, **overrides):
    entry = {
        "domain": "sse-frames",
        "case": "hello",
        "hash": hashes["hello"],
        "fails": {"pointers": ["/frames/0/event"]},
        "reason": "event defaults to message",
        "link": "https://example.invalid/issue/1",
        "owner": "sse team",
    }
    entry.update(overrides)
    return entry


def test_an_unledgered_divergence_fails_the_gate(capsys, messenger, two_cases):
    path, _ = two_cases
    code, out, _ = run(capsys, path)
    assert code == 1 and "FAIL sse-frames::hello [messenger]" in out


def test_a_recorded_divergence_is_xfail_never_a_pass(capsys, messenger, two_cases, tmp_path):
    path, hashes = two_cases
    ledger = write_ledger(tmp_path, [hello_entry(hashes)])
    results = tmp_path / "r.json"
    code, out, _ = run(
        capsys, path, "--expectations", ledger, "--format", "json", "--output", str(results)
    )
    assert code == 0, out
    assert "1/2 (1 xfail)" in out
    assert (
        out.rstrip().endswith(
            "OK: 2 results: 1 pass, 0 fail, 0 error, 0 skip, 1 xfail\n\n"
            f"results written to {results}".rstrip()
        )
        or "1 xfail" in out
    )
    doc = json.loads(results.read_text())
    results_validator().validate(doc)
    (hello,) = [r for r in doc["results"] if r["case"] == "hello"]
    assert hello["status"] == "xfail" and hello["expected_status"] == "fail"
    assert hello["expectation"]["reason"] == "event defaults to message"
    assert doc["summary"]["pass"] == 1 and doc["summary"]["xfail"] == 1


@pytest.mark.parametrize(
    ("change", "kind", "says"),
    [
        (
            {"case": "empty", "fails": {"pointers": ["/frames/0/event"]}},
            "STALE",
            "sse-frames::empty now passes on messenger: delete entry #0",
        ),
        (
            {"fails": {"pointers": ["/frames/0/data"]}},
            "CHANGED",
            "fails differently than entry #0 (sse-frames::hello) records",
        ),
        ({"fails": {"error": "bad_input"}}, "CHANGED", "fails differently"),
        (
            {"expires": "2020-01-01"},
            "EXPIRED",
            "entry #0 (sse-frames::hello) expired on 2020-01-01",
        ),
        ({"case": "no-such-case"}, "UNKNOWN-CASE", "names case sse-frames::no-such-case"),
        ({"hash": "0" * 64}, "CHANGED-HASH", "the vector changed"),
    ],
)
def test_each_ledger_problem_fails_the_gate_and_says_what_to_do(
    capsys, messenger, two_cases, tmp_path, change, kind, says
):
    path, hashes = two_cases
    entry = hello_entry(hashes, **change)
    if change.get("case") == "empty":
        entry["hash"] = hashes["empty"]
    code, out, _ = run(capsys, path, "--expectations", write_ledger(tmp_path, [entry]))
    assert code == 1
    problems = out[out.index("expectations: ") :]
    assert f"{kind}: " in problems and says in problems, problems


def test_a_ledger_for_a_platform_not_in_the_run(capsys, messenger, two_cases, tmp_path):
    path, hashes = two_cases
    code, out, _ = run(
        capsys,
        path,
        "--expectations",
        write_ledger(tmp_path, [hello_entry(hashes)], platform="ghost"),
    )
    assert code == 1 and "UNKNOWN-PLATFORM" in out and "'ghost'" in out


def test_an_invalid_ledger_is_a_usage_error(capsys, messenger, two_cases, tmp_path):
    path, hashes = two_cases
    entry = hello_entry(hashes)
    del entry["reason"]
    code, _, err = run(capsys, path, "--expectations", write_ledger(tmp_path, [entry]))
    assert code == 2 and "invalid expectations file" in err
    code, _, err = run(
        capsys,
        path,
        "--expectations",
        write_ledger(tmp_path, [hello_entry(hashes, expires="2026-13-45")]),
    )
    assert code == 2 and "/entries/0/expires: '2026-13-45' is not a date" in err


def test_a_cluster_entry_covers_its_cases_and_each_is_checked(
    capsys, messenger, two_cases, tmp_path
):
    path, hashes = two_cases
    cluster = {
        "cluster": {"pattern": "/frames/*/event", "kind": "string -> string"},
        "cases": [{"domain": "sse-frames", "case": "hello", "hash": hashes["hello"]}],
        "reason": "event defaults to message",
        "link": "",
        "owner": "sse team",
    }
    code, out, _ = run(capsys, path, "--expectations", write_ledger(tmp_path, [cluster]))
    assert code == 1 and "no longer diverges in entry #0" in out  # wrong kind recorded
    cluster["cluster"]["kind"] = "null -> string"
    cluster["cases"].append({"domain": "sse-frames", "case": "empty", "hash": hashes["empty"]})
    code, out, _ = run(capsys, path, "--expectations", write_ledger(tmp_path, [cluster]))
    assert code == 1
    assert (
        "sse-frames::empty now passes on messenger: remove case sse-frames::empty from entry #0"
        in out
    )
    cluster["cases"].pop()
    code, out, _ = run(capsys, path, "--expectations", write_ledger(tmp_path, [cluster]))
    assert code == 0, out


def test_update_writes_a_ledger_that_then_passes(capsys, messenger, two_cases, tmp_path):
    path, _ = two_cases
    results = tmp_path / "r.json"
    run(capsys, path, "--format", "json", "--output", str(results))
    ledger = tmp_path / "messenger.json"
    assert main(["expectations", "--update", str(ledger), "--results", str(results)]) == 0
    written = json.loads(ledger.read_text())
    assert written["platform"] == "messenger" and len(written["entries"]) == 1
    assert written["entries"][0]["fails"] == {"pointers": ["/frames/0/event"]}
    capsys.readouterr()
    code, out, _ = run(capsys, path, "--expectations", str(ledger))
    assert code == 0 and "1 xfail" in out


def test_update_from_a_gated_run_keeps_a_recorded_crash(capsys, two_cases, tmp_path):
    """A crash the ledger records is an xfail in the next run's results; updating the
    ledger from those results keeps its entry (it was dropped: xfail read as no crash)."""
    path, hashes = two_cases
    register_platform("crasher", lambda: miniatures.Crasher("crasher"))
    try:
        crash = {**hello_entry(hashes), "fails": {"crash": True}, "reason": "reviewed: it crashes"}
        ledger = write_ledger(tmp_path, [crash], platform="crasher")
        results = tmp_path / "r.json"
        argv = ["run", "--no-default-vectors", "--vectors", str(path), "--platform", "crasher"]
        main([*argv, "--format", "json", "--output", str(results), "--expectations", ledger])
        assert main(["expectations", "--update", str(ledger), "--results", str(results)]) == 0
    finally:
        unregister_platform("crasher")
    entries = json.loads(Path(ledger).read_text(encoding="utf-8"))["entries"]
    kept = [e for e in entries if e.get("case") == "hello"]
    assert kept and kept[0]["fails"] == {"crash": True}
    assert kept[0]["reason"] == "reviewed: it crashes"
    assert {e["case"] for e in entries} == {"hello", "empty"}


@pytest.fixture
def three_cases(write_vectors):
    path = write_vectors(vector_document([hello_case(id=f"case-{i}") for i in range(3)]))
    return path, {c.id: c.content_hash() for c in load_vector_file(path).cases}


@pytest.mark.parametrize("sharded", [False, True])
def test_the_cases_of_an_entry_that_now_pass_are_one_problem(
    capsys, three_cases, tmp_path, sharded
):
    """A platform that fixed a systematic difference makes every case of its cluster
    entry stale: one line per entry (all of them: delete it; some, as in a shard: which),
    not one per case; the JSON problem lists every case."""
    path, hashes = three_cases
    ids = [f"case-{i}" for i in range(3)]
    refs = [{"domain": "sse-frames", "case": i, "hash": hashes[i]} for i in ids]
    entry = {"cluster": EVENT_CLUSTER, "cases": refs, "reason": "r", "link": "", "owner": ""}
    ledger = write_ledger(tmp_path, [entry], platform="python")
    results = tmp_path / "r.json"
    argv = ["run", "--no-default-vectors", "--vectors", str(path), "--platform", "python"]
    argv += ["--expectations", ledger, "--format", "json", "--output", str(results)]
    passing = ids
    if sharded:  # a shard that holds two of the three cases
        shard = next(
            (i, n)
            for n in range(2, 9)
            for i in range(1, n + 1)
            if sum(in_shard("sse-frames", c, (i, n)) for c in ids) == 2
        )
        passing = [c for c in ids if in_shard("sse-frames", c, shard)]
        argv += ["--shard", f"{shard[0]}/{shard[1]}"]
    assert main(argv) == 1
    [problem] = json.loads(results.read_text())["summary"]["expectations"]["problems"]
    assert problem["kind"] == "stale"
    assert problem["cases"] == [f"sse-frames::{c}" for c in passing]
    capsys.readouterr()
    assert main(["report", str(results)]) == 1
    out = capsys.readouterr().out
    assert out.count("STALE: ") == 1
    cluster = "entry #0 (cluster /frames/*/event: null -> string)"
    if not sharded:
        assert f"all 3 cases of {cluster} now pass on python: delete it" in out
    else:
        listed = ", ".join(f"sse-frames::{c}" for c in passing)
        assert (
            f"2 of the 3 cases of {cluster} now pass on python: remove them from it ({listed})"
            in out
        )
    assert "expectations --update LEDGER --results RESULTS.json" in out


EVENT_CLUSTER = {"pattern": "/frames/*/event", "kind": "null -> string"}


def run_crashing(path, ledger=None, results=None, error="UnicodeDecodeError"):
    """Run the cases on a platform whose every case crashes with ``error``."""
    register_platform("decoder", lambda: miniatures.ClassCrasher("decoder", error))
    argv = ["run", "--no-default-vectors", "--vectors", str(path), "--platform", "decoder"]
    argv += ["--expectations", str(ledger)] if ledger else []
    argv += ["--format", "json", "--output", str(results)] if results else []
    try:
        return main(argv)
    finally:
        unregister_platform("decoder")


def update(ledger, results):
    assert main(["expectations", "--update", str(ledger), "--results", str(results)]) == 0
    return json.loads(Path(ledger).read_text(encoding="utf-8"))["entries"]


DECODE_CRASH = {"pattern": "", "kind": "crash UnicodeDecodeError"}


def test_a_crash_cause_is_recorded_as_a_cluster_and_gated(capsys, three_cases, tmp_path):
    path, _ = three_cases
    results, ledger = tmp_path / "r.json", tmp_path / "decoder.json"
    run_crashing(path, results=results)
    [entry] = update(ledger, results)
    assert entry["cluster"] == DECODE_CRASH
    assert [c["case"] for c in entry["cases"]] == ["case-0", "case-1", "case-2"]
    entry["reason"] = "reviewed: strict UTF-8 decode"
    ledger.write_text(ledger_text({"platform": "decoder", "entries": [entry]}))
    capsys.readouterr()

    assert run_crashing(path, ledger, results) == 0  # the gate matches the cluster
    doc = json.loads(results.read_text())
    assert {r["status"] for r in doc["results"]} == {"xfail"}
    # Updated from the gated run's results, the crash stays recorded, review and all.
    assert update(ledger, results) == [entry]

    capsys.readouterr()
    assert run_crashing(path, ledger, error="TypeError") == 1  # another cause
    out = capsys.readouterr().out
    # The three cases that left the cluster the same way are one problem, not three.
    assert out.count("CHANGED: ") == 1
    assert (
        "3 cases no longer diverge in entry #0 (cluster (whole output): crash "
        "UnicodeDecodeError) on decoder: remove them from that entry (they now fail as "
        "(whole output): crash TypeError: sse-frames::case-0, sse-frames::case-1, "
        "sse-frames::case-2)"
    ) in out
    assert "ERROR sse-frames::case-0 [decoder]" in out


def test_crashes_whose_message_names_no_cause_stay_case_entries(three_cases, tmp_path):
    path, _ = three_cases
    results = tmp_path / "r.json"
    register_platform("crasher", lambda: miniatures.Crasher("crasher"))  # "boom"
    try:
        argv = ["run", "--no-default-vectors", "--vectors", str(path), "--platform", "crasher"]
        main([*argv, "--format", "json", "--output", str(results)])
    finally:
        unregister_platform("crasher")
    entries = update(tmp_path / "crasher.json", results)
    assert [(e["case"], e["fails"]) for e in entries] == [
        (f"case-{i}", {"crash": True}) for i in range(3)
    ]


@pytest.mark.parametrize("alike", [True, False])
def test_crash_case_entries_reviewed_alike_become_a_cluster_with_their_review(
    capsys, three_cases, tmp_path, alike
):
    """A ledger from before crashes had causes recorded them case by case: the update
    makes them one cluster, which keeps the review they all share (none if they differ)."""
    path, hashes = three_cases
    reasons = ["reviewed: strict UTF-8 decode"] * 3 if alike else ["a", "b", "b"]
    entries = [
        hello_entry({"hello": hashes[f"case-{i}"]}, case=f"case-{i}", fails={"crash": True})
        | {"reason": reason}
        for i, reason in enumerate(reasons)
    ]
    ledger = write_ledger(tmp_path, entries, platform="decoder")
    results = tmp_path / "r.json"
    assert run_crashing(path, ledger, results) == 0
    [entry] = update(ledger, results)
    assert entry["cluster"] == DECODE_CRASH
    if alike:
        assert entry["reason"] == "reviewed: strict UTF-8 decode"
        assert (entry["link"], entry["owner"]) == ("https://example.invalid/issue/1", "sse team")
    else:
        assert entry["reason"].startswith("unreviewed")


def test_update_refuses_a_run_where_the_platform_did_not_start(capsys, two_cases, tmp_path):
    path, _ = two_cases
    results = tmp_path / "r.json"
    missing = f"gone={tmp_path / 'no-such-worker'}"
    argv = ["run", "--no-default-vectors", "--vectors", str(path), "--worker", missing]
    main([*argv, "--platform", "gone", "--format", "json", "--output", str(results)])
    capsys.readouterr()
    ledger = tmp_path / "gone.json"
    assert main(["expectations", "--update", str(ledger), "--results", str(results)]) == 2
    _, err = capsys.readouterr()
    assert "gone did not run its cases" in err and "did not start" in err
    assert not ledger.exists()


def test_a_case_entry_records_the_crash_cause_and_holds_the_platform_to_it(
    capsys, two_cases, tmp_path
):
    """Below the cluster threshold a crash is a case entry; it records its cause, and a
    crash of another cause is a changed failure, not the expected one."""
    path, _ = two_cases
    results, ledger = tmp_path / "r.json", tmp_path / "decoder.json"
    run_crashing(path, results=results, error="TypeError")
    entries = update(ledger, results)
    assert [(e["case"], e["fails"]) for e in entries] == [
        ("hello", {"crash": "TypeError"}),
        ("empty", {"crash": "TypeError"}),
    ]
    capsys.readouterr()
    assert run_crashing(path, ledger, error="TypeError") == 0
    assert "2 xfail" in capsys.readouterr().out
    assert run_crashing(path, ledger, error="RangeError") == 1
    out = capsys.readouterr().out
    assert (
        "sse-frames::hello fails differently than entry #0 (sse-frames::hello) records: "
        'recorded {"crash": "TypeError"}, now {"crash": "RangeError"}'
    ) in out


def test_a_crash_recorded_without_its_cause_takes_any_cause_and_keeps_its_review(
    capsys, two_cases, tmp_path
):
    path, hashes = two_cases
    entry = {**hello_entry(hashes), "fails": {"crash": True}, "reason": "reviewed: crashes"}
    ledger = write_ledger(tmp_path, [entry], platform="decoder")
    results = tmp_path / "r.json"
    assert run_crashing(path, ledger, results, error="RangeError") == 1  # "empty" unledgered
    doc = json.loads(results.read_text())
    assert {r["case"]: r["status"] for r in doc["results"]} == {"hello": "xfail", "empty": "error"}
    kept = [e for e in update(ledger, results) if e["case"] == "hello"]
    assert kept[0]["fails"] == {"crash": "RangeError"}
    assert kept[0]["reason"] == "reviewed: crashes"


def lone_surrogate_data(output):
    for frame in output["frames"]:
        frame["data"] += "\ud800"
    return output


def test_an_output_no_json_can_hold_is_a_divergence_a_ledger_can_record(
    capsys, two_cases, tmp_path
):
    """A lone surrogate in an output cannot be written into the results; it still has a
    place (its pointer) and a kind, so it is clustered, reported and ledgered like any
    other divergence (it was a fail with no divergence: no entry could match it)."""
    path, _ = two_cases
    register_platform("lone", lambda: miniatures.Rewriter("lone", lone_surrogate_data))
    argv = ["run", "--no-default-vectors", "--vectors", str(path), "--platform", "lone"]
    results, ledger = tmp_path / "r.json", tmp_path / "lone.json"
    try:
        assert main([*argv, "--format", "json", "--output", str(results)]) == 1
        doc = json.loads(results.read_text())
        results_validator().validate(doc)
        [failed] = [r for r in doc["results"] if r["status"] == "fail"]
        [violation] = failed["schema_errors"]
        assert (violation["pointer"], violation["rule"]) == ("/frames/0/data", "i-json")
        assert [(c["pattern"], c["kind"]) for c in doc["summary"]["clusters"]] == [
            ("/frames/*/data", "not I-JSON")
        ]
        capsys.readouterr()
        assert main(["report", str(results)]) == 1
        out = capsys.readouterr().out
        assert "lone: 1 case, /frames/*/data: not I-JSON" in out
        assert "  not I-JSON: /frames/0/data: output is not valid I-JSON" in out
        [entry] = update(ledger, results)
        assert entry["fails"] == {"pointers": ["/frames/0/data"]}
        capsys.readouterr()
        assert main([*argv, "--expectations", str(ledger)]) == 0
        assert "1 xfail" in capsys.readouterr().out
    finally:
        unregister_platform("lone")


NEVER_STARTS = f"{sys.executable} -c 'import sys; sys.exit(3)'"


def test_a_platform_that_never_started_never_gates_green(capsys, two_cases, tmp_path):
    """A ledger whose every entry expects a crash still fails the gate when the platform
    did not start: its cases stay errors, and the ledger says once that it went unchecked
    (not one "changed" line per entry)."""
    path, hashes = two_cases
    entries = [
        {**hello_entry(hashes), "fails": {"crash": True}},
        {**hello_entry(hashes, case="empty", hash=hashes["empty"]), "fails": {"crash": True}},
    ]
    ledger = write_ledger(tmp_path, entries, platform="gone")
    argv = ["run", "--no-default-vectors", "--vectors", str(path)]
    argv += ["--worker", f"gone={NEVER_STARTS}", "--platform", "gone", "--expectations", ledger]
    assert main(argv) == 1
    out = capsys.readouterr().out
    assert "DIVERGED: 2 results: 0 pass, 0 fail, 2 error, 0 skip" in out
    assert "expectations: 1 problem\n  UNCHECKED: " in out
    assert "2 result(s) of cases it records were not checked, because the platform failed" in out
    assert "CHANGED" not in out


@pytest.mark.parametrize(
    "entry, where",
    [
        ({"cluster": {"pattern": "", "kind": "crash did not start"}}, "cluster/kind"),
        ({"cluster": {"pattern": "", "kind": "crash not run"}}, "cluster/kind"),
        ({"fails": {"crash": "unavailable"}}, "fails/crash"),
    ],
)
def test_a_ledger_cannot_record_a_platform_failing_as_a_whole(
    capsys, two_cases, tmp_path, entry, where
):
    path, hashes = two_cases
    ref = {"domain": "sse-frames", "case": "hello", "hash": hashes["hello"]}
    raw = {**hello_entry(hashes), **entry}
    if "cluster" in entry:
        raw = {"cluster": entry["cluster"], "cases": [ref], "reason": "r", "link": "", "owner": ""}
    ledger = write_ledger(tmp_path, [raw], platform="gone")
    argv = ["run", "--no-default-vectors", "--vectors", str(path)]
    argv += ["--worker", f"gone={NEVER_STARTS}", "--platform", "gone", "--expectations", ledger]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert f"/entries/0/{where}: " in err and "the platform failing as a whole" in err


def run_example(capsys, name, domain, ledger=False):
    """``run`` on the worker of ``examples/NAME/`` (with its ledger if ``ledger``)."""
    worker = f"{name}={sys.executable} {ROOT / 'examples' / name / 'worker.py'}"
    argv = ["run", "--worker", worker, "--platform", name, "--domain", domain]
    if ledger:
        argv += ["--expectations", str(ROOT / "examples" / name / "expectations.json")]
    code = main(argv)
    return code, capsys.readouterr().out


def test_the_httpx_sse_example_gates_green_on_its_ledger(capsys):
    code, out = run_example(capsys, "httpx-sse", "sse-frames", ledger=True)
    assert code == 0, out[-3000:]
    assert " 0 fail, 0 error" in out and "149 xfail" in out
    assert "134 cases (all xfail), /frames/*/id: null -> string" in out


def test_authlib_accepts_a_verifier_ending_in_lf_and_gates_green_on_its_ledger(capsys):
    """Authlib 1.9.6 (PyPI), its server-side check of a code_verifier: Python's `$`
    matches before a final newline, so a verifier ending in LF passes its pattern."""
    code, out = run_example(capsys, "authlib", "oauth-pkce")
    assert code == 1
    assert "authlib: 2 cases, (whole output): error invalid_verifier -> output" in out
    assert "FAIL oauth-pkce::length-128-then-newline [authlib]" in out
    code, out = run_example(capsys, "authlib", "oauth-pkce", ledger=True)
    assert code == 0, out[-3000:]
    assert "51 pass, 0 fail, 0 error, 0 skip, 2 xfail" in out


def test_hanzos_own_sdk_gates_green_on_its_ledger_and_fails_without_it(capsys):
    """hanzoai 2.1.3 (Hanzo's published Python SDK, examples/hanzoai/): its SSE decoder
    crashes on ill-formed UTF-8 and parses retry with int(); the ledger records that."""
    code, out = run_example(capsys, "hanzoai", "sse-frames")
    assert code == 1
    assert "hanzoai crashed: UnicodeDecodeError" in out
    assert "/frames/*/retry: null -> number" in out
    code, out = run_example(capsys, "hanzoai", "sse-frames", ledger=True)
    assert code == 0, out[-3000:]
    assert "137 pass, 0 fail, 0 error, 0 skip, 36 xfail" in out
    assert "17 cases (all xfail), (whole output): crash UnicodeDecodeError" in out


def test_shards_split_every_case_exactly_once_and_deterministically():
    vf = load_vector_file(ROOT / "vectors" / "sse-frames.json")
    shards = [{c.id for c in vf.cases if in_shard(vf.domain, c.id, (i, 3))} for i in (1, 2, 3)]
    assert set().union(*shards) == {c.id for c in vf.cases}
    assert sum(len(s) for s in shards) == len(vf.cases)
    assert all(len(s) > len(vf.cases) / 6 for s in shards)
    assert shards[0] == {c.id for c in vf.cases if in_shard(vf.domain, c.id, (1, 3))}


def test_bad_shards_are_usage_errors(capsys):
    for bad in ("0/2", "3/2", "x", "1/0"):
        with pytest.raises(SystemExit) as e:
            main(["run", "--shard", bad])
        assert e.value.code == 2
    assert "argument --shard" in capsys.readouterr().err


def result(platform, status, actual):
    return {"domain": "d", "case": "c", "platform": platform, "status": status, "actual": actual}


def test_triage_suspects_the_reference_or_the_vector():
    assert (
        triage([result("python", "fail", 1), result("rust", "pass", 2), result("js", "pass", 2)])[
            0
        ]["suspect"]
        == "reference"
    )
    assert (
        triage([result("python", "fail", 1), result("rust", "fail", 1), result("js", "fail", 1)])[
            0
        ]["suspect"]
        == "vector"
    )
    assert (
        triage([result("python", "pass", 2), result("rust", "fail", 1), result("js", "fail", 1)])[
            0
        ]["suspect"]
        == "vector or reference"
    )
    # Platforms that disagree with each other accuse nobody; nor does one platform alone.
    assert (
        triage([result("python", "pass", 2), result("rust", "fail", 1), result("js", "fail", 3)])
        == []
    )
    assert triage([result("python", "pass", 2), result("rust", "fail", 1)]) == []


def test_history_lists_the_cases_that_changed_status(capsys, messenger, two_cases, tmp_path):
    path, _ = two_cases
    first, second = tmp_path / "1.json", tmp_path / "2.json"
    main(
        [
            "run",
            "--no-default-vectors",
            "--vectors",
            str(path),
            "--platform",
            "python",
            "--format",
            "json",
            "--output",
            str(first),
        ]
    )
    main(
        [
            "run",
            "--no-default-vectors",
            "--vectors",
            str(path),
            "--platform",
            "python",
            "--platform",
            "messenger",
            "--format",
            "json",
            "--output",
            str(second),
        ]
    )
    capsys.readouterr()
    assert main(["history", str(first), str(second)]) == 0
    out = capsys.readouterr().out
    assert f"{first} -> {second}: 2 changed" in out
    assert "sse-frames::hello [messenger]: (absent) -> fail" in out
    assert "sse-frames::empty [messenger]: (absent) -> pass" in out


def test_triage_reaches_the_report_when_the_other_platforms_agree(capsys, two_cases, tmp_path):
    path, _ = two_cases
    register_platform("liar-a", lambda: miniatures.Liar("liar-a"))
    register_platform("liar-b", lambda: miniatures.Liar("liar-b"))
    results = tmp_path / "r.json"
    try:
        code = main(
            [
                "run",
                "--no-default-vectors",
                "--vectors",
                str(path),
                "--platform",
                "python",
                "--platform",
                "liar-a",
                "--platform",
                "liar-b",
                "--format",
                "json",
                "--output",
                str(results),
            ]
        )
    finally:
        unregister_platform("liar-a")
        unregister_platform("liar-b")
    out, _ = capsys.readouterr()
    assert code == 1
    assert "sse-frames::hello: liar-a, liar-b all produce the same output" in out
    doc = json.loads(results.read_text())
    (suspect,) = doc["summary"]["triage"]
    assert suspect["case"] == "hello" and suspect["suspect"] == "vector or reference"


def test_an_update_keeps_a_reviewed_cluster_below_the_threshold(two_cases, tmp_path):
    """Two cases are fewer than --update clusters by itself (3), but a cluster a
    reviewer made stays a cluster, review and all, while its cases still diverge in it."""
    path, hashes = two_cases
    refs = [{"domain": "sse-frames", "case": c, "hash": hashes[c]} for c in ("hello", "empty")]
    entry = {"cluster": DECODE_CRASH, "cases": refs, "reason": "reviewed", "link": "", "owner": "o"}
    ledger = write_ledger(tmp_path, [entry], platform="decoder")
    results = tmp_path / "r.json"
    assert run_crashing(path, ledger, results) == 0
    assert update(ledger, results) == [entry]


def _ledger_text_by_replacing(ledger):
    """The layout ledger_text keeps, as it was first written: indented JSON, then each
    case reference's indented text replaced by its one-line text (one pass per case)."""
    text = json.dumps(ledger, indent=2, ensure_ascii=False)
    for entry in ledger["entries"]:
        for ref in entry.get("cases", ()):
            long = json.dumps(ref, indent=2, ensure_ascii=False).replace("\n", "\n        ")
            text = text.replace("        " + long, "        " + json.dumps(ref, ensure_ascii=False))
    return text + "\n"


def _many_failing_cases(n):
    """A run's results where ``n`` cases of platform ``p`` fail: every third case in its
    own pointer (clusters of three), and each case also at a pointer of its own."""
    results = [
        {
            "platform": "p",
            "domain": "sse-frames",
            "case": f"case-{i}",
            "case_hash": f"{i:064x}",
            "status": "fail",
            "diff": [
                {"pointer": f"/shared-{i // 3}", "expected": 1, "actual": "1"},
                {"pointer": f"/own-{i}", "expected": None, "actual": []},
            ],
        }
        for i in range(n)
    ]
    return {"results": results}


def test_ledger_text_lays_case_references_on_one_line_without_a_rewrite_per_case():
    """`expectations --update` was quadratic: the whole text was rewritten once per case
    reference. The one-pass writer gives the same text and rewrites nothing."""
    from runners.gate.ledger import ledger_from_results

    ledger = ledger_from_results(_many_failing_cases(60), "p")
    ledger["description"] = "naïve — ünïcode stays text"
    ledger["entries"].append({"cluster": {"pattern": "", "kind": "x"}, "cases": [], "reason": ""})
    assert sum("cluster" in e for e in ledger["entries"]) == 21
    replaced = []

    def spy(frame, event, arg):
        if event == "c_call" and arg.__name__ == "replace" and isinstance(arg.__self__, str):
            replaced.append(1)

    sys.setprofile(spy)
    try:
        text = ledger_text(ledger)
    finally:
        sys.setprofile(None)
    assert text == _ledger_text_by_replacing(ledger)
    assert '        {"domain": "sse-frames", "case": "case-0", "hash": "' in text
    assert replaced == []


def test_update_reads_the_previous_case_reviews_once_not_once_per_cluster(monkeypatch):
    """A new cluster looks for the review its cases' previous case entries share: that
    table is built once per ledger, not once per cluster (quadratic in failing cases)."""
    from runners.gate import ledger as ledger_module
    from runners.gate.ledger import Entry, Ledger, ledger_from_results

    doc = _many_failing_cases(300)
    fails = {"pointers": sorted({"/own-0", "/shared-0"})}
    previous_entries = [
        Entry(
            i,
            {
                "domain": "sse-frames",
                "case": f"case-{i}",
                "hash": f"{i:064x}",
                "fails": fails,
                "reason": "r",
                "link": "",
                "owner": "",
            },
        )
        for i in range(300)
    ]
    previous = Ledger(Path("p.json"), "p", previous_entries)
    reviews = []
    real = ledger_module._review
    monkeypatch.setattr(ledger_module, "_review", lambda raw: reviews.append(1) or real(raw))
    ledger = ledger_from_results(doc, "p", previous)
    assert sum("cluster" in e for e in ledger["entries"]) == 100
    # Each cluster keeps the review all three of its cases' previous entries share.
    assert all(e["reason"] == "r" for e in ledger["entries"] if "cluster" in e)
    assert len(reviews) <= 2 * len(previous_entries)


def test_an_update_from_a_run_of_one_domain_keeps_what_the_ledger_says_of_the_others():
    """A ledger may span domains (hanzoai's does) and a run need not: updating it from a
    run of sse-frames alone keeps the hooks cases of a cluster and a hooks case entry,
    reviews and all; a run that covers hooks and finds them passing drops them."""
    from runners.gate.ledger import Entry, Ledger, ledger_from_results

    doc = _many_failing_cases(3)
    (cluster, *_) = [e for e in ledger_from_results(doc, "p")["entries"] if "cluster" in e]
    other = {"domain": "hooks", "case": "h", "hash": "f" * 64}
    previous_cluster = {**cluster, "cases": [*cluster["cases"], other], "reason": "R"}
    hooks_entry = {**other, "case": "g", "fails": {"pointers": ["/y"]}, "reason": "G"}
    hooks_entry.update(link="", owner="")
    previous = Ledger(Path("p.json"), "p", [Entry(0, previous_cluster), Entry(1, hooks_entry)])
    ledger = ledger_from_results(doc, "p", previous)
    kept = next(e for e in ledger["entries"] if e.get("cluster") == cluster["cluster"])
    assert kept["cases"][-1] == other and len(kept["cases"]) == 4
    assert kept["reason"] == "R"
    assert hooks_entry in ledger["entries"]
    # The same update from a run that also ran the hooks cases, which now pass.
    passing = [
        {
            "platform": "p",
            "domain": "hooks",
            "case": c,
            "case_hash": "f" * 64,
            "status": "pass",
            "diff": [],
        }
        for c in ("g", "h")
    ]
    ledger = ledger_from_results({"results": [*doc["results"], *passing]}, "p", previous)
    kept = next(e for e in ledger["entries"] if e.get("cluster") == cluster["cluster"])
    assert other not in kept["cases"] and hooks_entry not in ledger["entries"]
