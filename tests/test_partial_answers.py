"""Partial answers and skip reasons (issue 29, part 4): a worker that declares two output
fields absent has the rest of its outputs compared, and such results are ``partial`` in
every format and the gate, never ``pass``; skip reasons are grouped in every format."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

from adapters.protocol import BaseAdapter
from adapters.worker import WorkerAdapter
from runners._cli import main
from runners.judge.outcomes import judge_response, without_absent
from runners.reports.results_file import ResultsFileError, read_results
from runners.run.batches import run_cases, start_platform
from runners.vectors.load import VECTORS_DIR, Case, load_vector_file

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
WORKER = TESTS / "fake_workers" / "partial_worker.py"
VECTORS = ROOT / "vectors" / "permission-policy.json"
WRONG = "permission-policy/no-rules-prompts#0"  # the worker's wrong mode goes here
KEPT = "permission-policy/first-match-wins#0"  # and a declared-absent audit here
SKIPPED = "permission-policy/star-*"  # skipped, "no glob patterns"
FIELDS = ["/audit", "/rule_index"]


def _cases() -> int:
    return len(load_vector_file(VECTORS_DIR / "permission-policy.json").cases)


@pytest.fixture(autouse=True)
def _importable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHONPATH", str(ROOT))  # the worker serves the Python reference


def worker(*switches: str) -> str:
    return shlex.join([sys.executable, str(WORKER), *switches])


def run_json(capsys: Any, tmp_path: Path, *switches: str, ledger: Path | None = None):
    out = tmp_path / "results.json"
    argv = ["run", "--platform", "partial", "--worker", f"partial={worker(*switches)}"]
    argv += ["--domain", "permission-policy", "--format", "json", "--output", str(out)]
    if ledger is not None:
        argv += ["--expectations", str(ledger)]
    code = main(argv)
    capsys.readouterr()
    return code, read_results(out), out


def by_case(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {r["case"]: r for r in doc["results"]}


def test_declared_fields_are_not_compared_and_the_rest_is(capsys, tmp_path):
    code, doc, _ = run_json(capsys, tmp_path, "--wrong-mode-on", WRONG, "--keep-audit-on", KEPT)
    results = by_case(doc)
    summary = doc["summary"]
    # Every case expecting an output lacks two fields: partial, never pass.
    partial = [r for r in doc["results"] if r["status"] == "partial"]
    assert len(partial) == summary["partial"] == summary["partial_unrecorded"] > 50
    assert all(r["absent"] == FIELDS for r in partial)
    # Cases expecting a contract error have nothing absent: they pass.
    assert results["invalid-mode-capitalized"]["status"] == "pass"
    assert summary["pass"] == sum(1 for r in doc["results"] if "absent" not in r)
    # A wrong value in a field it has: a plain failure, at that pointer only.
    wrong = results["no-rules-prompts"]
    assert wrong["status"] == "fail" and wrong["absent"] == FIELDS
    assert [d["pointer"] for d in wrong["diff"]] == ["/mode"]
    # A field declared absent that the answer has all the same is the worker's
    # invention: an extra value, a failure.
    kept = results["first-match-wins"]
    assert kept["status"] == "fail"
    assert [(d["pointer"], "expected" in d) for d in kept["diff"]] == [("/audit", False)]
    assert summary["fail"] == 2 and summary["diverged"]
    assert summary["partials"] == [
        {
            "platform": "partial",
            "domain": "permission-policy",
            "absent": FIELDS,
            "count": len(partial),
            "cases": [r["case"] for r in partial[:3]],
        }
    ]
    assert summary["platforms"]["partial"]["absent"] == {"permission-policy": FIELDS[::-1]}
    assert code == 1


def test_partial_answers_alone_fail_the_gate_and_a_ledger_records_them(capsys, tmp_path):
    code, doc, out = run_json(capsys, tmp_path)
    assert code == 1 and not doc["summary"]["diverged"] and doc["summary"]["partial_unrecorded"]
    assert {r["status"] for r in doc["results"]} == {"pass", "partial"}
    ledger = tmp_path / "ledger.json"
    assert main(["expectations", "--update", str(ledger), "--results", str(out)]) == 0
    entries = json.loads(ledger.read_text())["entries"]
    assert entries and all(e["fails"] == {"absent": FIELDS} for e in entries)
    code, doc, _ = run_json(capsys, tmp_path, ledger=ledger)
    summary = doc["summary"]
    # Recorded: the gate passes; the results stay partial, counted and shown as such.
    assert code == 0 and "partial_unrecorded" not in summary
    assert summary["partial"] == len(entries) and summary.get("xfail", 0) == 0
    assert all("expectation" in r for r in doc["results"] if r["status"] == "partial")
    # A recorded partial whose other fields now differ is a ledger problem.
    code, doc, _ = run_json(capsys, tmp_path, "--wrong-mode-on", WRONG, ledger=ledger)
    assert code == 1
    assert by_case(doc)["no-rules-prompts"]["status"] == "fail"
    kinds = [p["kind"] for p in doc["summary"]["expectations"]["problems"]]
    assert kinds == ["changed"]


def test_per_response_declarations_are_judged_the_same(capsys, tmp_path):
    _, doc, _ = run_json(capsys, tmp_path, "--per-response", "--wrong-mode-on", WRONG)
    assert "absent" not in doc["summary"]["platforms"]["partial"]
    results = by_case(doc)
    assert results["literal-exact-match"]["status"] == "partial"
    assert results["literal-exact-match"]["absent"] == FIELDS
    assert results["no-rules-prompts"]["status"] == "fail"
    assert doc["summary"]["partial"] > 50


def test_every_format_shows_partials_and_skip_reasons(capsys, tmp_path):
    _, _, out = run_json(capsys, tmp_path, "--wrong-mode-on", WRONG, "--skip-on", SKIPPED)
    doc = read_results(out)
    skipped = [r for r in doc["results"] if r["status"] == "skip"]
    assert len(skipped) >= 5
    [group] = doc["summary"]["skips"]
    assert (group["reason"], group["count"]) == (
        "not applicable to partial: no glob patterns",
        len(skipped),
    )
    assert len(group["cases"]) == 3
    texts = {}
    for fmt in ("text", "markdown", "html"):
        target = tmp_path / f"report.{fmt}"
        main(["report", str(out), "--format", fmt, "--output", str(target)])
        texts[fmt] = target.read_text(encoding="utf-8")
    capsys.readouterr()
    text = texts["text"]
    assert f"skipped, by reason: {len(skipped)} results" in text
    assert f"[partial] permission-policy: {len(skipped)} skip: not applicable to partial: " in text
    assert "no glob patterns" in text
    assert "partial answers:" in text
    assert "not compared (declared absent): /audit, /rule_index" in text
    assert f"{doc['summary']['partial']} partial" in text.splitlines()[-1]
    markdown = texts["markdown"]
    assert "## Skipped, by reason" in markdown and "no glob patterns" in markdown
    assert "## Partial answers" in markdown
    row = f"| partial | permission-policy | {doc['summary']['partial']} | /audit, /rule_index |"
    assert row in markdown
    assert f"{doc['summary']['partial']} partial" in markdown
    html = texts["html"]
    assert '"partials":[{' in html and "no glob patterns" in html
    assert "partial answers (fields declared absent, not compared)" in html
    # The live run's terminal view says the same.
    main(
        [
            "run",
            "--platform",
            "partial",
            "--worker",
            f"partial={worker('--skip-on', SKIPPED)}",
            "--domain",
            "permission-policy",
        ]
    )
    live = capsys.readouterr().out
    assert "skipped, by reason:" in live and "no glob patterns" in live
    assert "partial answers:" in live and live.splitlines()[-1].startswith("PARTIAL: ")


def test_the_terminal_bounds_the_groups_and_files_have_them_all(capsys, tmp_path):
    # One reason per case (a worker naming the case in its reason): a group per case.
    switches = ("--skip-on", "*", "--skip-reason", "nothing for {id}")
    _, _, out = run_json(capsys, tmp_path, *switches)
    cases = _cases()
    assert len(read_results(out)["summary"]["skips"]) == cases
    main(["report", str(out)])
    terminal = capsys.readouterr().out
    assert f"… {cases - 10} more groups" in terminal
    assert terminal.count(" skip: not applicable to partial: nothing for ") == 10
    target = tmp_path / "full.txt"
    main(["report", str(out), "--output", str(target)])
    full = target.read_text()
    assert "more groups" not in full and full.count(" skip: not applicable to partial: ") == cases
    # run's own text file too, while its terminal view stays bounded.
    target = tmp_path / "run.txt"
    argv = ["run", "--platform", "partial", "--worker", f"partial={worker(*switches)}"]
    main([*argv, "--domain", "permission-policy", "--output", str(target)])
    assert f"… {cases - 10} more groups" in capsys.readouterr().out
    full = target.read_text()
    assert "more groups" not in full and full.count(" skip: not applicable to partial: ") == cases


def test_a_summary_whose_groups_its_results_do_not_bear_out_is_refused(capsys, tmp_path):
    _, _, out = run_json(capsys, tmp_path, "--skip-on", SKIPPED)
    doc = json.loads(out.read_text())
    doc["summary"]["skips"][0]["count"] += 1
    out.write_text(json.dumps(doc))
    with pytest.raises(ResultsFileError, match="skip group partial permission-policy"):
        read_results(out)
    doc["summary"]["skips"][0]["count"] -= 1
    doc["summary"].pop("partial_unrecorded")  # as if a ledger recorded them: a green gate
    out.write_text(json.dumps(doc))
    with pytest.raises(ResultsFileError, match=r"partial_unrecorded 0 \(the results have"):
        read_results(out)


def test_junit_marks_partials_and_groups_skip_reasons(pytester: pytest.Pytester):
    (pytester.path / "vectors").mkdir()
    (pytester.path / "vectors" / "permission-policy.json").write_text(
        VECTORS.read_text(encoding="utf-8"), encoding="utf-8"
    )
    pytester.makeini("[pytest]\nhanzo_conformance_vectors = vectors\n")
    command = worker("--skip-on", SKIPPED)
    result = pytester.runpytest_inprocess(
        "--platform", "partial", "--worker", f"partial={command}", "--junitxml=out.xml"
    )
    xml = (pytester.path / "out.xml").read_text()
    outcomes = result.parseoutcomes()
    assert outcomes["failed"] > 50 and outcomes["skipped"] >= 5  # unrecorded partials fail
    assert '<property name="status" value="partial"' in xml
    assert "not compared (declared absent): /audit, /rule_index" in xml
    assert '<property name="skip [partial] permission-policy" value="' in xml
    assert "not applicable to partial: no glob patterns" in xml
    assert '<property name="partial [partial] permission-policy" value="' in xml
    result.stdout.fnmatch_lines(
        ["*hanzo-conformance skips and partial answers*", "*skipped, by reason: *"]
    )


def _case(expected: Any) -> Case:
    return Case("permission-policy", "x", "", (), {}, (), {"i": 1}, expected=expected)


DENY = {
    "mode": "deny",
    "rule_index": 0,
    "reason": "no",
    "audit": {"tool_name": "fs.write", "mode": "deny", "rule_matched": 0, "reason": "no"},
}


def test_judge_response_owns_the_rule():
    case = _case(DENY)
    has = {"mode": "deny", "reason": "no"}
    partial = judge_response(case, {"output": has}, [], None, absent=FIELDS)
    assert partial == ([], [], ("/audit", "/rule_index"))
    wrong = judge_response(case, {"output": {**has, "mode": "allow"}}, [], None, absent=FIELDS)
    assert [d.pointer for d in wrong.differences] == ["/mode"] and not wrong.violations
    # A field it has is still checked against the output schema.
    bad = judge_response(case, {"output": {"mode": "deny"}}, [], None, absent=FIELDS)
    assert [v.message for v in bad.violations] == ["'reason' is a required property"]
    # Undeclared, the same answer lacks two fields: differences and schema violations.
    full = judge_response(case, {"output": has}, [], None)
    assert {d.pointer for d in full.differences} == {"/audit", "/rule_index"} and full.violations
    # Declared on the answer itself.
    answer = {"output": {**has, "rule_index": 0}, "absent": ["/audit"]}
    assert judge_response(case, answer, [], None) == ([], [], ("/audit",))
    # A declared field the case does not expect was compared in full: nothing partial.
    whole = {"mode": "prompt", "rule_index": None, "reason": None, "audit": DENY["audit"]}
    judged = judge_response(_case(whole), {"output": whole}, [], None, absent=["/nope"])
    assert judged == ([], [], ())


def test_without_absent_reads_stars_and_leaves_its_inputs_alone():
    expected = {"rules": [{"i": 1, "x": 2}, {"i": 3, "x": 4}], "m": {"a": {"i": 5}}}
    actual = {"rules": [{"x": 2}, {"x": 4}], "m": {"a": {}}}
    rest, filled, found = without_absent(expected, actual, ["/rules/*/i", "/m/*/i", "/nope"])
    assert rest == {"rules": [{"x": 2}, {"x": 4}], "m": {"a": {}}}
    assert filled == expected  # the expected values stand in, for the schema check only
    assert found == ("/m/*/i", "/rules/*/i")
    assert actual == {"rules": [{"x": 2}, {"x": 4}], "m": {"a": {}}}
    assert expected["rules"][0] == {"i": 1, "x": 2}
    # A field inside one declared with it: gone with its holder.
    nested = {"a": {"b": {"c": 1}}, "d": 2}
    assert without_absent(nested, {"d": 2}, ["/a", "/a/b/c"]) == (
        {"d": 2},
        {"d": 2, "a": {"b": {"c": 1}}},
        ("/a", "/a/b/c"),
    )


def test_a_declaration_the_protocol_schema_refuses_fails_the_start():
    adapter = WorkerAdapter("bad", [sys.executable, "-c", _BAD_HANDSHAKE], timeout=10.0)
    started = start_platform("bad", adapter)
    assert started.implementation is None
    assert "started.json" in (started.failure or "")


_BAD_HANDSHAKE = """
import json, sys
sys.stdin.readline()
print(json.dumps({"ok": True, "implementation": {"name": "b", "version": "0", "language": "x",
      "domains": ["permission-policy"], "absent": {"permission-policy": ["audit"]}}}), flush=True)
sys.stdin.read()
"""


def test_run_cases_on_a_worker_adapter_is_partial():
    adapter = WorkerAdapter("partial", shlex.split(worker()), timeout=30.0)
    platform = start_platform("partial", adapter)
    try:
        vf = load_vector_file(VECTORS)
        outcomes = list(run_cases(platform, vf, vf.cases))
    finally:
        adapter.stop()
    statuses = {o.status for o in outcomes}
    assert statuses == {"pass", "partial"}
    assert all(o.absent == ("/audit", "/rule_index") for o in outcomes if o.status == "partial")


def test_the_html_page_shows_partials_and_skip_reasons(capsys, tmp_path):
    from playwright.sync_api import sync_playwright
    from test_html_report import chromium_path

    _, _, out = run_json(capsys, tmp_path, "--wrong-mode-on", WRONG, "--skip-on", SKIPPED)
    html = tmp_path / "report.html"
    main(["report", str(out), "--format", "html", "--output", str(html)])
    capsys.readouterr()
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium_path(), args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(html.as_uri())
        assert page.locator("#verdict").inner_text().startswith(f"DIVERGED: {_cases()} results: ")
        assert " partial, " in page.locator("#verdict").inner_text()
        skipped = page.locator("#gate table.skips").inner_text()
        assert "not applicable to partial: no glob patterns" in skipped
        partials = page.locator("#gate table.partials").inner_text()
        assert "/audit, /rule_index" in partials
        page.select_option("#f-status", "partial")
        assert page.locator("#cases li").count() > 50
        page.locator("#cases li", has_text="permission-policy::literal-exact-match").click()
        shown = page.locator('#detail section[data-platform="partial"]').inner_text()
        assert "not compared (declared absent): /audit, /rule_index" in shown
        assert "partial, never a pass" in shown
        assert errors == []
        browser.close()


class LackingTwoFields(BaseAdapter):
    """An in-process platform (the Python reference) without ``rule_index`` and ``audit``,
    declared in its ``Implementation``: served from a child like python and rust."""

    name = "lacking-fields"

    def __init__(self) -> None:
        from adapters.python import PythonAdapter

        self.inner = PythonAdapter()

    def start(self) -> Any:
        import dataclasses

        implementation = self.inner.start()
        return dataclasses.replace(implementation, absent={"permission-policy": tuple(FIELDS)})

    def run(self, requests: Any) -> list[Any]:
        out = []
        for response in self.inner.run(requests):
            if isinstance(response.get("output"), dict):
                response = {**response, "output": dict(response["output"])}
                for field in FIELDS:
                    response["output"].pop(field[1:], None)
            out.append(response)
        return out

    def stop(self) -> None:
        self.inner.stop()


def test_a_served_in_process_platform_declares_its_fields_too(monkeypatch):
    monkeypatch.setenv("PYTHONPATH", f"{ROOT}:{TESTS}")
    command = [sys.executable, "-m", "adapters.serve", "test_partial_answers:LackingTwoFields"]
    adapter = WorkerAdapter("lacking-fields", command, timeout=30.0)
    platform = start_platform("lacking-fields", adapter)
    try:
        assert platform.implementation is not None
        assert platform.implementation.absent == {"permission-policy": tuple(FIELDS)}
        vf = load_vector_file(VECTORS)
        statuses = {o.status for o in run_cases(platform, vf, vf.cases)}
    finally:
        adapter.stop()
    assert statuses == {"pass", "partial"}


def test_under_pytest_a_recorded_partial_is_an_xfail_naming_its_fields(
    capsys, tmp_path, pytester: pytest.Pytester
):
    _, _, out = run_json(capsys, tmp_path)
    ledger = tmp_path / "ledger.json"
    assert main(["expectations", "--update", str(ledger), "--results", str(out)]) == 0
    capsys.readouterr()
    (pytester.path / "vectors").mkdir()
    (pytester.path / "vectors" / "permission-policy.json").write_text(
        VECTORS.read_text(encoding="utf-8"), encoding="utf-8"
    )
    pytester.makeini("[pytest]\nhanzo_conformance_vectors = vectors\n")
    result = pytester.runpytest_inprocess(
        "--platform",
        "partial",
        "--worker",
        f"partial={worker()}",
        f"--expectations={ledger}",  # one word: a separate one would be taken for a path
        "-rx",
    )
    outcomes = result.parseoutcomes()
    assert "failed" not in outcomes and outcomes["xfailed"] > 50 and outcomes["passed"] > 0
    result.stdout.fnmatch_lines(["*partial: not compared (declared absent): /audit, /rule_index*"])
    assert result.ret == 0


def test_history_counts_partial_answers(capsys, tmp_path):
    _, doc, out = run_json(capsys, tmp_path)
    partials = doc["summary"]["partial"]
    assert partials > 0
    main(["history", str(out), str(out)])
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith(f"  {out}"))
    assert f" pass, {partials} partial, " in line
