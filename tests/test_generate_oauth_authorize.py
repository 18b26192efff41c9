"""generate --domain oauth-authorize: a planted second `?` is found and shrunk.

The faulty platform (tests/fake_workers/oauth_second_question_mark.py) builds the
authorize URL as `f"{endpoint}?{parameters}"`, as `mcp`'s client does, so an endpoint
with a query of its own gets a second `?` (AUTH-3). Driven through the CLI, out of
process, like any foreign worker.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("hypothesis", reason="hypothesis is in the test extra")

from runners._cli import main

ROOT = Path(__file__).resolve().parent.parent
WORKER = f"sqm={sys.executable} {ROOT / 'tests/fake_workers/oauth_second_question_mark.py'}"


def generate(capsys: Any, *extra: str) -> tuple[int, str]:
    argv = ["generate", "--domain", "oauth-authorize", "--platform", "python"]
    argv += ["--worker", WORKER, "--seed", "12347", "--no-write", *extra]
    code = main(argv)
    return code, capsys.readouterr().out


def shrunk_inputs(out: str) -> list[dict[str, Any]]:
    return [json.loads(ln) for ln in map(str.strip, out.splitlines()) if ln.startswith('{"op"')]


def test_a_second_question_mark_is_found_and_shrunk(capsys: Any) -> None:
    code, out = generate(capsys, "--max-examples", "60", "--no-properties")
    assert code == 1, out
    assert "disagreement (differential)" in out, out
    [found] = shrunk_inputs(out)
    endpoint = found["authorization_endpoint"]
    # Shrunk: an endpoint with a non-empty query that does not end in `&` (the only
    # endpoints where the fault shows), and nothing else the fault does not need.
    assert "?" in endpoint and not endpoint.endswith(("?", "&")), found
    assert found["scopes"] == [] and "resource" not in found and "prompt" not in found, found
    assert found["client_id"] == "hanzo-cli" and found["state"] == "xyz", found
    assert "sqm: differs at /url: " in out and f"{endpoint}?response_type=code" in out, out


def test_the_read_back_property_catches_it_too(capsys: Any) -> None:
    """The property decodes the URL with urllib, independently of the reference."""
    code, out = generate(capsys, "--max-examples", "30")
    assert code == 1, out
    assert "property (authorize-url-reads-back-the-request)" in out, out
    assert "has another `?` than the endpoint's (AUTH-3)" in out, out
