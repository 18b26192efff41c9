"""http-retry: ``generate`` finds a planted fault (a server-directed delay above the
60 s cap honoured, as anthropic-py 2.15.0 does) and shrinks it; the strategy draws
schema-valid inputs, and its property holds on the reference.

Driven through the CLI (``runners._cli.main``); the faulty platform is a protocol
worker, tests/http_retry_capless_worker.py.
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest

pytest.importorskip("hypothesis", reason="hypothesis is in the test extra")

from runners._cli import main

ROOT = Path(__file__).resolve().parent.parent
WORKER = Path(__file__).resolve().parent / "http_retry_capless_worker.py"
SEED = 12347
CAP_MS = 60_000


@pytest.fixture
def vectors_dir(tmp_path: Path) -> Path:
    """A copy of the http-retry vectors, so candidates land in tmp_path."""
    folder = tmp_path / "vectors"
    folder.mkdir()
    source = ROOT / "vectors" / "http-retry.json"
    (folder / "http-retry.json").write_text(source.read_text(encoding="utf-8"), encoding="utf-8")
    return folder


def generate(vectors_dir: Path, *extra: str) -> int:
    return main(
        [
            "generate",
            "--domain",
            "http-retry",
            "--platform",
            "python",
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


def server_delay_ms(name: str, value: str) -> int:
    """The delay a shrunk header asks for (it is one of the simple spellings)."""
    if name.lower() == "retry-after-ms":
        whole, _, fraction = value.partition(".")
        return int(whole) + (1 if fraction.strip("0") else 0)
    return int(value) * 1000


def test_a_retry_after_above_the_cap_honoured_is_found_and_shrunk(
    vectors_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    worker = f"capless={shlex.join([sys.executable, str(WORKER)])}"
    assert generate(vectors_dir, "--worker", worker, "--platform", "capless") == 1
    out = capsys.readouterr().out
    assert "capless:" in out
    candidates = json.loads((vectors_dir / "candidates" / "http-retry.json").read_text("utf-8"))
    (case,) = candidates["cases"]
    assert case["expected"]["reason"] == "retry_after_exceeds_cap", case
    case_input = case["input"]
    # Shrunk: the single form, the simplest request, one header just above the cap.
    assert "steps" not in case_input, case_input
    assert case_input["method"] == "GET" and case_input["attempt"] == 0, case_input
    assert case_input["response"]["status"] == 503, case_input
    ((name, value),) = case_input["response"]["headers"]
    assert name.lower() in ("retry-after", "retry-after-ms"), case_input
    assert CAP_MS < server_delay_ms(name, value) <= CAP_MS + 1000, case_input


def test_the_reference_against_rust_and_js_finds_nothing(
    vectors_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Also: every drawn input is schema-valid (the search refuses an input no vector
    # may hold) and the delays-within-bounds property holds on all three platforms.
    assert generate(vectors_dir, "--platform", "rust", "--platform", "js") == 0
    assert "no disagreement, every property held" in capsys.readouterr().out
    assert not (vectors_dir / "candidates").exists()


def test_decoded_records_are_schema_valid() -> None:
    import random

    from jsonschema import Draft202012Validator

    from strategies import http_retry

    schema = json.loads((ROOT / "schemas" / "http-retry.schema.json").read_text("utf-8"))
    validator = Draft202012Validator({**schema, "$ref": "#/$defs/input"})
    rng = random.Random("http-retry")
    forms = set()
    for _ in range(2000):
        case_input = http_retry.decode(rng.randbytes(http_retry.RECORD))
        problems = [e.message for e in validator.iter_errors(case_input)]
        assert not problems, (case_input, problems)
        forms.add("steps" in case_input)
    assert forms == {False, True}
    # Zero bytes are the simplest input: a GET's 503 without headers.
    assert http_retry.decode(bytes(http_retry.RECORD))["response"] == {"status": 503, "headers": []}
