"""HOOK-14 end to end: a harness launched with signals ignored and blocked still passes.

``nohup`` starts a program with SIGHUP ignored, a non-interactive shell starts a
background job with SIGINT and SIGQUIT ignored, and a parent may leave a signal
blocked; a process passes all of that on to its children unless it resets it. HOOK-14
says a hook starts with the default disposition of every standard signal and an empty
mask whatever its runner inherited, so the hooks vectors (and the tool-call-pipeline
vectors, whose hooks go through the same runners) must pass on every platform when the
CLI itself is started that way. The launcher below does what nohup and the shell do,
then execs the CLI, whose served platforms inherit it in turn.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

# Ignore SIGHUP (nohup), SIGINT and SIGQUIT (a background job), block SIGTERM; then exec.
LAUNCHER = """\
import os, signal, sys
for ignored in (signal.SIGHUP, signal.SIGINT, signal.SIGQUIT):
    signal.signal(ignored, signal.SIG_IGN)
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
os.execv(sys.argv[1], sys.argv[1:])
"""

DOMAINS = ("hooks", "tool-call-pipeline")
HOOK_14_CASES = {
    "shell-kills-itself",
    "shell-killed-by-its-own-interrupt",
    "shell-killed-by-its-own-terminate",
    "shell-traps-hangup",
    "hook-killed-by-its-own-hangup-refuses",
}


def launched_like_nohup(*argv: str, timeout: float) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "HANZO_CONFORMANCE_IN_PROCESS"}
    return subprocess.run(
        [sys.executable, "-c", LAUNCHER, *argv],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def test_the_launch_reaches_a_child_that_does_not_reset_it() -> None:
    """The test can fail: a shell started plainly under this launcher keeps the ignores
    and the mask, so each of the new vectors' commands survives its own signal."""
    for command in (
        "kill -s HUP $$; exit 0",
        "kill -s INT $$; exit 0",
        "kill -s TERM $$; exit 0",
        "trap 'exit 3' HUP; kill -s HUP $$; exit 0",
    ):
        shell = launched_like_nohup("/bin/sh", "-c", command, timeout=30)
        assert shell.returncode == 0, (command, shell.returncode, shell.stderr)


def failures(results: list[dict[str, Any]]) -> list[str]:
    return [
        f"{r['platform']} {r['domain']}::{r['case']}: {r['status']}"
        f" at {', '.join(d['pointer'] for d in r.get('diff') or [])}"
        for r in results
        if r["status"] != "pass"
    ]


def test_every_hook_case_passes_on_every_platform_when_launched_like_nohup(
    tmp_path: Path,
) -> None:
    output = tmp_path / "results.json"
    domains = [arg for domain in DOMAINS for arg in ("--domain", domain)]
    run = launched_like_nohup(
        sys.executable,
        "-m",
        "runners",
        "run",
        *domains,
        "-q",
        "--format",
        "json",
        "--output",
        str(output),
        timeout=600,
    )
    assert output.is_file(), run.stdout + run.stderr
    results = json.loads(output.read_text(encoding="utf-8"))["results"]
    assert not failures(results), "\n".join(failures(results))
    assert run.returncode == 0, run.stdout + run.stderr
    ran = {(r["domain"], r["platform"]) for r in results}
    assert ran == {(d, p) for d in DOMAINS for p in ("python", "rust", "js")}
    assert {r["case"] for r in results} >= HOOK_14_CASES
