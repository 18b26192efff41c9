"""mcp-normalization JSON layer: ``op`` "normalize" or "parse" on impl_python.mcp_names."""

from __future__ import annotations

from typing import Any

from impl_python.errors import HanzoError
from impl_python.mcp_names import normalize_tool_name, parse_tool_name


def _text(case_input: dict[str, Any], key: str) -> str:
    value = case_input.get(key)
    if not isinstance(value, str):
        raise HanzoError(f"input.{key} must be a string", code="bad_input")
    return value


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
    raise HanzoError(f"unknown op {op!r}", code="bad_input")
