"""mcp-normalization JSON layer: ``op`` "normalize", "parse" or "table" on impl_python.mcp_names."""

from __future__ import annotations

from typing import Any

from impl_python.mcp_names import build_tool_table, normalize_tool_name, parse_tool_name


def _table(case_input: dict[str, Any]) -> dict[str, Any]:
    table = build_tool_table((s["server"], s["tools"]) for s in case_input["servers"])
    out: dict[str, Any] = {
        "table": [{"name": e.name, "server": e.server, "tool": e.tool} for e in table.entries]
    }
    if "lookup" in case_input:
        resolved: list[dict[str, str] | None] = []
        for name in case_input["lookup"]:
            entry = table.resolve(name)
            resolved.append(None if entry is None else {"server": entry.server, "tool": entry.tool})
        out["resolved"] = resolved
    return out


def run(case_input: dict[str, Any]) -> dict[str, Any]:
    """``{"op": "normalize", "server", "tool"}`` -> ``{"name"}``;
    ``{"op": "parse", "name"}`` -> ``{"server", "tool"}``;
    ``{"op": "table", "servers", "lookup"?}`` -> ``{"table", "resolved"?}``.
    """
    if case_input["op"] == "normalize":
        return {"name": normalize_tool_name(case_input["server"], case_input["tool"])}
    if case_input["op"] == "table":
        return _table(case_input)
    ref = parse_tool_name(case_input["name"])  # "parse"
    return {"server": ref.server, "tool": ref.tool}
