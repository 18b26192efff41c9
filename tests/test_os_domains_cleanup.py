"""The hooks, sandbox-paths and tool-call-pipeline domains leave nothing behind on any platform:
no temporary file or directory and no process, a timed-out hook included (issue 12)."""

from __future__ import annotations

import os
import signal
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest

from adapters.registry import create
from runners import load_vector_file

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures" / "hooks"
# The hooks that start processes which would outlive them, and a few trees with links.
HOOK_CASES = {
    "timeout-kills-process-group",
    "timeout-stops-later-hooks",
    "post-hook-timeout-logged",
    "background-child-killed-after-allow",
    "background-child-killed-after-deny",
    "megabyte-of-stderr-drained",
    "order-all-allow",
}
SANDBOX_CASES = {"symlink-loop", "dangling-symlink-escapes", "container-dockerenv-dangling-symlink"}
PIPELINE_CASES = {"hook-timeout-refuses", "sandbox-symlink-loop", "post-hooks-never-block"}


def processes_working_under(directory: Path) -> list[int]:
    """Live (non-zombie) processes whose working directory is in ``directory``."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cwd = os.readlink(proc / "cwd")
            state = (proc / "stat").read_text().rpartition(")")[2].split()[0]
        except OSError:
            continue
        if cwd.startswith(str(directory)) and state not in ("Z", "X"):
            found.append(int(proc.name))
    return found


def requests() -> list[dict[str, Any]]:
    chosen = []
    for domain, ids in (
        ("hooks", HOOK_CASES),
        ("sandbox-paths", SANDBOX_CASES),
        ("tool-call-pipeline", PIPELINE_CASES),
    ):
        for case in load_vector_file(ROOT / "vectors" / f"{domain}.json").cases:
            if case.id in ids:
                chosen.append({"id": case.id, "domain": domain, "input": case.input})
    assert len(chosen) == len(HOOK_CASES) + len(SANDBOX_CASES) + len(PIPELINE_CASES)
    return chosen


def test_the_process_check_sees_a_survivor(tmp_path: Path) -> None:
    """The check below can fail: a fixture left running under the directory is found."""
    proc = subprocess.Popen([str(FIXTURES / "sleeper"), "probe", "30"], cwd=tmp_path)
    try:
        deadline = time.monotonic() + 5
        while not (tmp_path / "probe.pids").exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        survivors = processes_working_under(tmp_path)
        assert proc.pid in survivors and len(survivors) >= 2  # the fixture and its child
    finally:
        for pid in processes_working_under(tmp_path):
            os.kill(pid, signal.SIGKILL)
        proc.wait()


@pytest.mark.parametrize("platform", ["python", "rust", "js"])
def test_nothing_survives_a_run(
    platform: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    # Every platform makes its case roots under TMPDIR (tempfile, std::env::temp_dir, os.tmpdir).
    monkeypatch.setenv("TMPDIR", str(scratch))
    monkeypatch.setattr(tempfile, "tempdir", None)
    where = tmp_path / "where"
    probe = {
        "id": "where",
        "domain": "hooks",
        "input": {
            "hooks": [
                {"event": "pre_tool_use", "command": f"pwd -P > {where}", "tool_pattern": "*"}
            ],
            "event": "pre_tool_use",
            "tool_name": "t",
            "tool_input": {},
            "session_id": "",
            "env": {"PATH": "/usr/bin:/bin"},
            "cwd": "{root}",
            "observe": [],
        },
    }
    adapter = create(platform)
    adapter.start()
    try:
        responses = adapter.run([probe, *requests()])
    finally:
        adapter.stop()
    # The case roots really were under the scratch directory, so its emptiness means something.
    assert where.read_text().startswith(str(scratch) + "/")
    for response in responses:
        assert "output" in response, response
        assert response["output"].get("leftover_processes", 0) == 0, response
    assert processes_working_under(scratch) == []
    assert sorted(p.name for p in scratch.iterdir()) == []
