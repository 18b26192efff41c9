"""generate finds an estimator that counts code points or UTF-16 units instead of
UTF-8 bytes (TOK-1) and shrinks it to one two-byte character.

The faulty platform is a protocol worker (tests/fake_workers/token_code_points.py)
started by the CLI's --worker, so the search runs as a maintainer would run it.
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest

from runners._cli import main

ROOT = Path(__file__).resolve().parent.parent
WORKER = ROOT / "tests" / "fake_workers" / "token_code_points.py"
SEED = 12345


@pytest.fixture
def vectors_dir(tmp_path: Path) -> Path:
    """The domain's vector file without its non-ASCII text cases, so that the shrunk
    input is new and generate writes it as a candidate (an input equal to an existing
    case is reported but not written again)."""
    document = json.loads((ROOT / "vectors" / "token-estimation.json").read_text("utf-8"))
    document["cases"] = [
        case
        for case in document["cases"]
        if "text" not in case["input"] or case["input"]["text"].isascii()
    ]
    folder = tmp_path / "vectors"
    folder.mkdir()
    (folder / "token-estimation.json").write_text(
        json.dumps(document, ensure_ascii=False, indent=2), "utf-8"
    )
    return folder


@pytest.mark.parametrize(
    ("flags", "counted"), [((), "code points"), (("--utf-16",), "UTF-16 units")]
)
def test_a_wrong_unit_is_found_and_shrunk_to_one_two_byte_character(
    vectors_dir: Path,
    flags: tuple[str, ...],
    counted: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    command = shlex.join([sys.executable, str(WORKER), *flags])
    main(
        [
            "generate",
            "--domain",
            "token-estimation",
            "--platform",
            "python",
            "--worker",
            f"wrong-unit={command}",
            "--seed",
            str(SEED),
            "--max-examples",
            "100",
            "--vectors-dir",
            str(vectors_dir),
        ]
    )
    out = capsys.readouterr().out
    assert "disagreement" in out, f"the fault counting {counted} was not found:\n{out}"
    candidates = json.loads(
        (vectors_dir / "candidates" / "token-estimation.json").read_text("utf-8")
    )
    [case] = candidates["cases"]
    # The smallest input where the units differ: one character of two UTF-8 bytes,
    # one code point and one UTF-16 unit. Its cost is 1 in every unit; the byte
    # count in the output is what tells them apart.
    [char] = case["input"]["text"]
    assert 0x80 <= ord(char) <= 0x7FF, case["input"]
    assert case["expected"] == {"utf8_bytes": 2, "tokens": 1}
    assert "TOK-1" in case["clauses"]
    assert "differs at /utf8_bytes: 1, reference 2" in out


def test_the_reference_agrees_with_itself_on_the_same_search(
    vectors_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The same search on the built-in platforms (python, rust, js) finds nothing:
    # the finding above is the planted fault's, not the strategy's or the reference's.
    main(
        [
            "generate",
            "--domain",
            "token-estimation",
            "--seed",
            str(SEED),
            "--max-examples",
            "100",
            "--vectors-dir",
            str(vectors_dir),
        ]
    )
    assert "no disagreement" in capsys.readouterr().out
    assert not (vectors_dir / "candidates").exists()
