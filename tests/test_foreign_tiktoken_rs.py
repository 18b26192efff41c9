"""A published Rust tokenizer as a foreign platform: tiktoken-rs 0.12.1 on token-encoding.

Its worker (examples/tiktoken-rs, a crate with its own workspace and Cargo.lock) is
built once with ``cargo build --release --locked``. encode_ordinary agrees with every
vector; encode_with_special_tokens (``--with-special-tokens``) turns the special-token
strings into the special tokens 199999 and 200018, which TENC-2 rejects.
"""

from __future__ import annotations

import fcntl
import json
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest

from runners._cli import main

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
EXAMPLE = EXAMPLES / "tiktoken-rs"
# A domain kept outside the project: its vectors, schema and contract in one folder.
DOMAIN = EXAMPLES / "token-encoding"
VECTORS = ["--no-default-vectors", "--vectors", str(DOMAIN / "token-encoding.json")]
VECTORS += ["--schemas", str(DOMAIN)]
SPECIAL = {"endoftext-is-text", "endofprompt-is-text", "endoftext-in-sentence", "endoftext-twice"}


@pytest.fixture(scope="module")
def binary() -> Path:
    lock = Path(tempfile.gettempdir()) / "hanzo-conformance-example-tiktoken-rs.lock"
    with lock.open("w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        build = ["cargo", "build", "-q", "--release", "--locked"]
        subprocess.run(
            [*build, "--manifest-path", str(EXAMPLE / "Cargo.toml")], check=True, timeout=1200
        )
    return EXAMPLE / "target" / "release" / "hanzo-conformance-example-tiktoken-rs"


def run(command: str, out: Path, *extra: str) -> tuple[int, dict[str, Any]]:
    argv = ["run", "--worker", f"tiktoken-rs={command}", "--platform", "tiktoken-rs", *VECTORS]
    argv += ["--domain", "token-encoding", "--format", "json", "--output", str(out)]
    code = main([*argv, *extra])
    return code, json.loads(out.read_text(encoding="utf-8"))


def test_it_passes_every_vector(binary: Path, tmp_path: Path) -> None:
    ledger = str(EXAMPLE / "expectations.json")
    code, results = run(str(binary), tmp_path / "r.json", "--expectations", ledger)
    assert code == 0
    assert {r["status"] for r in results["results"]} == {"pass"}
    assert len(results["results"]) >= 60


def test_with_special_tokens_it_makes_control_tokens_of_text(binary: Path, tmp_path: Path) -> None:
    code, results = run(f"{binary} --with-special-tokens", tmp_path / "r.json")
    assert code == 1
    failed = {r["case"]: r for r in results["results"] if r["status"] != "pass"}
    assert set(failed) == SPECIAL
    first = {d["pointer"]: d.get("actual") for d in failed["endoftext-is-text"]["diff"]}
    assert first["/tokens/0"] == 199999
    prompt = {d["pointer"]: d.get("actual") for d in failed["endofprompt-is-text"]["diff"]}
    assert prompt["/tokens/0"] == 200018
