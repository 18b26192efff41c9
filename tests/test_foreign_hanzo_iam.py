"""A published JS package as a foreign platform: @hanzo/iam 0.21.6 on oauth-pkce.

It exports generatePKCEChallenge() and nothing deriving a challenge from a given
verifier, so its worker (examples/hanzo-iam/worker.mjs) answers the domain's vectors
`skip` and the harness must say so (never a pass), while `generate` still checks its
pairs with the domain's property. The package is installed from npm once, into
examples/hanzo-iam/node_modules, as its README says.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from npm_examples import installed_example

from adapters.js import find_node
from runners._cli import main
from runners.reports.markdown import render_markdown
from runners.reports.text import render_table


@pytest.fixture(scope="module")
def iam_worker() -> str:
    node = find_node()
    example = installed_example("hanzo-iam", "@hanzo/iam", node)
    return f"iam={node} {example / 'worker.mjs'}"


def test_its_vectors_are_reported_not_applicable_never_passed(
    iam_worker: str, tmp_path: Path, capsys: Any
) -> None:
    """Its column says "not applicable" where it declared the domain and skipped each
    case, and "not implemented" where it does not run the domain at all."""
    results = tmp_path / "results.json"
    argv = ["run", "--worker", iam_worker, "--platform", "iam"]
    argv += ["--domain", "oauth-pkce", "--domain", "sse-frames"]
    code = main([*argv, "--format", "json", "--output", str(results)])
    assert code == 0, capsys.readouterr()
    doc = json.loads(results.read_text(encoding="utf-8"))
    assert doc["summary"]["platforms"]["iam"]["implementation"] == "@hanzo/iam"
    assert doc["summary"]["platforms"]["iam"]["version"] == "0.21.6"
    pkce = [r for r in doc["results"] if r["domain"] == "oauth-pkce"]
    assert len(pkce) > 40 and {r["status"] for r in pkce} == {"skip"}
    assert all("exports no function deriving" in r["message"] for r in pkce)
    assert {r["status"] for r in doc["results"]} == {"skip"}
    [pkce_row] = [ln for ln in render_table(doc).splitlines() if ln.startswith("oauth-pkce")]
    [sse_row] = [ln for ln in render_table(doc).splitlines() if ln.startswith("sse-frames")]
    assert pkce_row.endswith(f"not applicable ({len(pkce)} skip)"), pkce_row
    assert sse_row.endswith("not implemented"), sse_row
    markdown = render_markdown(doc)
    assert "| oauth-pkce | ⏭️ not applicable |" in markdown
    assert "| sse-frames | ⏭️ not implemented |" in markdown


def test_generate_checks_its_pairs_though_no_vector_applies(iam_worker: str, capsys: Any) -> None:
    argv = ["generate", "--domain", "oauth-pkce", "--platform", "python", "--worker", iam_worker]
    code = main([*argv, "--seed", "3", "--max-examples", "20", "--batch", "16", "--no-write"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "vs iam" in out
    assert "iam answered skip (not applicable) to all cases: not compared" in out
    assert "every property held" in out
