"""A published JS tokenizer as a foreign platform: js-tiktoken 1.0.21 on token-encoding.

The package ships its rank files, so its worker (examples/js-tiktoken/worker.mjs)
needs no network. Called as TENC-2 asks (``encode(text, [], [])``) it agrees with
every vector; called with its defaults (``--default-encode``) it throws on the
special-token strings, which the harness must report as errors of exactly those
cases. The package is installed from npm once, into examples/js-tiktoken/node_modules.
The domain's vectors live in examples/token-encoding/ (the built-in platforms do not
implement it, and the harness's own tests expect every file of vectors/ to be theirs).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from npm_examples import installed_example

from adapters.js import find_node
from runners._cli import main

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
LEDGER = EXAMPLES / "js-tiktoken" / "expectations.json"
# A domain kept outside the project: its vectors, schema and contract in one folder.
DOMAIN = EXAMPLES / "token-encoding"
VECTORS = ["--no-default-vectors", "--vectors", str(DOMAIN / "token-encoding.json")]
VECTORS += ["--schemas", str(DOMAIN)]
SPECIAL = {"endoftext-is-text", "endofprompt-is-text", "endoftext-in-sentence", "endoftext-twice"}


@pytest.fixture(scope="module")
def worker() -> str:
    node = find_node()
    example = installed_example("js-tiktoken", "js-tiktoken", node)
    return f"{node} {example / 'worker.mjs'}"


def run(worker: str, out: Path, *extra: str) -> tuple[int, dict[str, Any]]:
    argv = ["run", "--worker", f"js-tiktoken={worker}", "--platform", "js-tiktoken"]
    argv += [*VECTORS, "--domain", "token-encoding", "--format", "json", "--output", str(out)]
    code = main([*argv, *extra])
    return code, json.loads(out.read_text(encoding="utf-8"))


def test_it_passes_every_vector_with_special_tokens_as_text(worker: str, tmp_path: Path) -> None:
    code, results = run(worker, tmp_path / "r.json", "--expectations", str(LEDGER))
    assert code == 0
    assert {r["status"] for r in results["results"]} == {"pass"}
    assert len(results["results"]) >= 60


def test_its_default_encode_throws_on_special_token_strings(worker: str, tmp_path: Path) -> None:
    code, results = run(f"{worker} --default-encode", tmp_path / "r.json")
    assert code == 1
    failed = {r["case"] for r in results["results"] if r["status"] != "pass"}
    assert failed == SPECIAL
    for result in results["results"]:
        if result["case"] in SPECIAL:
            assert result["status"] == "error"
            assert "special token" in result["message"]


def test_its_vector_file_is_valid_and_canonical() -> None:
    assert main(["validate", *VECTORS]) == 0
    assert main(["fmt", "--check", *VECTORS]) == 0
