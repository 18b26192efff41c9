"""JSON layer for ``config-merge``: lay the case's files out on disk, call load_config.

Layout (docs/domains/config-merge.md, "Harness input"; made by ``layout.lay_out``): a
fresh temporary directory holding ``home/`` (HOME), ``xdg/`` (XDG_CONFIG_HOME when
``xdg_config_home`` is ``"temp"``) and ``project/`` (the project root). Nothing touches
the process env.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from impl_python.config import (
    HanzoConfig,
    load_config_with_warnings,
    permission_rules,
    policy_from_config,
)

from . import layout


def _config_json(config: HanzoConfig) -> dict[str, Any]:
    return {
        "api_key": config.api_key,
        "model": config.model,
        "mcp_servers": {
            name: {"command": list(s.command), "args": list(s.args), "env": dict(s.env)}
            for name, s in config.mcp_servers.items()
        },
        "permissions": dict(config.permissions),
        "custom_instructions": config.custom_instructions,
        "oauth_credentials": config.oauth_credentials,
        "hooks": [
            {
                "event": h.event,
                "command": h.command,
                "tool_pattern": h.tool_pattern,
                "timeout_ms": h.timeout_ms,
            }
            for h in config.hooks
        ],
        "input_mode": config.input_mode,
    }


def run_laid(case_input: dict[str, Any]) -> dict[str, Any]:
    """The laid-out case (``layout.lay_out``: ``{env, project_root, trusted,
    evaluate?}``) -> ``{config, policy, warnings, evaluations?}``."""
    project_root = case_input["project_root"]
    loaded = load_config_with_warnings(
        None if project_root is None else Path(project_root),
        env=case_input["env"],
        trusted=case_input["trusted"],
    )
    warnings: list[dict[str, str]] = []
    for w in loaded.warnings:
        item = {"code": w.code, "tier": w.tier}
        if w.key is not None:
            item["key"] = w.key
        warnings.append(item)
    config = loaded.config
    out: dict[str, Any] = {
        "config": _config_json(config),
        "policy": [
            {"tool_pattern": r.tool_pattern, "mode": r.mode.value} for r in permission_rules(config)
        ],
        "warnings": warnings,
    }
    names = case_input.get("evaluate")
    if names is not None:
        policy = policy_from_config(config)
        out["evaluations"] = [
            {"tool_name": name, "mode": policy.evaluate(name).value} for name in names
        ]
    return out


def run(case_input: dict[str, Any]) -> dict[str, Any]:
    with layout.laid("config-merge", case_input) as case:
        return case.finish(run_laid(case.input))
