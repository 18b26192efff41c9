"""mcp-normalization: server and tool names that collide after normalization, long
names around the 64-character cut, separators, non-ASCII, and parse of near-names."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from . import Response, joined

PIECES = (
    "",
    "a",
    "B",
    "0",
    "my",
    ".",
    " ",
    "_",
    "__",
    "-",
    "server",
    "github",
    "create_issue",
    "é",
    "e\u0301",
    "\U0001f600",
    "\x00",
    "/",
    "x" * 20,
    "y" * 31,
)


def part() -> st.SearchStrategy[str]:
    return joined(PIECES, 5)


def inputs() -> st.SearchStrategy[dict[str, Any]]:
    normalize = st.fixed_dictionaries(
        {"op": st.just("normalize"), "server": part(), "tool": part()}
    )
    prefix = st.sampled_from(("mcp__", "mcp_", "MCP__", "mcp__mcp__", ""))
    parse = st.builds(lambda p, rest: {"op": "parse", "name": p + rest}, prefix, part())
    return st.one_of(normalize, parse)


def clauses(case_input: Any, response: Response) -> set[str]:
    if case_input["op"] == "parse":
        if "error" in response:
            return {"MCP-5"}
        return {"MCP-5", "MCP-6", "MCP-7"}
    if "error" in response:
        return {"MCP-2"}
    found = {"MCP-1", "MCP-3"}
    name = (response.get("output") or {}).get("name", "")
    raw = case_input["server"] + case_input["tool"]
    if len("mcp__" + case_input["server"] + "__" + case_input["tool"]) > 64 or len(name) >= 60:
        found.add("MCP-4")
    if not raw.isascii():
        found.add("MCP-1")
    return found


PROPERTIES = ()
