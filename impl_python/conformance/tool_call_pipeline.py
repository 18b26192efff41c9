"""tool-call-pipeline JSON layer: build the sandbox tree in a temporary root, compose
the real policy, hook runner (fixtures) and sandbox with a scripted prompter and
executor, run one call. The root is written back as ``{root}`` in the output."""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
from dataclasses import replace
from typing import Any

from impl_python.config import TIERS, HanzoConfig, merge_tiers
from impl_python.hooks import DEFAULT_TIMEOUT_MS, HookConfig, HookRunner, ToolResult
from impl_python.permissions import PermissionPolicy, PermissionRule
from impl_python.pipeline import PermissionDecision, ToolCall, ToolCallPipeline
from impl_python.sandbox import Sandbox, SandboxConfig

from .hooks import substitute
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


def _merged(settings: dict[str, Any]) -> HanzoConfig:
    """The settings tiers (file texts, as in config-merge) merged by config-merge's rules."""
    files: dict[str, str | None] = settings.get("files", {})
    raw = {tier: _encoded(files.get(tier)) for tier in TIERS}
    return merge_tiers(raw, settings.get("env", {}), trusted=settings.get("trusted", False)).config


def _encoded(text: str | None) -> bytes | None:
    return None if text is None else text.encode("utf-8")


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
        return substitute(text, root)

    def sub_command(text: str) -> str:
        return substitute(text, root, command=True)

    box = case_input["sandbox"]
    build_tree(root, box["tree"])
    # PIPE-1: the parts in the order of the pipeline's parameters (sandbox, whose
    # workspace the hooks run in, then policy, then hooks), then the call's origin.
    box_config = box["config"]
    sandbox = Sandbox(
        SandboxConfig(box_config["mode"], [sub(p) for p in box_config["allowed_paths"]]),
        sub(box["workspace"]),
    )
    session_id = case_input["session_id"]
    answer = case_input["prompter"]
    out = case_input["tool_output"]
    prompter = ScriptedPrompter(PermissionDecision(answer["answer"], answer["reason"]))
    executor = ScriptedExecutor(ToolResult(out["output"], out["error"], out["is_error"]))
    settings = case_input.get("settings")
    if settings is not None:
        config = _merged(settings)
        config = replace(
            config, hooks=[replace(h, command=sub_command(h.command)) for h in config.hooks]
        )
        pipeline = ToolCallPipeline.from_config(
            config, prompter, sandbox, executor, session_id, hook_env=HOOK_ENV
        )
    else:
        rules = case_input["rules"]
        policy = PermissionPolicy(
            [PermissionRule(r["tool_pattern"], r["mode"], r.get("reason")) for r in rules]
        )
        hooks = [
            HookConfig(
                h["event"],
                sub_command(h["command"]),
                h["tool_pattern"],
                h.get("timeout_ms", DEFAULT_TIMEOUT_MS),
            )
            for h in case_input["hooks"]
        ]
        runner = HookRunner(hooks, session_id=session_id, cwd=sandbox.workspace, env=HOOK_ENV)
        pipeline = ToolCallPipeline(policy, prompter, runner, sandbox, executor, session_id)
    call_raw = case_input["call"]
    call = ToolCall(
        call_raw["tool_name"],
        call_raw["input"],
        call_raw["origin"],
        [sub(p) for p in call_raw["paths"]],
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
    """``{settings | rules + hooks, prompter, sandbox, call, ...}`` ->
    ``{ran, steps, tool_result, audit}``."""
    root = os.path.realpath(tempfile.mkdtemp(prefix="hanzo-pipeline-"))
    try:
        return _run_in(case_input, root)
    finally:
        shutil.rmtree(root, ignore_errors=True)
