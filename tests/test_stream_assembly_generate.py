"""generate on stream-assembly finds a planted fault (tool-call ids appended, as openai-python
3.57.0 does) and shrinks it to the smallest stream showing it; the strategy's inputs are
schema-valid and the domain's property holds on the reference.

The faulty platform is a protocol worker (tests/fake_workers/stream_appended_ids.py),
driven through the CLI like any --worker.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("hypothesis", reason="hypothesis is in the test extra")

from runners._cli import main

ROOT = Path(__file__).resolve().parent.parent
WORKER = ROOT / "tests" / "fake_workers" / "stream_appended_ids.py"
SEED = 12347


@pytest.fixture
def vectors_dir(tmp_path: Path) -> Path:
    """A copy of the project's stream-assembly vectors, so candidates land in tmp_path."""
    folder = tmp_path / "vectors"
    folder.mkdir()
    shutil.copy(ROOT / "vectors" / "stream-assembly.json", folder / "stream-assembly.json")
    return folder


def generate(vectors_dir: Path, *extra: str) -> int:
    return main(
        [
            "generate",
            "--domain",
            "stream-assembly",
            "--platform",
            "appended",
            "--worker",
            f"appended={sys.executable} {WORKER}",
            "--seed",
            str(SEED),
            "--max-examples",
            "60",
            "--batch",
            "16",
            "--vectors-dir",
            str(vectors_dir),
            *extra,
        ]
    )


def payloads(case_input: dict[str, Any]) -> list[Any]:
    return [
        f["data"] if f["data"] == "[DONE]" else json.loads(f["data"]) for f in case_input["frames"]
    ]


def test_appended_ids_are_found_and_shrunk(
    vectors_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert generate(vectors_dir, "--no-properties") == 1
    out = capsys.readouterr().out
    assert "appended: differs at /events/0/id" in out, out
    candidates = json.loads(
        (vectors_dir / "candidates" / "stream-assembly.json").read_text("utf-8")
    )
    (case,) = candidates["cases"]
    assert case["source"]["kind"] == "generated" and "appended" in case["source"]["ref"]
    case_input = case["input"]
    assert case_input["dialect"] == "openai-chat"
    # Shrunk: two fragments at one index with the same id, then the appended end
    # (finish_reason, [DONE]); nothing else survives.
    *fragments, finish, done = payloads(case_input)
    assert done == "[DONE]" and finish["choices"][0]["finish_reason"] == "tool_calls"
    assert len(fragments) == 2, fragments
    ids = [chunk["choices"][0]["delta"]["tool_calls"][0].get("id") for chunk in fragments]
    assert ids[0] == ids[1] and ids[0], ids
    (call, stop) = case["expected"]["events"]
    assert call["type"] == "tool_use" and call["id"] == ids[0]
    assert stop["type"] == "message_stop"


def test_the_reference_platforms_agree_and_the_property_holds(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(
        [
            "generate",
            "--domain",
            "stream-assembly",
            "--platform",
            "rust",
            "--platform",
            "js",
            "--seed",
            "7",
            "--max-examples",
            "20",
            "--batch",
            "32",
            "--no-write",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0, out
    assert "no disagreement, every property held" in out, out


def test_the_strategy_draws_schema_valid_inputs() -> None:
    import random

    import jsonschema

    from strategies import stream_assembly

    schema = json.loads((ROOT / "schemas" / "stream-assembly.schema.json").read_text("utf-8"))
    validator = jsonschema.Draft202012Validator({**schema, "$ref": "#/$defs/input"})
    rng = random.Random("stream-assembly")
    dialects = set()
    for _ in range(300):
        case_input = stream_assembly.decode(rng.randbytes(stream_assembly.RECORD))
        problems = [e.message for e in validator.iter_errors(case_input)]
        assert not problems, (case_input, problems)
        dialects.add(case_input["dialect"])
    assert dialects == {"anthropic", "openai-chat"}
    # A record of zero bytes is the simplest input: an empty, properly ended openai stream.
    assert payloads(stream_assembly.decode(bytes(stream_assembly.RECORD)))[-1] == "[DONE]"
