"""One tool call through HIP-301's composition (docs/domains/tool-call-pipeline.md):
permission policy, prompter, pre-hooks, sandbox, execution, post-hooks."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from impl_python.config import HanzoConfig, policy_from_config
from impl_python.errors import HanzoError
from impl_python.hooks import HookRunner, ToolResult
from impl_python.permissions import PermissionMode, PermissionPolicy
from impl_python.sandbox import Sandbox

__all__ = [
    "ORIGINS",
    "PermissionDecision",
    "PermissionPrompter",
    "PipelineOutcome",
    "ToolCall",
    "ToolCallPipeline",
    "ToolExecutor",
]

ORIGINS = ("agent", "subagent", "slash_command")


@dataclass(frozen=True)
class PermissionDecision:
    """HIP-301 §2: Allow | Deny(reason) | Escalate."""

    kind: Literal["allow", "deny", "escalate"]
    reason: str | None = None


class PermissionPrompter(Protocol):
    """HIP-301 §2."""

    async def request_permission(self, tool_name: str, input: dict[str, Any]) -> PermissionDecision:
        """Ask the user (or a policy engine) whether the tool may run."""
        ...


class ToolExecutor(Protocol):
    """HIP-301 §2."""

    async def execute(self, name: str, input: dict[str, Any], session_id: str) -> ToolResult:
        """Run the tool."""
        ...


@dataclass(frozen=True)
class ToolCall:
    """One call: who asks (PIPE-1) and which paths it touches."""

    tool_name: str
    input: dict[str, Any]
    origin: str = "agent"
    paths: Sequence[str] = ()

    def __post_init__(self) -> None:
        if self.origin not in ORIGINS:
            raise HanzoError(f"invalid origin {self.origin!r}", code="invalid_origin")


@dataclass
class PipelineOutcome:
    """PIPE-2..PIPE-5."""

    ran: bool
    tool_result: ToolResult
    audit: dict[str, Any]
    steps: list[dict[str, Any]] = field(default_factory=list)


class ToolCallPipeline:
    """The steps between the model asking for a tool and the result it gets back."""

    def __init__(
        self,
        policy: PermissionPolicy,
        prompter: PermissionPrompter,
        hooks: HookRunner,
        sandbox: Sandbox,
        executor: ToolExecutor,
        session_id: str = "",
    ) -> None:
        self.policy, self.prompter, self.hooks = policy, prompter, hooks
        self.sandbox, self.executor, self.session_id = sandbox, executor, session_id

    @classmethod
    def from_config(
        cls,
        config: HanzoConfig,
        prompter: PermissionPrompter,
        sandbox: Sandbox,
        executor: ToolExecutor,
        session_id: str = "",
        *,
        hook_env: Mapping[str, str] | None = None,
    ) -> ToolCallPipeline:
        """PIPE-6: the policy is ``policy_from_config(config)`` (CFG-22) and the hooks are
        ``config.hooks`` in their merged order (CFG-24), run in the sandbox's workspace."""
        runner = HookRunner(
            config.hooks, session_id=session_id, cwd=sandbox.workspace, env=hook_env
        )
        return cls(policy_from_config(config), prompter, runner, sandbox, executor, session_id)

    async def run(self, call: ToolCall) -> PipelineOutcome:
        """Take the steps of PIPE-2 in order; the first refusal ends the call."""
        steps: list[dict[str, Any]] = []

        def refuse(by: str, message: str, outcome: str = "refused") -> PipelineOutcome:
            audit: dict[str, Any] = {"tool_name": call.tool_name, "origin": call.origin}
            audit |= {"outcome": outcome, "refused_by": by, "reason": message}
            return PipelineOutcome(False, ToolResult("", message, True), audit, steps)

        if call.origin != "slash_command":  # PIPE-1: user-initiated, no permission system
            decision = self.policy.decide(call.tool_name)
            steps.append(
                {
                    "step": "permission",
                    "mode": decision.mode.value,
                    "rule_index": decision.rule_index,
                }
            )
            if decision.mode is PermissionMode.DENY:
                # An empty reason is a reason (PERM-6b): only a missing one gets the default.
                why = "denied by permission policy" if decision.reason is None else decision.reason
                return refuse("permission", f"permission denied: {why}")
            if decision.mode is PermissionMode.PROMPT:
                answer = await self.prompter.request_permission(call.tool_name, call.input)
                given = answer.reason if answer.kind == "deny" else None  # only Deny has one
                steps.append({"step": "prompter", "answer": answer.kind, "reason": given})
                if answer.kind == "deny":
                    why = "denied by user" if answer.reason is None else answer.reason
                    return refuse("prompter", f"permission denied: {why}")
                if answer.kind == "escalate":  # PIPE-3
                    message = f"permission escalated: {call.tool_name} needs a human decision"
                    return refuse("prompter", message, "escalated")
        pre = await self.hooks.run_pre(call.tool_name, call.input)
        steps.append(
            {"step": "pre_hooks", "decision": pre.decision, "reason": pre.reason, "ran": pre.ran}
        )
        if pre.decision != "allow":
            return refuse("pre_hooks", f"blocked by hook: {pre.reason}")
        for path in call.paths:
            check = self.sandbox.check(path)
            steps.append(
                {"step": "sandbox", "path": path, "allowed": check.allowed, "reason": check.reason}
            )
            if not check.allowed:
                return refuse("sandbox", f"path not allowed: {path}")
        result = await self.executor.execute(call.tool_name, call.input, self.session_id)
        steps.append({"step": "execute", "is_error": result.is_error})
        post = await self.hooks.run_post(call.tool_name, call.input, result)
        steps.append({"step": "post_hooks", "ran": post.ran})
        audit: dict[str, Any] = {"tool_name": call.tool_name, "origin": call.origin}
        audit |= {"outcome": "ran", "refused_by": None, "reason": None}
        return PipelineOutcome(True, result, audit, steps)
