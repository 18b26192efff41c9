"""hooks JSON layer: run the case's hooks for real in a temporary root, report what they saw.

The case is laid out by ``layout.lay_out`` (the one owner of the layout, which the
harness also uses for a worker that asks it to): ``{root}`` (the case root) and
``{fixtures}`` (fixtures/hooks/) replaced in hook commands, ``cwd`` and ``env`` values,
``cwd`` made. What each ``record`` fixture wrote becomes ``saw`` (``layout.saw``); the
processes the case left alive after the run (in the platform's PID namespace, or
working in the case root: ``_others``, here) are counted in ``leftover_processes``
(then killed).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from pathlib import Path
from typing import Any

from impl_python.hooks import DEFAULT_TIMEOUT_MS, HookConfig, HookRunner, ToolResult

from . import layout

LEFTOVER_WAIT_S = 1.0
# How the harness confined this process (set by adapters/isolation.py, which owns it).
ISOLATION_ENV = "HANZO_CONFORMANCE_ISOLATION"


def _bad(message: str) -> ValueError:
    """The harness validated the input against the schema: a mismatch is a bug here."""
    return ValueError(message)


def _alive(pid: int) -> bool:
    """Running and not a zombie (Linux /proc)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[0] not in ("Z", "X")


def _others(root: str) -> list[int]:
    """This platform's other processes that the case left (zombies included; the caller
    filters). As the init of the PID namespace the harness made for it
    (adapters/isolation.py ``ISOLATION_ENV``): every process of that namespace. Else
    (no namespaces, or the layer driven directly by a native vector runner): every
    process whose working directory is in the case root (hooks start in their own
    sessions, so no session of ours holds them). Never a list a hook could write (a
    forged one would have this kill any pid); a process that changes its directory
    away escapes the count where there is no namespace."""
    me = os.getpid()
    everything = os.environ.get(ISOLATION_ENV) == "namespace" and me == 1
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == me:
            continue
        if not everything:
            try:
                cwd = os.readlink(f"/proc/{name}/cwd")
            except OSError:
                continue
            if cwd != root and not cwd.startswith(root + "/"):
                continue
        found.append(int(name))
    return found


def _leftovers(root: str) -> int:
    deadline = time.monotonic() + LEFTOVER_WAIT_S
    alive = [p for p in _others(root) if _alive(p)]
    while alive and time.monotonic() < deadline:
        time.sleep(0.01)
        alive = [p for p in alive if _alive(p)]
    for pid in alive:  # a failing platform must not leak processes into the run
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    return len(alive)


def _integral(value: object) -> Any:
    """JSON has one number type: 2000.0 is the integer 2000 (HOOK-1)."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


def _hook(raw: object) -> HookConfig:
    if not isinstance(raw, dict):
        raise _bad("each hook must be an object")
    return HookConfig(
        event=raw.get("event"),  # type: ignore[arg-type]  # checked by HookRunner
        command=raw.get("command"),  # type: ignore[arg-type]  # a string (layout checked it)
        tool_pattern=raw.get("tool_pattern"),  # type: ignore[arg-type]
        timeout_ms=_integral(raw.get("timeout_ms", DEFAULT_TIMEOUT_MS)),
    )


def run_laid(case_input: dict[str, Any]) -> dict[str, Any]:
    """The laid-out case (``layout.lay_out``) -> ``{decision, reason, ran, log}``."""
    runner = HookRunner(
        [_hook(h) for h in case_input["hooks"]],
        session_id=case_input.get("session_id", ""),
        cwd=case_input["cwd"],
        env=case_input["env"],
    )
    tool_name, tool_input = case_input.get("tool_name"), case_input.get("tool_input")
    if not isinstance(tool_name, str) or not isinstance(tool_input, dict):
        raise _bad("input.tool_name must be a string and input.tool_input an object")
    if case_input.get("event") == "post_tool_use":
        raw = case_input.get("tool_result") or {}
        result = ToolResult(raw.get("output", ""), raw.get("error"), raw.get("is_error", False))
        outcome = asyncio.run(runner.run_post(tool_name, tool_input, result))
    else:
        outcome = asyncio.run(runner.run_pre(tool_name, tool_input))
    return {
        "decision": outcome.decision,
        "reason": outcome.reason,
        "ran": outcome.ran,
        "log": [
            {"code": r.code, "hook": r.hook, "exit_code": r.exit_code, "signal": r.signal}
            for r in outcome.log
        ],
    }


def run(case_input: dict[str, Any]) -> dict[str, Any]:
    """``{hooks, event, tool_name, tool_input, ...}`` -> ``{decision, reason, ran, log, ...}``."""
    with layout.laid("hooks", case_input) as case:
        return case.finish(run_laid(case.input))
