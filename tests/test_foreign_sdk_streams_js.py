"""The providers' published JS SDKs as foreign platforms on stream-assembly.

openai 7.59.0 and @anthropic-ai/sdk 1.15.0 (npm), each read through its public stream
helper with the case's frames answered by a custom `fetch` (examples/openai-js-stream/,
examples/anthropic-js-stream/), installed from npm once (`npm ci`, their lockfiles).
Each must gate green with its reviewed ledger, and the divergences of issue 27 must be
the SDK's actual answers.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from npm_examples import installed_example

from adapters.js import find_node
from runners._cli import main


def run_example(
    name: str, package: str, platform: str, tmp_path: Path
) -> tuple[int, dict[str, Any]]:
    node = find_node()
    example = installed_example(name, package, node)
    out = tmp_path / "results.json"
    argv = [
        "run",
        "--worker",
        f"{platform}={node} {example / 'worker.mjs'}",
        "--platform",
        platform,
    ]
    argv += ["--domain", "stream-assembly", "--expectations", str(example / "expectations.json")]
    code = main([*argv, "--format", "json", "--output", str(out)])
    return code, json.loads(out.read_text(encoding="utf-8"))


def by_case(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {r["case"]: r for r in doc["results"]}


def test_openai_js_gates_green_with_its_ledger(tmp_path: Path) -> None:
    code, doc = run_example("openai-js-stream", "openai", "openai-js", tmp_path)
    assert code == 0
    platform = doc["summary"]["platforms"]["openai-js"]
    assert (platform["implementation"], platform["version"]) == ("openai", "7.59.0")
    results = by_case(doc)
    assert {r["status"] for r in results.values()} == {"pass", "skip", "xfail"}
    assert all(r["status"] == "skip" for c, r in results.items() if c.startswith("anthropic-"))
    # Issue 27: where openai-python appends ids and raises on order, the JS SDK agrees.
    assert results["openai-repeated-id-and-name"]["status"] == "pass"
    assert results["openai-out-of-order-indices"]["status"] == "pass"
    assert results["openai-gapped-indices"]["status"] == "xfail"


def test_anthropic_js_gates_green_with_its_ledger(tmp_path: Path) -> None:
    code, doc = run_example("anthropic-js-stream", "@anthropic-ai/sdk", "anthropic-js", tmp_path)
    assert code == 0
    platform = doc["summary"]["platforms"]["anthropic-js"]
    assert (platform["implementation"], platform["version"]) == ("@anthropic-ai/sdk", "1.15.0")
    results = by_case(doc)
    assert {r["status"] for r in results.values()} == {"pass", "skip", "xfail"}
    assert all(r["status"] == "skip" for c, r in results.items() if c.startswith("openai-"))
    assert results["anthropic-tool-use-basic"]["status"] == "pass"
    # Deltas applied to the last block: block 1 is reported twice, block 0 lost.
    interleaved = results["anthropic-interleaved-blocks"]
    assert interleaved["status"] == "xfail"
    ids = [e.get("id") for e in interleaved["actual"]["events"] if e["type"] == "tool_use"]
    assert ids == ["t1", "t1"], ids
