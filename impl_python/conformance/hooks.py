"""hooks JSON layer: run the case's hooks for real in a temporary root, report what they saw.

``{root}`` (the case root) and ``{fixtures}`` (fixtures/hooks/) are replaced in hook
commands, ``cwd`` and ``env`` values. What each ``record`` fixture wrote becomes
``saw``; the processes the case left alive after the run (in the platform's PID
namespace, or working in the case root: ``_others``) are counted in
``leftover_processes`` (then killed).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shlex
import shutil
import signal
import tempfile
import time
from pathlib import Path
from typing import Any

from impl_python.hooks import DEFAULT_TIMEOUT_MS, HookConfig, HookRunner, ToolResult

from . import case_root

FIXTURES = os.environ.get(
    "HANZO_HOOK_FIXTURES", str(Path(__file__).resolve().parents[2] / "fixtures" / "hooks")
)
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


def _saw(root: str, observe: list[str]) -> dict[str, Any]:
    saw: dict[str, Any] = {}
    for env_file in sorted(Path(root).rglob("*.env")):
        name = env_file.name[: -len(".env")]
        env: dict[str, str] = {}
        for entry in env_file.read_bytes().split(b"\0"):
            key, sep, value = entry.partition(b"=")
            if sep:
                env[key.decode("utf-8", "replace")] = value.decode("utf-8", "replace")
        cwd = env_file.with_suffix(".cwd").read_text(encoding="utf-8").rstrip("\n")
        saw[name] = {
            "env": {var: env.get(var) for var in observe},
            "cwd": "{root}" + cwd[len(root) :]
            if cwd == root or cwd.startswith(root + "/")
            else cwd,
            "stdin": env_file.with_suffix(".stdin").read_text(encoding="utf-8"),
        }
    return saw


def _integral(value: object) -> Any:
    """JSON has one number type: 2000.0 is the integer 2000 (HOOK-1)."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


def _hook(raw: object, sub: Any) -> HookConfig:
    if not isinstance(raw, dict):
        raise _bad("each hook must be an object")
    return HookConfig(
        event=raw.get("event"),  # type: ignore[arg-type]  # checked by HookRunner
        command=sub(raw.get("command")),
        tool_pattern=raw.get("tool_pattern"),  # type: ignore[arg-type]
        timeout_ms=_integral(raw.get("timeout_ms", DEFAULT_TIMEOUT_MS)),
    )


def substitute(text: str, root: str, *, command: bool = False) -> str:
    """``{root}`` and ``{fixtures}`` replaced (HOOK-4); in a command, each path as one
    /bin/sh word (``shlex.quote``: as it is when every character is safe, else in single
    quotes), so a checkout or temp dir with a space, quote or ``$`` runs the same hook."""
    word = shlex.quote if command else str
    return text.replace("{root}", word(root)).replace("{fixtures}", word(FIXTURES))


def _run_in(case_input: dict[str, Any], root: str) -> dict[str, Any]:
    def checked(value: object) -> str:
        if not isinstance(value, str):
            raise _bad("hook commands, cwd and env values must be strings")
        return value

    def sub(value: object) -> str:
        return substitute(checked(value), root)

    def sub_command(value: object) -> str:
        return substitute(checked(value), root, command=True)

    hooks, env, observe = case_input.get("hooks"), case_input.get("env"), case_input.get("observe")
    if not isinstance(hooks, list) or not isinstance(env, dict) or not isinstance(observe, list):
        raise _bad("input.hooks, input.env and input.observe are required")
    raw_cwd = checked(case_input.get("cwd"))
    cwd = sub(raw_cwd)
    cwd_rel = case_root.under_root(cwd, root, f"input.cwd {raw_cwd!r}")
    if case_input.get("create_cwd", True):  # false: a vector of HOOK-4's missing directory
        case_root.make_dirs(root, cwd_rel, f"input.cwd {raw_cwd!r}")
    runner = HookRunner(
        [_hook(h, sub_command) for h in hooks],
        session_id=case_input.get("session_id", ""),
        cwd=cwd,
        env={k: sub(v) for k, v in env.items()},
    )
    tool_name, tool_input = case_input.get("tool_name"), case_input.get("tool_input")
    if not isinstance(tool_name, str) or not isinstance(tool_input, dict):
        raise _bad("input.tool_name must be a string and input.tool_input an object")
    fill = case_input.get("tool_input_fill")
    if fill is not None:
        tool_input = {**tool_input, fill["key"]: fill["text"] * fill["count"]}
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
        "saw": _saw(root, [str(v) for v in observe]),
        "leftover_processes": _leftovers(root),
    }


def run(case_input: dict[str, Any]) -> dict[str, Any]:
    """``{hooks, event, tool_name, tool_input, ...}`` -> ``{decision, reason, ran, log, ...}``."""
    root = os.path.realpath(tempfile.mkdtemp(prefix="hanzo-hooks-"))
    try:
        return _run_in(case_input, root)
    finally:
        shutil.rmtree(root, ignore_errors=True)
