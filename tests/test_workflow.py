"""The gate workflow: every hanzo-conformance command in it parses, it uploads the reports,
and its sharded job is the reusable workflow (tests/test_sharded_workflow.py)."""

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
    assert len(argvs) >= 3
    parser = build_parser()
    for argv in argvs:
        args = parser.parse_args(argv)  # exits 2 (failing the test) on a bad option
        assert args.command in ("run", "report")


def test_the_workflow_uploads_every_report_and_gates_the_shards_merged():
    text = WORKFLOW.read_text()
    assert "--junitxml=report.xml" in text
    for artifact in ("report.xml", "results.json", "report.html"):
        assert text.count(f"            {artifact}\n") == 1, artifact
    assert 'cat report.md >> "$GITHUB_STEP_SUMMARY"' in text
    # Dogfood: the full matrix in shards through the workflow a platform's repository calls.
    assert "uses: ./.github/workflows/conformance-sharded.yml" in text
    assert "platforms: python rust js" in text and "shards: 2" in text
