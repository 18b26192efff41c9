"""The reusable sharded workflow (.github/workflows/conformance-sharded.yml), without
GitHub: it is a `workflow_call` workflow whose inputs are the action's plus a shard
count; its plan step makes the shard matrix; each shard job runs the action on its
shard and uploads an artifact the merge job downloads; and the merge job's step, run in
a shell as a runner runs it (a step summary file, an output file, a workspace holding
the downloaded artifacts), merges the shards' results and exits with the merged verdict.
The shards are made by the action's own steps (tests/test_action.py's ``run_action``)
on Authlib's worker. actionlint checks the file too (ci/checks/workflows)."""

from __future__ import annotations

import fnmatch
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml
from test_action import ACTION, LEDGER, WORKER, run_action

ROOT = Path(__file__).resolve().parent.parent
WORKFLOW = yaml.safe_load(
    (ROOT / ".github" / "workflows" / "conformance-sharded.yml").read_text(encoding="utf-8")
)
CALL = WORKFLOW[True]["workflow_call"]  # YAML 1.1 reads the key `on` as true
JOBS = WORKFLOW["jobs"]
EXPRESSION = re.compile(r"\$\{\{\s*([^}]*?)\s*\}\}")


def inputs(**given: str) -> dict[str, str]:
    values = {name: str(spec.get("default", "")) for name, spec in CALL["inputs"].items()}
    values.update(given)
    return values


def expand(text: str, values: dict[str, str], extra: dict[str, str] | None = None) -> str:
    def value(match: re.Match[str]) -> str:
        expression = match[1]
        if extra and expression in extra:
            return extra[expression]
        name = expression.removeprefix("inputs.")
        if name == expression or name not in values:
            raise AssertionError(f"the test cannot expand ${{{{ {expression} }}}}")
        return values[name]

    return EXPRESSION.sub(value, text)


def step(job: str, **where: str) -> dict[str, Any]:
    found = [s for s in JOBS[job]["steps"] if all(s.get(k) == v for k, v in where.items())]
    assert len(found) == 1, (job, where)
    return found[0]


def run_step(workspace: Path, job: str, step_id: str, values: dict[str, str]) -> dict[str, Any]:
    """One `run:` step in bash, with the variables a runner sets; its code, log, summary
    and outputs."""
    chosen = step(job, id=step_id)
    summary, output = workspace / "summary.md", workspace / "output.txt"
    summary.write_text("", encoding="utf-8")
    output.write_text("", encoding="utf-8")
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "GITHUB_WORKSPACE": str(workspace),
        "GITHUB_STEP_SUMMARY": str(summary),
        "GITHUB_OUTPUT": str(output),
        "CI": "true",
        **{k: expand(str(v), values) for k, v in chosen.get("env", {}).items()},
    }
    done = subprocess.run(
        ["bash", "-e", "-c", expand(chosen["run"], values)],
        cwd=workspace,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    lines = output.read_text(encoding="utf-8").splitlines()
    return {
        "code": done.returncode,
        "log": done.stdout + done.stderr,
        "summary": summary.read_text(encoding="utf-8"),
        "outputs": dict(line.split("=", 1) for line in lines if "=" in line),
    }


def test_it_is_called_with_the_actions_inputs_and_a_shard_count() -> None:
    action_inputs = set(ACTION["inputs"]) - {"shard", "output-dir", "artifact-name"}
    assert action_inputs <= set(CALL["inputs"])
    assert CALL["inputs"]["shards"]["type"] == "number"
    assert set(CALL["outputs"]) == {"exit-code", "verdict"}
    assert "merge.outputs.exit-code" in CALL["outputs"]["exit-code"]["value"]


def test_the_plan_makes_one_matrix_entry_per_shard(tmp_path: Path) -> None:
    done = run_step(tmp_path, "plan", "plan", inputs(shards="3"))
    assert done["code"] == 0, done["log"]
    assert done["outputs"] == {"shards": '["1/3", "2/3", "3/3"]'}
    assert run_step(tmp_path, "plan", "plan", inputs(shards="0"))["code"] != 0
    shard = JOBS["shard"]
    assert shard["strategy"]["matrix"]["shard"] == "${{ fromJSON(needs.plan.outputs.shards) }}"
    assert shard["strategy"]["fail-fast"] is False


def test_each_shard_runs_the_action_and_the_merge_job_downloads_every_artifact() -> None:
    gate = step("shard", uses="./.hanzo-conformance")
    harness = [s for s in JOBS["shard"]["steps"] if s.get("with", {}).get("path")]
    assert harness[0]["with"]["path"] == ".hanzo-conformance"
    assert gate["with"]["shard"] == "${{ matrix.shard }}"
    for name in ACTION["inputs"]:
        assert name in gate["with"], name
    # Every shard's artifact name matches the merge job's download pattern.
    values = inputs()
    download = step("merge", uses="actions/download-artifact@v4")["with"]
    pattern = expand(download["pattern"], values)
    for index in range(4):
        name = expand(gate["with"]["artifact-name"], values, {"strategy.job-index": str(index)})
        assert fnmatch.fnmatch(name, pattern), (name, pattern)
    assert JOBS["merge"]["needs"] == "shard" and "cancelled()" in JOBS["merge"]["if"]
    assert download["path"] == step("merge", id="merge")["env"]["HC_SHARDS_DIR"]


def downloaded(workspace: Path, count: int, **given: str) -> Path:
    """The shards made by the action's steps, where download-artifact puts them."""
    shards = workspace / "shards"
    for index in range(count):
        made = workspace / f"run-{index}"
        made.mkdir()
        done = run_action(made, shard=f"{index + 1}/{count}", **given)
        assert done["codes"]["gate"] in (0, 1), done["log"]
        artifact = shards / f"conformance-shard-{index}"
        artifact.mkdir(parents=True)
        shutil.copy(made / "conformance-results" / "results.json", artifact / "results.json")
    # The harness checkout the merge job's step runs ci/gate-merge from.
    (workspace / ".hanzo-conformance").symlink_to(ROOT)
    return shards


GIVEN = {"workers": WORKER, "domains": "oauth-pkce"}


def test_the_merge_step_gates_green_on_shards_whose_ledger_records_their_divergences(
    tmp_path: Path,
) -> None:
    downloaded(tmp_path, 2, expectations=LEDGER, **GIVEN)
    done = run_step(tmp_path, "merge", "merge", inputs())
    assert done["code"] == 0, done["log"]
    assert done["outputs"]["exit-code"] == "0"
    assert done["outputs"]["verdict"].startswith("OK: 53 results")
    assert "# hanzo-conformance parity report" in done["summary"] and "xfail" in done["summary"]
    results = tmp_path / "conformance-results"
    assert {"results.json", "report.md", "report.html"} <= {p.name for p in results.iterdir()}


def test_the_merge_step_fails_on_a_divergence_no_ledger_records(tmp_path: Path) -> None:
    downloaded(tmp_path, 2, **GIVEN)
    done = run_step(tmp_path, "merge", "merge", inputs())
    assert done["code"] == 1, done["log"]
    assert done["outputs"]["verdict"].startswith("DIVERGED: 53 results")
    assert "**❌ diverged**" in done["summary"]


def test_the_merge_step_refuses_a_missing_shard_and_says_why(tmp_path: Path) -> None:
    shards = downloaded(tmp_path, 2, expectations=LEDGER, **GIVEN)
    shutil.rmtree(shards / "conformance-shard-1")
    done = run_step(tmp_path, "merge", "merge", inputs())
    assert done["code"] == 2
    assert done["outputs"]["exit-code"] == "2"
    assert "shard 2/2 missing" in done["summary"] and "not merged" in done["summary"]
