"""A published crate as a foreign platform: rmcp 3.11.0 (the official MCP Rust SDK) on
mcp-stdio, through the standalone worker binary examples/rmcp-stdio/ (built here with
cargo from its committed Cargo.lock) and its reviewed ledger."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from runners._cli import main

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "rmcp-stdio"


def test_rmcp_runs_the_vectors_with_its_ledger(tmp_path: Path, capsys: Any) -> None:
    build = ["cargo", "build", "--release", "--locked", "--quiet"]
    build += ["--manifest-path", str(EXAMPLE / "Cargo.toml")]
    built = subprocess.run(build, capture_output=True, text=True, timeout=1800)
    assert built.returncode == 0, f"building the rmcp worker failed:\n{built.stderr}"
    binary = EXAMPLE / "target" / "release" / "rmcp-stdio-worker"
    results = tmp_path / "results.json"
    argv = ["run", "--worker", f"rmcp={binary}", "--platform", "rmcp", "--domain", "mcp-stdio"]
    argv += ["--expectations", str(EXAMPLE / "expectations.json")]
    code = main([*argv, "--format", "json", "--output", str(results)])
    assert code == 0, capsys.readouterr()
    doc = json.loads(results.read_text(encoding="utf-8"))
    assert doc["summary"]["platforms"]["rmcp"]["version"] == "3.11.0"
    status = {r["case"]: r["status"] for r in doc["results"]}
    assert status["leading-bom-dropped"] == "pass"
    assert status["blank-line-skipped"] == "pass"
    assert status["batch-rejected"] == "xfail"  # the id-less Invalid request reply
    assert status["eof-tail-without-newline-decoded"] == "xfail"
    assert status["spawn-safe-defaults-only"] == "skip"
