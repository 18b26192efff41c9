"""permission-policy JSON layer: build a PermissionPolicy from ``rules``, decide ``tool_name``."""

from __future__ import annotations

from typing import Any

from impl_python.errors import HanzoError
from impl_python.permissions import PermissionPolicy, PermissionRule


def _rule(raw: object) -> PermissionRule:
    if not isinstance(raw, dict):
        raise HanzoError("each rule must be an object", code="bad_input")
    pattern, mode, reason = raw.get("tool_pattern"), raw.get("mode"), raw.get("reason")
    if not isinstance(pattern, str) or not isinstance(mode, str):
        raise HanzoError("rule.tool_pattern and rule.mode must be strings", code="bad_input")
    if reason is not None and not isinstance(reason, str):
        raise HanzoError("rule.reason must be a string or null", code="bad_input")
    return PermissionRule(pattern, mode, reason)


def run(case_input: dict[str, Any]) -> dict[str, Any]:
    """``{"rules", "tool_name"}`` -> ``{"mode", "rule_index", "reason", "audit"}``."""
    rules, tool_name = case_input.get("rules"), case_input.get("tool_name")
    if not isinstance(rules, list) or not isinstance(tool_name, str):
        raise HanzoError(
            "input.rules must be a list and input.tool_name a string", code="bad_input"
        )
    decision = PermissionPolicy([_rule(raw) for raw in rules]).decide(tool_name)
    audit = decision.audit
    return {
        "mode": decision.mode.value,
        "rule_index": decision.rule_index,
        "reason": decision.reason,
        "audit": {
            "tool_name": audit.tool_name,
            "mode": audit.mode.value,
            "rule_matched": audit.rule_matched,
            "reason": audit.reason,
        },
    }
