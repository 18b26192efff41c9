"""A published npm package as a foreign platform: @modelcontextprotocol/sdk 1.32.2 (the
official MCP TypeScript SDK) on mcp-stdio, through examples/mcp-js-stdio/worker.mjs and
its reviewed ledger. The package is installed from npm once (``npm ci``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from npm_examples import installed_example

from adapters.js import find_node
from runners._cli import main


def test_the_sdk_runs_the_vectors_with_its_ledger(tmp_path: Path, capsys: Any) -> None:
    node = find_node()
    example = installed_example("mcp-js-stdio", "@modelcontextprotocol/sdk", node)
    results = tmp_path / "results.json"
    worker = f"mcp-js={node} {example / 'worker.mjs'}"
    argv = ["run", "--worker", worker, "--platform", "mcp-js", "--domain", "mcp-stdio"]
    argv += ["--expectations", str(example / "expectations.json")]
    code = main([*argv, "--format", "json", "--output", str(results)])
    assert code == 0, capsys.readouterr()
    doc = json.loads(results.read_text(encoding="utf-8"))
    assert doc["summary"]["platforms"]["mcp-js"]["version"] == "1.32.2"
    status = {r["case"]: r["status"] for r in doc["results"]}
    assert status["one-response"] == "pass"
    assert status["float-id-is-integer"] == "pass"
    assert status["spawn-safe-defaults-only"] == "pass"
    assert status["error-with-null-id-kept"] == "xfail"
    assert status["invalid-utf8-line"] == "xfail"
    assert status["eof-tail-without-newline-decoded"] == "xfail"
    assert status["session-initialize-only"] == "skip"
