"""The official MCP TypeScript SDK, @modelcontextprotocol/sdk 1.32.2 (npm), on
oauth-authorize through examples/mcp-js-oauth/worker.mjs: the substring test that adds
prompt=consent (issue 26) and the rest its ledger records; green on that ledger."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from npm_examples import installed_example

from adapters.js import find_node
from runners._cli import main


@pytest.fixture(scope="module")
def worker() -> tuple[str, Path]:
    node = find_node()
    example = installed_example("mcp-js-oauth", "@modelcontextprotocol/sdk", node)
    return f"mcpjs={node} {example / 'worker.mjs'}", example


def run(worker: str, *extra: str) -> int:
    argv = ["run", "--worker", worker, "--platform", "mcpjs", "--domain", "oauth-authorize"]
    return main([*argv, *extra])


def test_the_sdk_gates_green_on_its_ledger(worker: tuple[str, Path], capsys: Any) -> None:
    command, example = worker
    code = run(command, "--expectations", str(example / "expectations.json"))
    out = capsys.readouterr().out
    assert code == 0, out[-3000:]
    assert "46 pass, 0 fail, 0 error, 75 skip, 116 xfail" in out, out[-2000:]


def test_the_sdk_adds_consent_for_a_scope_that_only_contains_offline_access(
    worker: tuple[str, Path], tmp_path: Path, capsys: Any
) -> None:
    results = tmp_path / "results.json"
    assert run(worker[0], "--format", "json", "--output", str(results)) == 1
    capsys.readouterr()
    by_case = {r["case"]: r for r in json.loads(results.read_text("utf-8"))["results"]}
    url = by_case["offline-access-substring-no-prompt"]["actual"]["url"]
    assert url.endswith("&scope=no_offline_access_here&prompt=consent"), url
    # and overwrites the endpoint's own client_id instead of refusing it
    url = by_case["existing-query-repeats-client-id"]["actual"]["url"]
    assert url.startswith("https://as.example/authorize?client_id=hanzo-cli&"), url
    assert by_case["callback-rfc6749-example"]["status"] == "skip"
