"""mcp-normalization JSON layer: ``op`` "normalize" or "parse" on impl_python.mcp_names."""

from __future__ import annotations

from typing import Any

from impl_python.mcp_names import normalize_tool_name, parse_tool_name


def run(case_input: dict[str, Any]) -> dict[str, Any]:
    """``{"op": "normalize", "server", "tool"}`` -> ``{"name"}``;
    ``{"op": "parse", "name"}`` -> ``{"server", "tool"}``.
    """
    if case_input["op"] == "normalize":
        return {"name": normalize_tool_name(case_input["server"], case_input["tool"])}
    ref = parse_tool_name(case_input["name"])  # "parse"
    return {"server": ref.server, "tool": ref.tool}
