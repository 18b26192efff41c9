"""JSON layer for ``config-merge``: lay the case's files out on disk, call load_config.

Layout (docs/domains/config-merge.md, "Harness input"): a fresh temporary directory
holding ``home/`` (HOME), ``xdg/`` (XDG_CONFIG_HOME when ``xdg_config_home`` is
``"temp"``) and ``project/`` (the project root). Nothing touches the process env.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from impl_python.config import (
    HanzoConfig,
    load_config_with_warnings,
    permission_rules,
    policy_from_config,
)


def _place(path: Path, spec: Any) -> None:
    if spec is None:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(spec, str):
        path.write_bytes(spec.encode("utf-8"))
    elif "bytes" in spec:  # one byte per code point U+0000..U+00FF (the schema's pattern)
        path.write_bytes(spec["bytes"].encode("latin-1"))
    else:  # {"directory": true}
        path.mkdir()


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


def run(case_input: dict[str, Any]) -> dict[str, Any]:
    files: dict[str, Any] = case_input["files"]
    xdg_mode: str = case_input.get("xdg_config_home", "absent")
    with tempfile.TemporaryDirectory(prefix="hanzo-cfg-") as tmp:
        base = Path(tmp)
        home, xdg, root = base / "home", base / "xdg", base / "project"
        for d in (home, xdg, root):
            d.mkdir()
        env: dict[str, str] = dict(case_input.get("env", {}))
        env["HOME"] = str(home)
        home_env = case_input.get("home_env", "set")
        if home_env == "unset":
            del env["HOME"]
        elif home_env == "empty":
            env["HOME"] = ""
        if xdg_mode == "temp":
            env["XDG_CONFIG_HOME"] = str(xdg)
            _place(xdg / "hanzo" / "settings.json", files.get("user"))
            _place(home / ".config" / "hanzo" / "settings.json", files.get("home"))
        else:
            if xdg_mode == "empty":
                env["XDG_CONFIG_HOME"] = ""
            elif xdg_mode == "relative":
                env["XDG_CONFIG_HOME"] = "xdg"
            _place(home / ".config" / "hanzo" / "settings.json", files.get("user"))
        _place(root / ".hanzo" / "settings.json", files.get("project"))
        _place(root / ".hanzo" / "settings.local.json", files.get("local"))
        project_root = root if case_input.get("project_root", True) else None
        trusted = case_input.get("trusted", False)
        loaded = load_config_with_warnings(project_root, env=env, trusted=trusted)
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
