"""generate on lsp-positions: a planted fault (a lone ``\\r`` that does not end a line)
is found against the reference and shrunk to a small candidate vector.

Driven through the CLI (``runners._cli.main``); the faulty platform is a protocol
worker, tests/lsp_cr_fault_worker.py.
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest

pytest.importorskip("hypothesis", reason="hypothesis is in the test extra")

from runners._cli import main

WORKER = Path(__file__).resolve().parent / "lsp_cr_fault_worker.py"
SEED = 12347


def _generate(vectors_dir: Path, *extra: str) -> int:
    command = shlex.join([sys.executable, str(WORKER)])
    return main(
        [
            "generate",
            "--domain",
            "lsp-positions",
            "--platform",
            "python",
            "--worker",
            f"crfault={command}",
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


def test_a_lone_cr_not_ending_a_line_is_found_and_shrunk(tmp_path: Path) -> None:
    vectors_dir = tmp_path / "vectors"
    vectors_dir.mkdir()
    code = _generate(vectors_dir)
    assert code == 1, f"generate exited {code}: the planted fault was not found"
    candidates = json.loads(
        (vectors_dir / "candidates" / "lsp-positions.json").read_text(encoding="utf-8")
    )
    (case,) = candidates["cases"]
    text = case["input"]["text"]
    # Shrunk: the smallest document showing the fault is a lone CR and nothing else
    # of note; at most a couple of ops.
    assert "\r" in text.replace("\r\n", ""), case
    assert len(text) <= 3, case
    assert len(case["input"]["ops"]) <= 2, case
    # The candidate's expectation is the reference's: the CR ends a line.
    assert "generated" in case["tags"], case


def test_the_reference_as_a_worker_without_the_fault_finds_nothing(tmp_path: Path) -> None:
    # The same search, the python platform against itself: nothing to find, so the
    # planted-fault test above fails only for the fault.
    vectors_dir = tmp_path / "vectors"
    vectors_dir.mkdir()
    code = main(
        [
            "generate",
            "--domain",
            "lsp-positions",
            "--platform",
            "python",
            "--seed",
            str(SEED),
            "--max-examples",
            "30",
            "--batch",
            "16",
            "--vectors-dir",
            str(vectors_dir),
        ]
    )
    assert code == 0
    assert not (vectors_dir / "candidates" / "lsp-positions.json").exists()


def test_strategy_inputs_are_schema_valid() -> None:
    import random

    import jsonschema

    from strategies import lsp_positions

    schema = json.loads(
        (
            Path(__file__).resolve().parent.parent / "schemas" / "lsp-positions.schema.json"
        ).read_text(encoding="utf-8")
    )
    validator = jsonschema.Draft202012Validator({"$defs": schema["$defs"], "$ref": "#/$defs/input"})
    draw = random.Random(SEED)
    kinds = set()
    for _ in range(500):
        record = bytes(draw.getrandbits(8) for _ in range(lsp_positions.RECORD))
        case_input = lsp_positions.decode(record)
        validator.validate(case_input)
        kinds.add(next(iter(case_input)))
    assert kinds == {"text", "chunks", "negotiate", "accept"}, kinds
