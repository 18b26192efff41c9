"""The built wheel works away from the checkout.

Builds the wheel (``pip wheel .``, not editable), installs it into a fresh virtual
environment, and runs ``hanzo-conformance validate|list|run|report`` from a
directory outside the tree: on the bundled vectors and schemas, and on a
``--vectors`` folder elsewhere; the js platform runs from the bundled worker, and a
hooks case runs the bundled hook programs (which must have kept their +x).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from adapters.js import find_node

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.slow


def _run(*argv: str | Path, cwd: Path, check: bool = True) -> subprocess.CompletedProcess[str]:
    # HANZO_HOOK_FIXTURES too: the harness in this process points it at the checkout.
    dropped = ("PYTHONPATH", "VIRTUAL_ENV", "HANZO_HOOK_FIXTURES")
    env = {k: v for k, v in os.environ.items() if k not in dropped}
    result = subprocess.run(
        [str(a) for a in argv],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    if check:
        assert result.returncode == 0, f"{argv}\n{result.stdout}\n{result.stderr}"
    return result


def _install(work: Path) -> Path:
    """Build the wheel and install it in a fresh venv; that venv's bin/ folder."""
    work.mkdir()
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    _run(*pip, "wheel", "--no-deps", "-w", work / "dist", ROOT, cwd=work)
    (wheel,) = (work / "dist").glob("hanzo_conformance-*.whl")
    venv.create(work / "venv", with_pip=False)
    bin_dir = work / "venv" / ("Scripts" if os.name == "nt" else "bin")
    # As the README says: the `node` extra where PATH has no Node the js platform takes.
    extra = "[node]" if find_node() != shutil.which("node") else ""
    _run(*pip, "--python", bin_dir / "python", "install", f"{wheel}{extra}", cwd=work)
    return bin_dir


def test_the_installed_wheel_works_outside_the_tree(tmp_path: Path) -> None:
    # One test, so the wheel is built and installed once (and on one xdist worker).
    assert ROOT not in tmp_path.parents
    installed = _install(tmp_path / "build")
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    _validate_and_list_use_the_bundled_vectors_and_schemas(installed, outside)
    _run_and_report_on_python_and_js(installed, outside)
    _vectors_elsewhere(installed, outside)
    _the_domain_docs_are_bundled(installed, outside)
    _a_hooks_case_runs_the_bundled_fixtures(installed, outside)
    _the_pytest_plugin_collects_nothing_in_an_unrelated_project(installed, outside)


def _validate_and_list_use_the_bundled_vectors_and_schemas(installed: Path, outside: Path) -> None:
    out = _run(installed / "hanzo-conformance", "validate", cwd=outside).stdout
    count = len(list((ROOT / "vectors").glob("*.json")))
    assert f"ok: {count} vector files" in out
    out = _run(installed / "hanzo-conformance", "list", cwd=outside).stdout
    assert "sse-frames" in out


def _run_and_report_on_python_and_js(installed: Path, outside: Path) -> None:
    cli = installed / "hanzo-conformance"
    argv = ["run", "--platform", "python", "--platform", "js", "--domain", "oauth-pkce"]
    _run(cli, *argv, "--format", "json", "--output", outside / "r.json", cwd=outside)
    summary = json.loads((outside / "r.json").read_text(encoding="utf-8"))["summary"]
    assert summary["fail"] == summary["error"] == summary["skip"] == 0 < summary["pass"]
    assert "OK:" in _run(cli, "report", outside / "r.json", cwd=outside).stdout


def _vectors_elsewhere(installed: Path, outside: Path) -> None:
    case = {
        "id": "hello",
        "description": "One data line, dispatched by a blank line.",
        "tags": ["basic"],
        "source": {"kind": "derived", "ref": "tests/test_wheel.py"},
        "clauses": ["SSE-1"],
        "input": {"chunks": ["data: hi\n\n"]},
        "expected": {"frames": [{"event": None, "data": "hi", "id": None, "retry": None}]},
    }
    doc = {
        "domain": "sse-frames",
        "version": 1,
        "description": "One case.",
        "tags": {"basic": "the ordinary, documented behaviour"},
        "cases": [case],
    }
    (outside / "mine").mkdir()
    (outside / "mine" / "sse.json").write_text(json.dumps(doc), encoding="utf-8")
    cli = installed / "hanzo-conformance"
    argv = ["--no-default-vectors", "--vectors", "mine"]
    assert "ok: 1 vector files" in _run(cli, "validate", *argv, cwd=outside).stdout
    out = _run(cli, "run", *argv, "--platform", "python", "--platform", "js", cwd=outside).stdout
    assert "OK: 2 results: 2 pass" in out


def _the_domain_docs_are_bundled(installed: Path, outside: Path) -> None:
    code = "from adapters._resources import project_dir; print(project_dir('docs/domains'))"
    folder = Path(_run(installed / "python", "-c", code, cwd=outside).stdout.strip())
    assert ROOT not in folder.parents
    assert (folder / "sse-frames.md").is_file()


def _a_hooks_case_runs_the_bundled_fixtures(installed: Path, outside: Path) -> None:
    code = "from adapters._resources import project_dir; print(project_dir('fixtures/hooks'))"
    folder = Path(_run(installed / "python", "-c", code, cwd=outside).stdout.strip())
    assert ROOT not in folder.parents
    assert os.access(folder / "record", os.X_OK)
    # One case whose hooks are fixture programs (record, then exit-with 2), as shipped.
    shipped = json.loads((ROOT / "vectors" / "hooks.json").read_text(encoding="utf-8"))
    (case,) = [c for c in shipped["cases"] if c["id"] == "first-deny-stops-the-rest"]
    assert all(h["command"].startswith("{fixtures}/") for h in case["input"]["hooks"])
    doc = {k: v for k, v in shipped.items() if k != "cases"}
    doc["cases"] = [case]
    (outside / "hooks-one").mkdir()
    (outside / "hooks-one" / "hooks.json").write_text(json.dumps(doc), encoding="utf-8")
    cli = installed / "hanzo-conformance"
    argv = ["--no-default-vectors", "--vectors", "hooks-one"]
    out = _run(cli, "run", *argv, "--platform", "python", "--platform", "js", cwd=outside).stdout
    assert "OK: 2 results: 2 pass" in out


def _the_pytest_plugin_collects_nothing_in_an_unrelated_project(
    installed: Path, outside: Path
) -> None:
    (outside / "data").mkdir()
    (outside / "data" / "config.json").write_text('{"a": 1}', encoding="utf-8")
    (outside / "test_one.py").write_text("def test_one():\n    pass\n", encoding="utf-8")
    out = _run(installed / "python", "-m", "pytest", "-q", "-p", "no:cacheprovider", cwd=outside)
    assert "1 passed" in out.stdout
