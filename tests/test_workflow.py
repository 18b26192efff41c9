"""The gate workflow: every hanzo-conformance command in it parses, and it uploads the reports."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from runners._cli import build_parser

WORKFLOW = Path(__file__).resolve().parent.parent / ".github" / "workflows" / "conformance.yml"
MATRIX = {"${{ matrix.platform }}": "rust", "${{ matrix.shard }}": "2/2"}


def commands() -> list[list[str]]:
    found = []
    for line in WORKFLOW.read_text().splitlines():
        match = re.search(r"hanzo-conformance (.*)$", line)
        if match:
            text = match[1]
            for placeholder, value in MATRIX.items():
                text = text.replace(placeholder, value)
            found.append(shlex.split(text))
    return found


def test_every_command_in_the_workflow_is_a_valid_invocation():
    argvs = commands()
    assert len(argvs) >= 6
    parser = build_parser()
    for argv in argvs:
        args = parser.parse_args(argv)  # exits 2 (failing the test) on a bad option
        assert args.command in ("run", "report")


def test_the_workflow_has_a_job_per_platform_and_uploads_every_report():
    text = WORKFLOW.read_text()
    assert "platform: [python, rust, js]" in text
    assert "--junitxml=report.xml" in text and "-n 2" in text
    for artifact in ("report.xml", "results.json", "report.html"):
        assert text.count(f"            {artifact}\n") == 2, artifact
    assert 'cat report.md >> "$GITHUB_STEP_SUMMARY"' in text
