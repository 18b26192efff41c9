"""ToolCallPipeline.from_config (PIPE-6): the merged settings' policy and hooks, not
rules handed in; the vectors reach it only through the JSON layer."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from impl_python.config import HookConfig as ConfigHookConfig
from impl_python.config import merge_tiers
from impl_python.hooks import HookConfig, ToolResult
from impl_python.pipeline import PermissionDecision, PipelineOutcome, ToolCall, ToolCallPipeline
from impl_python.sandbox import Sandbox, SandboxConfig


class _Allow:
    async def request_permission(self, tool_name: str, input: dict[str, Any]) -> PermissionDecision:
        return PermissionDecision("allow")


class _Done:
    async def execute(self, name: str, input: dict[str, Any], session_id: str) -> ToolResult:
        return ToolResult("done")


def _run(settings: dict[str, Any], tool_name: str) -> PipelineOutcome:
    config = merge_tiers({"user": json.dumps(settings).encode()}, {}).config
    pipeline = ToolCallPipeline.from_config(
        config,
        _Allow(),
        Sandbox(SandboxConfig("off", []), "/"),
        _Done(),
        "s",
        hook_env={"PATH": "/usr/bin:/bin"},
    )
    return asyncio.run(pipeline.run(ToolCall(tool_name, {}, "agent", [])))


def test_config_and_hooks_share_one_hook_config_type() -> None:
    assert ConfigHookConfig is HookConfig


def test_a_hook_from_the_config_denies_a_tool_the_config_allows() -> None:
    hook = {"event": "pre_tool_use", "command": "printf nope >&2; exit 2", "tool_pattern": "fs.*"}
    outcome = _run({"permissions": {"fs.*": "allow"}, "hooks": [hook]}, "fs.write")
    assert not outcome.ran
    assert outcome.audit["refused_by"] == "pre_hooks"
    assert outcome.tool_result.error == "blocked by hook: nope"


def test_config_deny_rules_come_before_allow_rules_whatever_the_key_order() -> None:
    settings = {"permissions": {"*": "allow", "fs.*": "deny"}}
    denied = _run(settings, "fs.rm")
    assert denied.tool_result.error == "permission denied: denied by permission policy"
    assert _run(settings, "net.get").ran
