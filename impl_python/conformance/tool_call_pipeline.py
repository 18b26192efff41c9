"""tool-call-pipeline JSON layer: build the sandbox tree in a temporary root, compose
the real policy, hook runner (fixtures) and sandbox with a scripted prompter and
executor, run one call. The root is written back as ``{root}`` in the output."""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
from typing import Any

from impl_python.hooks import DEFAULT_TIMEOUT_MS, HookConfig, HookRunner, ToolResult
from impl_python.permissions import PermissionPolicy, PermissionRule
from impl_python.pipeline import PermissionDecision, ToolCall, ToolCallPipeline
from impl_python.sandbox import Sandbox, SandboxConfig

from .hooks import FIXTURES
from .sandbox_paths import PLACEHOLDER, build_tree

HOOK_ENV = {"PATH": "/usr/bin:/bin"}


class ScriptedPrompter:
    def __init__(self, answer: PermissionDecision) -> None:
        self.answer = answer

    async def request_permission(self, tool_name: str, input: dict[str, Any]) -> PermissionDecision:
        return self.answer


class ScriptedExecutor:
    def __init__(self, result: ToolResult) -> None:
        self.result = result

    async def execute(self, name: str, input: dict[str, Any], session_id: str) -> ToolResult:
        return self.result


def _unroot(value: Any, root: str) -> Any:
    if isinstance(value, str):
        return value.replace(root, PLACEHOLDER)
    if isinstance(value, list):
        return [_unroot(v, root) for v in value]
    if isinstance(value, dict):
        return {k: _unroot(v, root) for k, v in value.items()}
    return value


def _run_in(case_input: dict[str, Any], root: str) -> dict[str, Any]:
    def sub(text: str) -> str:
        return text.replace(PLACEHOLDER, root).replace("{fixtures}", FIXTURES)

    box = case_input["sandbox"]
    build_tree(root, box["tree"])
    call_raw = case_input["call"]
    call = ToolCall(
        call_raw["tool_name"],
        call_raw["input"],
        call_raw["origin"],
        [sub(p) for p in call_raw["paths"]],
    )
    policy = PermissionPolicy(
        [PermissionRule(r["tool_pattern"], r["mode"], r.get("reason")) for r in case_input["rules"]]
    )
    hooks = [
        HookConfig(
            h["event"],
            sub(h["command"]),
            h["tool_pattern"],
            h.get("timeout_ms", DEFAULT_TIMEOUT_MS),
        )
        for h in case_input["hooks"]
    ]
    config = box["config"]
    sandbox = Sandbox(
        SandboxConfig(config["mode"], [sub(p) for p in config["allowed_paths"]]),
        sub(box["workspace"]),
    )
    session_id = case_input["session_id"]
    runner = HookRunner(hooks, session_id=session_id, cwd=sandbox.workspace, env=HOOK_ENV)
    answer = case_input["prompter"]
    out = case_input["tool_output"]
    pipeline = ToolCallPipeline(
        policy,
        ScriptedPrompter(PermissionDecision(answer["answer"], answer["reason"])),
        runner,
        sandbox,
        ScriptedExecutor(ToolResult(out["output"], out["error"], out["is_error"])),
        session_id,
    )
    outcome = asyncio.run(pipeline.run(call))
    result = outcome.tool_result
    output: dict[str, Any] = _unroot(
        {
            "ran": outcome.ran,
            "steps": outcome.steps,
            "tool_result": {
                "output": result.output,
                "error": result.error,
                "is_error": result.is_error,
            },
            "audit": outcome.audit,
        },
        root,
    )
    return output


def run(case_input: dict[str, Any]) -> dict[str, Any]:
    """``{rules, prompter, hooks, sandbox, call, ...}`` -> ``{ran, steps, tool_result, audit}``."""
    root = os.path.realpath(tempfile.mkdtemp(prefix="hanzo-pipeline-"))
    try:
        return _run_in(case_input, root)
    finally:
        shutil.rmtree(root, ignore_errors=True)
