"""mcp-normalization JSON layer: ``op`` "normalize", "parse" or "table" on impl_python.mcp_names."""

from __future__ import annotations

from typing import Any

from impl_python.errors import HanzoError
from impl_python.mcp_names import build_tool_table, normalize_tool_name, parse_tool_name


def _text(case_input: dict[str, Any], key: str) -> str:
    value = case_input.get(key)
    if not isinstance(value, str):
        raise HanzoError(f"input.{key} must be a string", code="bad_input")
    return value


def _table(case_input: dict[str, Any]) -> dict[str, Any]:
    servers: list[tuple[str, list[str]]] = []
    raw = case_input.get("servers")
    if not isinstance(raw, list):
        raise HanzoError("input.servers must be a list", code="bad_input")
    for item in raw:
        server = item.get("server") if isinstance(item, dict) else None
        tools = item.get("tools") if isinstance(item, dict) else None
        if not isinstance(server, str) or not isinstance(tools, list):
            raise HanzoError("each server must be {server, tools}", code="bad_input")
        if not all(isinstance(t, str) for t in tools):
            raise HanzoError("tools must be strings", code="bad_input")
        servers.append((server, tools))
    table = build_tool_table(servers)
    out: dict[str, Any] = {
        "table": [{"name": e.name, "server": e.server, "tool": e.tool} for e in table.entries]
    }
    lookup = case_input.get("lookup")
    if lookup is not None:
        if not isinstance(lookup, list) or not all(isinstance(n, str) for n in lookup):
            raise HanzoError("input.lookup must be a list of strings", code="bad_input")
        resolved: list[dict[str, str] | None] = []
        for name in lookup:
            entry = table.resolve(name)
            resolved.append(None if entry is None else {"server": entry.server, "tool": entry.tool})
        out["resolved"] = resolved
    return out


def run(case_input: dict[str, Any]) -> dict[str, Any]:
    """``{"op": "normalize", "server", "tool"}`` -> ``{"name"}``;
    ``{"op": "parse", "name"}`` -> ``{"server", "tool"}``.
    """
    op = case_input.get("op")
    if op == "normalize":
        return {"name": normalize_tool_name(_text(case_input, "server"), _text(case_input, "tool"))}
    if op == "parse":
        ref = parse_tool_name(_text(case_input, "name"))
        return {"server": ref.server, "tool": ref.tool}
    if op == "table":
        return _table(case_input)
    raise HanzoError(f"unknown op {op!r}", code="bad_input")
