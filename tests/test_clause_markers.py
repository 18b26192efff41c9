"""Clause markers (issue 31 part 3, issue 29 part 3): a contract marks the clauses that
depart from HIP-301 (or fill a gap it leaves) and the security-relevant ones; cases
inherit them through their clauses, and every report shows them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import miniatures
import pytest
from conftest import hello_case, vector_document

from adapters.registry import register_platform, unregister_platform
from runners._cli import main
from runners.reports.html import page_data
from runners.reports.markdown import render_markdown
from runners.vectors.clauses import (
    ContractError,
    contract_in,
    domain_contract,
)
from runners.vectors.schemas import results_validator

ROOT = Path(__file__).resolve().parent.parent

CONTRACT = """# sse-frames (a test contract)

### SSE-1: chunking does not matter

departs-from: HIP-301 §3 "def feed(self, chunk: str)" — fed bytes, as a marker test says

Text of the clause.

### SSE-2: leading BOM

security: a marker test's security reason

### SSE-3: line endings

- **SSE-3a.** A list-item clause.

  fills-gap: HIP-301 §3 — a gap this test fills
- **SSE-3b.** Another one, unmarked.
"""


def test_markers_belong_to_the_clause_whose_body_holds_them():
    text = """# c

### X-1: heading clause

departs-from: HIP-301 §5 "a single \\"assistant\\" message" -- why one

- an ordinary item
- **X-1a.** an item clause
  - a nested ordinary item

  security: why two
- **X-1b.** unmarked

security: back at the margin: X-1's
"""
    contract = contract_in(text, "c.md")
    assert contract.ids == {"X-1", "X-1a", "X-1b"}
    assert [m.to_json() for m in contract.markers["X-1"]] == [
        {
            "kind": "departs-from",
            "section": "§5",
            "quote": 'a single "assistant" message',
            "reason": "why one",
        },
        {"kind": "security", "reason": "back at the margin: X-1's"},
    ]
    assert [m.reason for m in contract.markers["X-1a"]] == ["why two"]
    assert "X-1b" not in contract.markers
    assert contract.markers["X-1"][0].text() == (
        'departs from HIP-301 §5 "a single "assistant" message": why one'
    )


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ("departs-from: HIP-301 §5 — no quote", "quotes the HIP-301 text"),
        ('departs-from: HIP 301 "x" — reason', "HIP-301 [§N]"),
        ('departs-from: HIP-301 "x"', "HIP-301 [§N]"),
        ("security:", "needs a reason"),
        ('departs from: HIP-301 "x" — reason', "unknown marker 'departs from'"),
        ("Fill-gap: HIP-301 — x", "unknown marker 'Fill-gap'"),
        ("Security: capitalised", "unknown marker 'Security'; write one of"),
        ("- security: a bullet", "not a list item"),
    ],
)
def test_a_malformed_marker_is_an_error_naming_file_and_line(line, says):
    text = f"# c\n\n### X-1: a clause\n\n{line}\n"
    with pytest.raises(ContractError) as raised:
        contract_in(text, "docs/domains/c.md")
    assert str(raised.value).startswith("docs/domains/c.md:5: ")
    assert says in str(raised.value)


def test_a_marker_outside_a_clause_or_twice_is_an_error():
    with pytest.raises(ContractError, match=r"c\.md:3: .*no clause's body"):
        contract_in("# c\n\nsecurity: nobody's\n", "c.md")
    with pytest.raises(ContractError, match=r"c\.md:5: .*list item that defines no clause"):
        contract_in("### X-1: a\n\n- plain item\n\n  security: whose?\n", "c.md")
    with pytest.raises(ContractError, match=r"c\.md:4: X-1 already has a `security:` marker"):
        contract_in("### X-1: a\n\nsecurity: one\nsecurity: two\n", "c.md")
    # A marker-like line in a code fence is an example, not a marker.
    fenced = contract_in("### X-1: a\n\n```\nsecurity:\n```\n", "c.md")
    assert fenced.markers == {}


def test_validate_names_the_contract_and_line_of_a_malformed_marker(tmp_path, capsys):
    broken = CONTRACT.replace("security: a marker test's security reason", "security:  ")
    schemas = _schemas(tmp_path, broken)
    vectors = tmp_path / "v"
    vectors.mkdir()
    (vectors / "sse-frames.json").write_text(json.dumps(vector_document([hello_case()])))
    code = main(["validate", "--no-default-vectors", "--vectors", str(vectors), *schemas])
    assert code == 2
    err = capsys.readouterr().err
    assert f"{tmp_path / 's' / 'sse-frames.md'}:11: `security:` needs a reason" in err


def test_the_contracts_mark_their_departures_from_hip_301():
    compaction = domain_contract("session-compaction")
    assert compaction is not None
    (summary_role,) = compaction.markers["COMP-12"]
    assert summary_role.kind == "departs-from"
    assert "a single assistant message" in (summary_role.quote or "")
    for domain, clause, kind in [
        ("session-compaction", "COMP-1", "departs-from"),  # results may exceed max_tokens
        ("session-compaction", "COMP-7", "departs-from"),  # the 0.9 trigger in compact()
        ("session-compaction", "COMP-9", "fills-gap"),  # pruning before summarizing
        ("config-merge", "CFG-1", "departs-from"),  # the XDG path
        ("mcp-normalization", "MCP-4", "departs-from"),  # hashed past 64 characters
        ("config-merge", "CFG-12", "security"),  # sensitive tiers
        ("config-merge", "CFG-19", "security"),  # environment precedence
        ("hooks", "HOOK-8", "security"),  # exit codes
        ("hooks", "HOOK-9", "security"),  # timeouts
        ("sandbox-paths", "SBX-12", "security"),  # escapes
        ("mcp-normalization", "MCP-8c", "security"),  # name collisions
        ("mcp-stdio", "STDIO-12b", "departs-from"),  # integer request ids
        ("mcp-stdio", "STDIO-17a", "security"),  # the parent's secrets stay with it
        ("mcp-stdio", "STDIO-6", "security"),  # line length
        ("oauth-pkce", "PKCE-2", "departs-from"),  # the unreserved set, not base64url
        ("oauth-authorize", "CB-3", "security"),  # state
        ("oauth-authorize", "AUTH-7", "security"),  # resource indicators
        ("stream-assembly", "STREAM-7c", "security"),  # cut tool calls never run
        ("http-retry", "RETRY-6", "departs-from"),  # backoff-timing's delay, at most cap - 1
        ("lsp-positions", "LSP-1", "fills-gap"),  # what `character` counts
    ]:
        contract = domain_contract(domain)
        assert contract is not None
        assert kind in [m.kind for m in contract.markers.get(clause, ())], (domain, clause)
    # Every contract's markers parse, and every marked clause is one the contract defines.
    for path in sorted((ROOT / "docs/domains").glob("*.md")):
        contract = contract_in(path.read_text(encoding="utf-8"), str(path))
        assert set(contract.markers) <= contract.ids, path


# -- reports ------------------------------------------------------------------------


def _schemas(tmp_path: Path, contract: str = CONTRACT) -> list[str]:
    """``--schemas DIR`` holding sse-frames' schema and a contract with markers."""
    folder = tmp_path / "s"
    folder.mkdir(exist_ok=True)
    shutil.copy(ROOT / "schemas/sse-frames.schema.json", folder)
    (folder / "sse-frames.md").write_text(contract, encoding="utf-8")
    return ["--schemas", str(folder)]


def _frame_case(i: int, clause: str) -> dict[str, object]:
    return hello_case(
        id=f"case-{i}",
        clauses=[clause],
        input={"chunks": [f"data: {i}\n\n"]},
        expected={"frames": [{"event": None, "data": str(i), "id": None, "retry": None}]},
    )


def _run(tmp_path: Path, cases: list[dict[str, object]], rewrite, *more: str) -> Path:
    vectors = tmp_path / "v"
    vectors.mkdir(exist_ok=True)
    (vectors / "sse-frames.json").write_text(json.dumps(vector_document(cases, variants=[])))
    register_platform("wrong", lambda: miniatures.Rewriter("wrong", rewrite))
    results = tmp_path / "results.json"
    try:
        code = main(
            [
                "run",
                "--no-default-vectors",
                "--vectors",
                str(vectors),
                *_schemas(tmp_path),
                "--platform",
                "wrong",
                "--format",
                "json",
                "--output",
                str(results),
                *more,
            ]
        )
    finally:
        unregister_platform("wrong")
    assert code == 1
    return results


def _wrong_event(output):
    output["frames"][0]["event"] = "message"
    return output


def test_a_divergence_on_a_departing_clause_shows_the_departure_in_every_format(tmp_path, capsys):
    results = _run(tmp_path, [_frame_case(0, "SSE-1")], _wrong_event)
    live = capsys.readouterr().out
    doc = json.loads(results.read_text())
    results_validator().validate(doc)
    # JSON: the marked clauses of the run's domains, and the cluster naming its departure.
    marked = doc["summary"]["marked_clauses"]
    assert marked["sse-frames::SSE-1"] == [
        {
            "kind": "departs-from",
            "section": "§3",
            "quote": "def feed(self, chunk: str)",
            "reason": "fed bytes, as a marker test says",
        }
    ]
    assert doc["summary"]["clusters"][0]["hip301"] == ["SSE-1"]
    why = 'SSE-1 departs from HIP-301 §3 "def feed(self, chunk: str)": fed bytes, as a marker test'
    assert why in live  # the run's own report
    for fmt in ("text", "markdown", "html"):
        out = tmp_path / f"report.{fmt}"
        assert main(["report", str(results), "--format", fmt, "--output", str(out)]) == 1
        text = out.read_text(encoding="utf-8")
        if fmt == "html":  # the page's data, which its script shows (test_html_report.py)
            text = text[text.index('type="application/json">') + 24 : text.index("</script>")]
            text = json.dumps(json.loads(text), ensure_ascii=False)
            why_shown = why.replace('"', '\\"')
        else:
            why_shown = why
        assert why_shown in text, fmt
    data = page_data(doc)
    assert data["cases"]["sse-frames::case-0"]["marks"] == [why + " says"]
    assert data["marked"][0]["diverged"] == ["sse-frames::case-0"]
    # A case on an unmarked clause says nothing of HIP-301.
    doc["cases"]["sse-frames::case-0"]["clauses"] = ["SSE-3b"]
    assert "departs from" not in render_markdown(doc)


def test_list_shows_each_domains_departures_and_security_clauses(capsys, tmp_path):
    assert main(["list", "--domain", "session-compaction"]) == 0
    out = capsys.readouterr().out
    listed = out[out.index("departs from HIP-301 or fills a gap in it:") :]
    line = next(x for x in listed.splitlines() if x.strip().startswith("COMP-12 ("))
    assert 'departs from HIP-301 §5 "Middle messages summarized into a single assistant' in line
    assert "cases): " in line
    vectors = tmp_path / "v"
    vectors.mkdir()
    (vectors / "sse-frames.json").write_text(
        json.dumps(vector_document([_frame_case(0, "SSE-2"), _frame_case(1, "SSE-2")]))
    )
    args = ["list", "--no-default-vectors", "--vectors", str(vectors), *_schemas(tmp_path)]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "  departs from HIP-301 or fills a gap in it:\n    SSE-1 (0 cases): departs from" in out
    assert "    SSE-3a (0 cases): fills a gap in HIP-301 §3: a gap this test fills" in out
    assert "  security-relevant:\n    SSE-2 (2 cases): a marker test's security reason" in out


def _many_causes(output):
    """A cluster per case number (an extra member ``k<n>`` in the frame)."""
    frame = output["frames"][0]
    frame["k" + frame["data"]] = 1
    return output


def test_a_cluster_is_security_relevant_when_half_its_cases_cite_the_clause(tmp_path, capsys):
    # One cause in three cases, one citing SSE-2 (security): the clause is a note there,
    # not what the cluster is about; in two cases of three it is.
    def rewrite(output):
        output["frames"][0]["kX"] = 1
        return output

    few = [_frame_case(1, "SSE-2"), _frame_case(2, "SSE-1"), _frame_case(3, "SSE-1")]
    doc = json.loads(_run(tmp_path, few, rewrite).read_text())
    [cluster] = doc["summary"]["clusters"]
    assert "security" not in cluster
    many = [_frame_case(1, "SSE-2"), _frame_case(2, "SSE-2"), _frame_case(3, "SSE-1")]
    doc = json.loads(_run(tmp_path, many, rewrite).read_text())
    [cluster] = doc["summary"]["clusters"]
    assert cluster["security"] == ["SSE-2"]
    capsys.readouterr()


def test_a_security_cluster_comes_first_and_is_never_cut(tmp_path, capsys):
    # 14 clusters of two cases each, beyond them the smallest: one case on a security clause.
    cases = [_frame_case(100 * k + j, "SSE-1") for j in range(14) for k in (1, 2)]
    wrongs = {str(100 * k + j): f"k{j}" for j in range(14) for k in (1, 2)}

    def rewrite(output):
        frame = output["frames"][0]
        frame[wrongs.get(frame["data"], "kS")] = 1
        return output

    cases.append(_frame_case(7, "SSE-2"))
    results = _run(tmp_path, cases, rewrite)
    terminal = capsys.readouterr().out
    doc = json.loads(results.read_text())
    clusters = doc["summary"]["clusters"]
    # JSON: the security clusters first (the schema violation every case shares touches
    # SSE-2 too), the one-case cluster among them, ahead of the larger ones.
    security = [c for c in clusters if c.get("security")]
    assert clusters[: len(security)] == security
    assert any(c["pattern"] == "/frames/*/kS" and c["security"] == ["SSE-2"] for c in security)

    assert len(clusters) > 12 + len(security)
    bounded = main(["report", str(results)])
    assert bounded == 1
    for text in (terminal, capsys.readouterr().out):
        section = text[text.index("divergences by cause") :]
        assert section.startswith("divergences by cause (security-relevant first, then largest")
        assert "/frames/*/kS: extra" in section.split("\n  … ")[0]  # above the cut
        assert "SECURITY SSE-2 (1 of 1 case): a marker test's security reason" in section
        assert "smaller clusters (`" in section  # the cut says how to see the rest
        # The verdict line names the security clusters.
        verdict = text.rstrip().splitlines()[-1 if text is not terminal else -3]
        assert verdict.startswith("DIVERGED: ")
        assert "security-relevant cluster" in verdict and "SSE-2 [c" in verdict
    markdown = render_markdown(doc)
    assert markdown.index("## Security-relevant divergences") < markdown.index("by cause")
    table = markdown[markdown.index("## Divergences by cause") :]
    rows = [r for r in table.splitlines() if r.startswith("| wrong |")]
    assert next(i for i, r in enumerate(rows) if "/kS`" in r) < len(security)
    assert all("🔒 security (SSE-2): " in r for r in rows[: len(security)])
    assert not any("🔒" in r for r in rows[len(security) :])
    html = page_data(doc)["clusters"]
    assert [c.get("security") for c in html[: len(security)]] == [c["security"] for c in security]


def test_a_report_written_to_a_file_has_every_problem(tmp_path, capsys):
    cases = [_frame_case(i, "SSE-1") for i in range(60)]
    results = _run(tmp_path, cases, _many_causes, "--max-problems", "3")
    capsys.readouterr()
    full = tmp_path / "full.txt"
    assert main(["report", str(results), "--output", str(full), "--max-problems", "3"]) == 1
    text = full.read_text(encoding="utf-8")
    assert all(f"FAIL sse-frames::case-{i} [wrong]" in text for i in range(60))
    assert "more problems" not in text and "smaller clusters" not in text
    assert all(f"/frames/*/k{i}: extra" in text for i in range(60))  # every cluster
    # The terminal view is bounded, and says how to see the rest.
    assert main(["report", str(results), "--max-problems", "3"]) == 1
    out = capsys.readouterr().out
    assert out.count("FAIL sse-frames::") == 3
    assert f"… 57 more problems (`hanzo-conformance report {results} --format text --output" in out
    # `run --output` in text has every problem too; its terminal view is bounded.
    vectors = tmp_path / "v"
    out_file = tmp_path / "run.txt"
    register_platform("wrong", lambda: miniatures.Rewriter("wrong", _many_causes))
    try:
        args = ["run", "--no-default-vectors", "--vectors", str(vectors), *_schemas(tmp_path)]
        args += ["--platform", "wrong", "--output", str(out_file), "--max-problems", "3"]
        assert main(args) == 1
    finally:
        unregister_platform("wrong")
    terminal = capsys.readouterr().out
    written = out_file.read_text(encoding="utf-8")
    assert all(f"FAIL sse-frames::case-{i} [wrong]" in written for i in range(60))
    assert "smaller clusters" not in written
    assert f"… 57 more problems (every one is in {out_file})" in terminal
    # Markdown written to a file has every divergence, stdout past 200 counts the rest.
    many = json.loads(results.read_text())
    many["results"] = many["results"] * 4  # 240 divergences
    assert "more divergences" not in render_markdown(many, bounded=False)
    assert "… and 40 more divergences: see" in render_markdown(many)


def test_the_html_report_lists_departures_and_marks_security_clusters(tmp_path, capsys):
    from playwright.sync_api import sync_playwright
    from test_html_report import chromium_path

    def rewrite(output):
        frame = output["frames"][0]
        frame["event" if frame["data"] == "0" else "id"] = "x"
        return output

    results = _run(tmp_path, [_frame_case(0, "SSE-1"), _frame_case(1, "SSE-2")], rewrite)
    capsys.readouterr()
    html = tmp_path / "report.html"
    assert main(["report", str(results), "--format", "html", "--output", str(html)]) == 1
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium_path(), args=["--no-sandbox"])
        page = browser.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(html.as_uri())
        # The security cluster first, marked.
        first = page.locator("#causes tr.cause").first
        assert "security SSE-2" in first.inner_text() and "/frames/*/id" in first.inner_text()
        # Every marked clause, with the HIP-301 text, the reason and the diverging cases.
        rows = page.locator("#marked tr.marked")
        assert rows.count() == 3
        departs = page.locator('#marked tr[data-clause="sse-frames::SSE-1"]').inner_text()
        assert "departs-from" in departs and "def feed(self, chunk: str)" in departs
        assert "fed bytes, as a marker test says" in departs and "1 case" in departs
        page.locator('#marked tr[data-clause="sse-frames::SSE-1"]').click()
        assert page.locator("#count").inner_text() == "1 of 2 cases"
        page.locator("#cases li", has_text="sse-frames::case-0").click()
        assert 'departs from HIP-301 §3 "def feed' in page.locator("#detail p.mark").inner_text()
        assert errors == []
        browser.close()
