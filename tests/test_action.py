"""The reusable action (action.yml), run without GitHub: its shell steps, with the
variables a runner sets (a step summary file, an output file, a workspace), against a
foreign example worker (Authlib 1.9.6's PKCE check) with its ledger: a green run, a run with a
divergence no ledger records, and a worker that cannot start."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
ACTION = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
WORKER = f"authlib={sys.executable} {ROOT / 'examples' / 'authlib' / 'worker.py'}"
LEDGER = str(ROOT / "examples" / "authlib" / "expectations.json")
EXPRESSION = re.compile(r"\$\{\{\s*([^}]*?)\s*\}\}")


def expand(text: str, inputs: dict[str, str]) -> str:
    """A step's `${{ ... }}` with the inputs and the action's path, as the runner expands them."""

    def value(match: re.Match[str]) -> str:
        expression = match[1]
        if expression == "github.action_path":
            return str(ROOT)
        name = expression.removeprefix("inputs.")
        if name == expression or name not in inputs:
            raise AssertionError(f"the test cannot expand ${{{{ {expression} }}}}")
        return inputs[name]

    return EXPRESSION.sub(value, text)


def run_action(workspace: Path, **given: str) -> dict[str, Any]:
    """The action's shell steps after `install` (this checkout is installed in the test's
    environment already, which is what that step installs); `uses:` steps are GitHub's."""
    inputs = {name: spec.get("default", "") for name, spec in ACTION["inputs"].items()}
    unknown = set(given) - set(inputs)
    assert not unknown, unknown
    inputs.update(given)
    summary, output = workspace / "summary.md", workspace / "output.txt"
    summary.write_text("", encoding="utf-8")
    output.write_text("", encoding="utf-8")
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "GITHUB_WORKSPACE": str(workspace),
        "GITHUB_STEP_SUMMARY": str(summary),
        "GITHUB_OUTPUT": str(output),
        "GITHUB_ACTION_PATH": str(ROOT),
        "CI": "true",
    }
    codes = {}
    for step in ACTION["runs"]["steps"]:
        if "run" not in step or step.get("id") == "install":
            continue
        step_env = {key: expand(str(value), inputs) for key, value in step.get("env", {}).items()}
        done = subprocess.run(
            ["bash", "-e", "-c", expand(step["run"], inputs)],
            cwd=workspace,
            env={**env, **step_env},
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        codes[step["id"]] = done.returncode
        log = done.stdout + done.stderr
    outputs = dict(line.split("=", 1) for line in output.read_text().splitlines() if "=" in line)
    declared = {
        name: EXPRESSION.fullmatch(spec["value"])[1]  # type: ignore[index]
        for name, spec in ACTION["outputs"].items()
    }
    return {
        "codes": codes,
        "log": log,
        "summary": summary.read_text(encoding="utf-8"),
        "outputs": {name: outputs.get(ref.rsplit(".", 1)[1]) for name, ref in declared.items()},
        "files": sorted(p.name for p in (workspace / inputs["output-dir"]).iterdir()),
    }


def test_a_platform_whose_ledger_records_its_divergences_gates_green(tmp_path: Path) -> None:
    done = run_action(
        tmp_path, workers=WORKER, domains="oauth-pkce", expectations=LEDGER, junit="true"
    )
    assert done["codes"] == {"gate": 0}, done["log"]
    assert done["outputs"]["exit-code"] == "0"
    assert done["outputs"]["verdict"].startswith("OK: 53 results")
    assert done["outputs"]["results"] == "conformance-results/results.json"
    assert "# hanzo-conformance parity report" in done["summary"]
    assert "xfail" in done["summary"] and "diverged" not in done["summary"]
    assert {"results.json", "report.md", "report.html", "report.xml"} <= set(done["files"])
    junit = (tmp_path / "conformance-results" / "report.xml").read_text(encoding="utf-8")
    assert 'errors="0" failures="0"' in junit
    assert junit.count('[authlib]"') == 53


def test_a_divergence_no_ledger_records_fails_the_gate(tmp_path: Path) -> None:
    done = run_action(tmp_path, workers=WORKER, domains="oauth-pkce")
    assert done["codes"] == {"gate": 1}, done["log"]
    assert done["outputs"]["exit-code"] == "1"
    assert done["outputs"]["verdict"].startswith("DIVERGED: 53 results")
    assert "**❌ diverged**" in done["summary"]


def test_a_worker_that_cannot_start_fails_the_gate_and_says_so(tmp_path: Path) -> None:
    broken = f"broken={tmp_path / 'no-such-worker'}"
    done = run_action(tmp_path, workers=broken, domains="oauth-pkce")
    assert done["codes"] == {"gate": 1}, done["log"]
    assert done["outputs"]["exit-code"] == "1"
    assert "did not start" in done["summary"] or "did not start" in done["log"]


def test_bad_inputs_are_a_usage_error_with_one_line(tmp_path: Path) -> None:
    done = run_action(tmp_path, workers="no equals sign here")
    assert done["codes"] == {"gate": 2}
    assert "a worker must be NAME=COMMAND" in done["log"]
