"""The HTML report in a real browser: headless Chromium (Debian's package) driven by Playwright.

ci/test installs ``chromium`` with apt-get when it is missing; Playwright drives
that system browser (it cannot download its own builds here).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import miniatures
import pytest
from conftest import hello_case, vector_document

from adapters.registry import register_platform, unregister_platform
from runners._cli import main
from runners.reports.html import render_html
from runners.reports.markdown import render_markdown
from runners.reports.text import document

SCREENSHOTS = Path(__file__).resolve().parent.parent / ".screenshots"


def chromium_path() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    assert path, "headless Chromium is needed: apt-get install chromium (ci/test does this)"
    return path


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium_path(), args=["--no-sandbox"])
        yield browser
        browser.close()


@pytest.fixture
def results(capsys, write_vectors, tmp_path):
    """A real run: the reference and a liar on two cases, saved as JSON."""
    cases = [hello_case(), hello_case(id="bom", input={"chunks": ["\ufeffdata: hi\n\n"]})]
    path = write_vectors(vector_document(cases))
    register_platform("liar", lambda: miniatures.Liar())
    out = tmp_path / "results.json"
    try:
        main(
            [
                "run",
                "--no-default-vectors",
                "--vectors",
                str(path),
                "--platform",
                "python",
                "--platform",
                "liar",
                "--format",
                "json",
                "--output",
                str(out),
            ]
        )
    finally:
        unregister_platform("liar")
    capsys.readouterr()
    return out


def test_html_report_shows_the_diff_of_a_failing_case(browser, results, tmp_path, capsys):
    html = tmp_path / "report.html"
    assert main(["report", str(results), "--format", "html", "--output", str(html)]) == 1
    text = html.read_text()
    assert "http://" not in text and "https://" not in text  # self-contained: no network
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(html.as_uri())
    assert page.locator("#grid td.bad").count() == 1  # sse-frames x liar is red
    assert page.locator("#grid td.ok").count() == 1
    page.locator("#cases li", has_text="sse-frames::hello").click()
    liar = page.locator('#detail section[data-platform="liar"]')
    liar.locator("table.diff").wait_for()
    diff = liar.locator("table.diff").inner_text()
    assert "/frames/0/data" in diff and '"hi"' in diff and '"hi!"' in diff
    assert liar.locator(".linediff .diffline-add").inner_text() == '+       "data": "hi!",'
    assert "One data line, dispatched by a blank line." in page.locator("#detail").inner_text()
    liar.locator("table.diff").scroll_into_view_if_needed()
    SCREENSHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "html-report-failing-case.png"))
    # The BOM case's input shows the BOM escaped, not as an empty-looking string.
    page.locator("#cases li", has_text="sse-frames::bom").click()
    assert "\\ufeffdata: hi" in page.locator("#detail pre").first.inner_text()
    # Filters: only passes of the reference.
    page.select_option("#f-platform", "python")
    page.select_option("#f-status", "pass")
    assert page.locator("#count").inner_text() == "2 of 2 cases"
    page.select_option("#f-status", "fail")
    assert page.locator("#count").inner_text() == "0 of 2 cases"
    # The causes table: one cluster, and choosing it lists its cases.
    cause = page.locator("#causes tr.cause")
    assert cause.count() == 1 and "/frames/*/data" in cause.inner_text()
    # Under it, its smallest case as a reproducer: input, expected, actual (issue 29).
    reproducer = page.locator("#causes tr.reproducer details")
    assert reproducer.count() == 1
    reproducer.locator("summary").click()
    shown = reproducer.inner_text()
    assert "smallest case: sse-frames::hello" in shown
    assert "input" in shown and "expected" in shown and '"hi!"' in shown
    cause.click()
    assert page.locator("#count").inner_text() == "2 of 2 cases"
    assert errors == []
    page.close()


def big_document(n_cases: int) -> dict:
    platforms = {
        p: {"implementation": p, "version": "1", "language": "x", "domains": ["d"]}
        for p in ("python", "rust", "js")
    }
    results, cases = [], {}
    for i in range(n_cases):
        cases[f"d::case-{i}"] = {
            "description": f"case {i}",
            "clauses": ["D-1"],
            "tags": ["t"],
            "input": {"n": i},
            "expected": {"v": i},
        }
        for p in platforms:
            bad = p == "js" and i % 100 == 0
            r = {
                "domain": "d",
                "case": f"case-{i}",
                "case_hash": "0" * 64,
                "platform": p,
                "status": "fail" if bad else "pass",
                "diff": [],
            }
            if bad:
                r["actual"] = {"v": -i}
                r["diff"] = [{"pointer": "/v", "expected": i, "actual": -i}]
            results.append(r)
    return document(results, platforms, cases)


def test_html_report_stays_usable_at_10000_cases(browser, tmp_path):
    html = tmp_path / "big.html"
    html.write_text(render_html(big_document(10_000)), encoding="utf-8")
    page = browser.new_page()
    page.goto(html.as_uri())
    assert page.locator("#count").inner_text() == "100 of 10000 cases"  # diverged, by default
    page.select_option("#f-status", "")
    assert page.locator("#count").inner_text() == "10000 of 10000 cases"
    assert page.locator("#cases li").count() == 200  # a page at a time
    page.click("#more")
    assert page.locator("#cases li").count() == 400
    page.fill("#f-text", "case-9900")
    page.locator("#cases li").first.click()
    assert "/v" in page.locator('#detail section[data-platform="js"] table.diff').inner_text()
    page.close()


def test_markup_in_a_result_is_text_and_never_breaks_the_page(browser, tmp_path):
    """ "<!--" and "</script>" in descriptions and outputs (vector files and platforms
    are untrusted) are shown as text; the page still renders (it used to go blank)."""
    doc = big_document(100)
    hostile = "<!-- x --> </script><script>window.owned = 1</script> <b>bold</b>"
    doc["cases"]["d::case-0"]["description"] = hostile
    [js0] = [r for r in doc["results"] if r["case"] == "case-0" and r["platform"] == "js"]
    js0["actual"] = {"v": hostile}
    html = tmp_path / "hostile.html"
    html.write_text(render_html(doc), encoding="utf-8")
    assert (
        "<!--" not in html.read_text(encoding="utf-8").split('id="data"')[1].split("</script>")[0]
    )
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(html.as_uri())
    assert page.locator("#count").inner_text() == "1 of 100 cases"
    page.locator("#cases li", has_text="d::case-0").click()
    assert hostile in page.locator("#detail").inner_text()
    assert page.evaluate("window.owned") is None
    assert errors == []
    page.close()


def test_markdown_report_has_the_matrix_and_each_divergence(results, tmp_path, capsys):
    md = tmp_path / "report.md"
    assert main(["report", str(results), "--format", "markdown", "--output", str(md)]) == 1
    text = md.read_text()
    assert "| domain | python | liar |" in text
    assert "| sse-frames | ✅ 2 pass | ❌ 2 fail |" in text
    assert "## Divergences by cause" in text and "`/frames/*/data`" in text
    assert '- "hi"\n+ "hi!"' in text
    doc = json.loads(results.read_text())
    assert doc["summary"]["run"]["vectors"]["version"] in text


def test_markdown_escapes_platform_and_domain_names():
    """A platform named on the command line and a domain named by a vector file are
    untrusted text: a pipe cannot add a table column, markup is shown, a backtick
    cannot end a code span."""
    doc = big_document(100)
    for r in doc["results"]:
        r["domain"] = "d|x"
        if r["platform"] == "js":
            r["platform"] = "js|<b>`x`</b>"
    doc["cases"] = {k.replace("d::", "d|x::"): v for k, v in doc["cases"].items()}
    doc["summary"]["platforms"]["js|<b>`x`</b>"] = doc["summary"]["platforms"].pop("js")
    doc["summary"]["matrix"] = {
        "d|x": {
            ("js|<b>`x`</b>" if p == "js" else p): c
            for p, c in doc["summary"]["matrix"]["d"].items()
        }
    }
    text = render_markdown(doc)
    assert "<b>" not in text
    header = next(line for line in text.splitlines() if line.startswith("| domain |"))
    row = next(line for line in text.splitlines() if line.startswith("| d\\|x |"))
    cells = lambda line: len(line.replace("\\|", "").split("|"))  # noqa: E731
    assert cells(header) == cells(row) == 6
    assert "`d\\|x::case-0`" in text
