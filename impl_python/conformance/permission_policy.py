"""permission-policy JSON layer: build a PermissionPolicy from ``rules``, decide ``tool_name``."""

from __future__ import annotations

from typing import Any

from impl_python.permissions import PermissionPolicy, PermissionRule


def _rule(raw: dict[str, Any]) -> PermissionRule:
    return PermissionRule(raw["tool_pattern"], raw["mode"], raw.get("reason"))


def run(case_input: dict[str, Any]) -> dict[str, Any]:
    """``{"rules", "tool_name"}`` -> ``{"mode", "rule_index", "reason", "audit"}``."""
    rules, tool_name = case_input["rules"], case_input["tool_name"]
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
