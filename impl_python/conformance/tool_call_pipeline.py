"""tool-call-pipeline JSON layer: compose the real policy, hook runner (fixtures) and
sandbox with a scripted prompter and executor, run one call. ``layout.lay_out`` builds
the sandbox tree in a temporary root, replaces the placeholders and writes the root
back as ``{root}`` in the output."""

from __future__ import annotations

import asyncio
from typing import Any

from impl_python.config import TIERS, HanzoConfig, merge_tiers
from impl_python.hooks import DEFAULT_TIMEOUT_MS, HookConfig, HookRunner, ToolResult
from impl_python.permissions import PermissionPolicy, PermissionRule
from impl_python.pipeline import PermissionDecision, ToolCall, ToolCallPipeline
from impl_python.sandbox import Sandbox, SandboxConfig

from . import layout

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


def run_laid(case_input: dict[str, Any]) -> dict[str, Any]:
    """The laid-out case (``layout.lay_out``: concrete paths and commands) ->
    ``{ran, steps, tool_result, audit}`` (with concrete paths)."""
    box = case_input["sandbox"]
    # PIPE-1: the parts in the order of the pipeline's parameters (sandbox, whose
    # workspace the hooks run in, then policy, then hooks), then the call's origin.
    box_config = box["config"]
    sandbox = Sandbox(
        SandboxConfig(box_config["mode"], list(box_config["allowed_paths"])),
        box["workspace"],
    )
    session_id = case_input["session_id"]
    answer = case_input["prompter"]
    out = case_input["tool_output"]
    prompter = ScriptedPrompter(PermissionDecision(answer["answer"], answer["reason"]))
    executor = ScriptedExecutor(ToolResult(out["output"], out["error"], out["is_error"]))
    settings = case_input.get("settings")
    if settings is not None:
        config = _merged(settings)
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
                h["command"],
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
        list(call_raw["paths"]),
    )
    outcome = asyncio.run(pipeline.run(call))
    result = outcome.tool_result
    return {
        "ran": outcome.ran,
        "steps": outcome.steps,
        "tool_result": {
            "output": result.output,
            "error": result.error,
            "is_error": result.is_error,
        },
        "audit": outcome.audit,
    }


def run(case_input: dict[str, Any]) -> dict[str, Any]:
    """``{settings | rules + hooks, prompter, sandbox, call, ...}`` ->
    ``{ran, steps, tool_result, audit}``."""
    with layout.laid("tool-call-pipeline", case_input) as case:
        return case.finish(run_laid(case.input))
