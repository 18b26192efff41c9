"""Size and speed of the HTML report at 10,000 cases x 3 platforms (1% failing).

    .venv/bin/python bench/html_report.py

Renders the report, then loads it in headless Chromium (Debian's package, through
Playwright) and times until the case list is drawn, a filter change, and opening a case.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from test_html_report import big_document

from runners.reports.html import render_html
from runners.reports.markdown import render_markdown


def main() -> None:
    doc = big_document(10_000)
    start = time.perf_counter()
    html = render_html(doc)
    rendered = time.perf_counter() - start
    start = time.perf_counter()
    markdown = render_markdown(doc)
    md_time = time.perf_counter() - start
    print(
        f"results: {len(doc['results'])}; html {len(html) / 1e6:.1f} MB in {rendered:.2f} s; "
        f"markdown {len(markdown) / 1e3:.0f} KB in {md_time:.2f} s"
    )
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        path = Path(tmp) / "big.html"
        path.write_text(html, encoding="utf-8")
        chromium = shutil.which("chromium") or "chromium"
        browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        page = browser.new_page()
        start = time.perf_counter()
        page.goto(path.as_uri())
        page.locator("#cases li").first.wait_for()
        loaded = time.perf_counter() - start
        start = time.perf_counter()
        page.select_option("#f-status", "")
        page.locator("#count").filter(has_text="10000 of 10000").wait_for()
        filtered = time.perf_counter() - start
        start = time.perf_counter()
        page.locator("#cases li").first.click()
        page.locator("#detail h2").wait_for()
        opened = time.perf_counter() - start
        browser.close()
    print(
        f"chromium: loaded and drawn in {loaded:.2f} s, filter to every case {filtered:.2f} s, "
        f"open a case {opened:.2f} s"
    )


if __name__ == "__main__":
    main()
