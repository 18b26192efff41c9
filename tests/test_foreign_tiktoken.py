"""A published Python tokenizer as a foreign platform: tiktoken 0.14.0 on token-encoding,
offline.

Its worker (examples/tiktoken/worker.py) rebuilds o200k_base.tiktoken from the ranks
js-tiktoken ships (so examples/js-tiktoken is installed from npm first), refuses a file
whose SHA-256 is not tiktoken's expected hash, and hands it to tiktoken through
TIKTOKEN_CACHE_DIR: no download. encode_ordinary agrees with every vector; the default
encode() raises on the special-token strings.
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest
from npm_examples import installed_example

from adapters.js import find_node
from runners._cli import main

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
LEDGER = EXAMPLES / "tiktoken" / "expectations.json"
# A domain kept outside the project: its vectors, schema and contract in one folder.
DOMAIN = EXAMPLES / "token-encoding"
VECTORS = ["--no-default-vectors", "--vectors", str(DOMAIN / "token-encoding.json")]
VECTORS += ["--schemas", str(DOMAIN)]
SPECIAL = {"endoftext-is-text", "endofprompt-is-text", "endoftext-in-sentence", "endoftext-twice"}


@pytest.fixture(scope="module")
def ranks_js() -> Path:
    example = installed_example("js-tiktoken", "js-tiktoken", find_node())
    return example / "node_modules" / "js-tiktoken" / "dist" / "ranks" / "o200k_base.js"


def worker(ranks_js: Path, *flags: str) -> str:
    script = EXAMPLES / "tiktoken" / "worker.py"
    command = [sys.executable, str(script), "--ranks-js", str(ranks_js)]
    return f"tiktoken={shlex.join([*command, *flags])}"


def run(spec: str, out: Path, *extra: str) -> tuple[int, dict[str, Any]]:
    argv = ["run", "--worker", spec, "--platform", "tiktoken", *VECTORS]
    argv += ["--domain", "token-encoding", "--format", "json", "--output", str(out)]
    code = main([*argv, *extra])
    return code, json.loads(out.read_text(encoding="utf-8"))


def test_it_passes_every_vector_offline(ranks_js: Path, tmp_path: Path) -> None:
    code, results = run(worker(ranks_js), tmp_path / "r.json", "--expectations", str(LEDGER))
    assert code == 0
    assert {r["status"] for r in results["results"]} == {"pass"}
    assert len(results["results"]) >= 60


def test_its_default_encode_raises_on_special_token_strings(ranks_js: Path, tmp_path: Path) -> None:
    code, results = run(worker(ranks_js, "--default-encode"), tmp_path / "r.json")
    assert code == 1
    failed = {r["case"]: r for r in results["results"] if r["status"] != "pass"}
    assert set(failed) == SPECIAL
    assert all("disallowed special token" in r["message"] for r in failed.values())


def test_a_rank_file_with_another_hash_is_refused(
    ranks_js: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # One rank moved: the rebuilt file is no longer tiktoken's, and the worker must
    # not start (tiktoken would otherwise try to download the file again).
    tampered = tmp_path / "o200k_base.js"
    tampered.write_text(ranks_js.read_text("utf-8").replace("! 0 ", "! 1 ", 1), "utf-8")
    argv = ["run", "--worker", worker(tampered), "--platform", "tiktoken", *VECTORS]
    code = main([*argv, "--domain", "token-encoding"])
    assert code == 1
    assert "not 446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d" in (
        capsys.readouterr().out
    )
