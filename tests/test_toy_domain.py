"""A domain can land one platform at a time.

A toy domain that exists only outside the project (its vectors and schema in a
temporary folder, its JSON layer only in Python) runs green: the python platform
passes it, rust and js report it `not implemented` (a skip), in the harness and in
both native runners. A worker may also answer `skip` for single cases.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from impl_python import conformance
from runners._cli import main

ROOT = Path(__file__).resolve().parent.parent
FAKE = Path(__file__).resolve().parent / "fake_workers" / "fake_worker.py"

SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$defs": {
        "input": {
            "type": "object",
            "additionalProperties": False,
            "required": ["text"],
            "properties": {"text": {"type": "string"}},
        },
        "output": {
            "type": "object",
            "additionalProperties": False,
            "required": ["text"],
            "properties": {"text": {"type": "string"}},
        },
        "error_code": {"enum": ["empty_text"]},
    },
}

JSON_LAYER = """
from impl_python.errors import HanzoError


def run(case_input):
    if not case_input["text"]:
        raise HanzoError("nothing to shout", code="empty_text")
    return {"text": case_input["text"].upper()}
"""


def _case(case_id: str, text: str, **outcome: Any) -> dict[str, Any]:
    return {
        "id": case_id,
        "description": "A toy case.",
        "tags": ["toy"],
        "source": {"kind": "derived", "ref": "tests/test_toy_domain.py"},
        "clauses": ["TOY-1"],
        "input": {"text": text},
        **outcome,
    }


@pytest.fixture
def toy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """tmp_path/vectors/toy-upper.json, tmp_path/schemas/, and a Python-only JSON layer."""
    (tmp_path / "vectors").mkdir()
    (tmp_path / "schemas").mkdir()
    (tmp_path / "layer").mkdir()
    doc = {
        "domain": "toy-upper",
        "version": 1,
        "description": "Upper-cases text; exists only in this test.",
        "tags": {"toy": "every case of the toy domain"},
        "cases": [
            _case("shout", "hi", expected={"text": "HI"}),
            _case("empty", "", error="empty_text"),
        ],
    }
    (tmp_path / "vectors" / "toy-upper.json").write_text(json.dumps(doc), encoding="utf-8")
    (tmp_path / "schemas" / "toy-upper.schema.json").write_text(
        json.dumps(SCHEMA), encoding="utf-8"
    )
    # Its contract, beside the schema: the clause ids its cases may cite.
    (tmp_path / "schemas" / "toy-upper.md").write_text(
        "# toy-upper\n\n### TOY-1: text comes back upper-cased\n", encoding="utf-8"
    )
    (tmp_path / "layer" / "toy_upper.py").write_text(JSON_LAYER, encoding="utf-8")
    # Adding a domain to the python platform is adding a module to impl_python.conformance.
    monkeypatch.setattr(conformance, "__path__", [*conformance.__path__, str(tmp_path / "layer")])
    # That module exists only in this process (the patched __path__), so the python
    # platform runs in-process here, not in its supervised child (adapters/served.py).
    monkeypatch.setenv("HANZO_CONFORMANCE_IN_PROCESS", "1")
    monkeypatch.delitem(sys.modules, "impl_python.conformance.toy_upper", raising=False)
    return tmp_path


def _run(capsys: pytest.CaptureFixture[str], toy: Path, *argv: str) -> tuple[int, str]:
    code = main(
        [
            "run",
            "--no-default-vectors",
            "--vectors",
            str(toy / "vectors"),
            "--schemas",
            str(toy / "schemas"),
            *argv,
        ]
    )
    return code, capsys.readouterr().out


def test_a_python_only_domain_runs_green_with_the_others_not_implemented(
    capsys: pytest.CaptureFixture[str], toy: Path
) -> None:
    code, out = _run(capsys, toy, "--format", "json")
    assert code == 0, out
    results = json.loads(out)["results"]
    by_platform: dict[str, set[str]] = {}
    for r in results:
        by_platform.setdefault(r["platform"], set()).add(r["status"])
    assert by_platform == {"python": {"pass"}, "rust": {"skip"}, "js": {"skip"}}
    assert {r["message"] for r in results if r["status"] == "skip"} == {
        "toy-upper is not implemented by rust",
        "toy-upper is not implemented by js",
    }
    code, out = _run(capsys, toy)
    assert code == 0 and "not implemented" in out


def test_the_python_layer_can_fail_the_toy_domain(
    capsys: pytest.CaptureFixture[str], toy: Path
) -> None:
    """The same setup is not green by construction: a wrong layer is reported."""
    (toy / "layer" / "toy_upper.py").write_text(
        JSON_LAYER.replace(".upper()", ".lower()"), encoding="utf-8"
    )
    code, out = _run(capsys, toy, "--platform", "python")
    assert code == 1
    assert "FAIL toy-upper::shout [python]" in out


def test_a_worker_may_skip_single_cases(capsys: pytest.CaptureFixture[str], toy: Path) -> None:
    worker = f"partial={sys.executable} {FAKE} --domains toy-upper --skip-on *"
    code, out = _run(capsys, toy, "--platform", "partial", "--worker", worker, "--format", "json")
    assert code == 0, out
    results = json.loads(out)["results"]
    assert [r["status"] for r in results] == ["skip", "skip"]
    assert results[0]["message"] == "not applicable to partial: this fake supports no such input"


def _native_env(toy: Path) -> dict[str, str]:
    return {**os.environ, "HANZO_CONFORMANCE_VECTORS": str(toy / "vectors")}


def test_node_test_reports_the_toy_domain_as_skipped(toy: Path) -> None:
    from adapters.js import find_node

    result = subprocess.run(
        [find_node(), "--test", "test/vectors.test.js"],
        cwd=ROOT / "impl_js",
        env=_native_env(toy),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "# skipped 1" in result.stdout
    assert "not implemented by the js platform" in result.stdout


def _schema_invalid_pkce_case(folder: Path) -> Path:
    doc = json.loads((ROOT / "vectors" / "oauth-pkce.json").read_text(encoding="utf-8"))
    doc["cases"] = doc["cases"][:1]
    doc["cases"][0]["input"] = {"verifier": 5}
    (folder / "vectors").mkdir()
    (folder / "vectors" / "oauth-pkce.json").write_text(json.dumps(doc), encoding="utf-8")
    return folder


def test_node_test_refuses_a_schema_invalid_input(tmp_path: Path) -> None:
    """node --test's loader checks inputs against $defs.input, as the harness does."""
    from adapters.js import find_node

    assert (ROOT / "impl_js" / "node_modules" / "ajv").is_dir(), (
        "node --test's loader needs impl_js's dev dependencies: run ci/checks/js (npm ci) first"
    )
    _schema_invalid_pkce_case(tmp_path)
    result = subprocess.run(
        [find_node(), "--test", "test/vectors.test.js"],
        cwd=ROOT / "impl_js",
        env=_native_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode != 0
    assert "not run: the input does not match $defs.input at /verifier" in result.stdout


def _two_failing_pkce_cases(folder: Path) -> tuple[str, str]:
    """A vector folder whose oauth-pkce file has two wrong cases between passing ones."""
    doc = json.loads((ROOT / "vectors" / "oauth-pkce.json").read_text(encoding="utf-8"))
    passing = [c for c in doc["cases"] if "expected" in c][:2]
    failing = [json.loads(json.dumps(c)) for c in passing]
    for c in failing:
        c["id"] += "-wrong"
        c["expected"] = {"wrong": True}
    doc["cases"] = [passing[0], *failing, passing[1]]
    (folder / "vectors").mkdir()
    (folder / "vectors" / "oauth-pkce.json").write_text(json.dumps(doc), encoding="utf-8")
    return failing[0]["id"], failing[1]["id"]


def _fail_fast_runs(
    command: list[str], cwd: Path, folder: Path
) -> dict[str, subprocess.CompletedProcess[str]]:
    return {
        flag: subprocess.run(
            command,
            cwd=cwd,
            env={**_native_env(folder), "HANZO_CONFORMANCE_FAIL_FAST": flag},
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        for flag in ("0", "1")
    }


def test_node_test_fail_fast_stops_at_the_first_failing_case(tmp_path: Path) -> None:
    """HANZO_CONFORMANCE_FAIL_FAST=1 (mutation runs) ends at the first failure, exit 1."""
    from adapters.js import find_node

    first, second = _two_failing_pkce_cases(tmp_path)
    runs = _fail_fast_runs(
        [find_node(), "--test", "test/vectors.test.js"], ROOT / "impl_js", tmp_path
    )
    whole, fast = runs["0"], runs["1"]
    assert whole.returncode != 0 and fast.returncode != 0
    assert "# fail 2" in whole.stdout, whole.stdout
    assert f"case {first} [chunking as written]" in fast.stdout + fast.stderr
    assert second not in fast.stdout + fast.stderr


@pytest.mark.slow
def test_cargo_test_fail_fast_stops_at_the_first_failing_case(tmp_path: Path) -> None:
    cargo = shutil.which("cargo")
    assert cargo is not None, "the rust platform's native runner needs cargo"
    first, second = _two_failing_pkce_cases(tmp_path)
    command = [
        cargo,
        "test",
        "--quiet",
        "-p",
        "hanzo-conformance",
        "--test",
        "vectors",
        "--",
        "every_vector_passes",
    ]
    runs = _fail_fast_runs(command, ROOT, tmp_path)
    whole, fast = (runs[flag].stdout + runs[flag].stderr for flag in ("0", "1"))
    assert runs["0"].returncode != 0 and runs["1"].returncode != 0
    assert first in whole and second in whole, whole
    assert first in fast, fast
    assert second not in fast, fast


@pytest.mark.slow
def test_cargo_test_reports_the_toy_domain_as_skipped(toy: Path) -> None:
    cargo = shutil.which("cargo")
    assert cargo is not None, "the rust platform's native runner needs cargo"
    command = [cargo, "test", "--quiet", "-p", "hanzo-conformance", "--test", "vectors"]
    result = subprocess.run(
        [*command, "--", "--nocapture"],
        cwd=ROOT,
        env=_native_env(toy),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert 'skipped: domain "toy-upper" (2 cases) is not implemented by the rust platform' in (
        result.stdout
    )


def test_a_variant_input_the_schema_rejects_is_never_sent(
    capsys: pytest.CaptureFixture[str], toy: Path
) -> None:
    """Inputs are checked once, at the harness boundary: the JSON layers trust them."""
    schema = json.loads((toy / "schemas" / "toy-upper.schema.json").read_text(encoding="utf-8"))
    pieces = {"type": "array", "items": {"type": "string", "minLength": 2}}
    schema["$defs"]["input"]["properties"]["pieces"] = pieces
    (toy / "schemas" / "toy-upper.schema.json").write_text(json.dumps(schema), encoding="utf-8")
    doc = json.loads((toy / "vectors" / "toy-upper.json").read_text(encoding="utf-8"))
    case = _case("shout", "hi", expected={"text": "HI"})
    case["input"]["pieces"] = ["ab"]
    doc["cases"] = [case]
    # Re-chunking /pieces one code point per chunk gives ["a", "b"]: too short.
    doc["variants"] = [{"kind": "rechunk", "path": "/pieces"}]
    (toy / "vectors" / "toy-upper.json").write_text(json.dumps(doc), encoding="utf-8")
    code, out = _run(capsys, toy, "--platform", "python", "--format", "json")
    results = json.loads(out)["results"]
    assert code == 1
    assert results[0]["status"] == "error"
    assert "not sent: the input does not match $defs.input at /pieces/0" in results[0]["message"]


@pytest.mark.slow
def test_cargo_test_refuses_a_schema_invalid_input(tmp_path: Path) -> None:
    """cargo test's loader checks inputs against $defs.input, as the harness does."""
    cargo = shutil.which("cargo")
    assert cargo is not None, "the rust platform's native runner needs cargo"
    command = [cargo, "test", "--quiet", "-p", "hanzo-conformance", "--test", "vectors"]
    result = subprocess.run(
        command,
        cwd=ROOT,
        env=_native_env(_schema_invalid_pkce_case(tmp_path)),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode != 0
    assert "not run: the input does not match $defs.input at /verifier" in result.stdout
