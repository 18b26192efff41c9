"""mcp-normalization: server and tool names that collide after normalization, long
names around the 64-character cut, separators, non-ASCII, and parse of near-names."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from . import Response, joined, records

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


PREFIXES = ("mcp__", "mcp_", "MCP__", "mcp__mcp__", "")
# The operation (and parse's prefix), then two parts of 5 pieces each.
RECORD = 1 + 5 + 5


def _part(raw: bytes) -> str:
    return "".join([PIECES[b % len(PIECES)] for b in raw])


def decode(record: bytes) -> dict[str, Any]:
    if record[0] & 1:
        prefix = PREFIXES[(record[0] >> 1) % len(PREFIXES)]
        return {"op": "parse", "name": prefix + _part(record[1:6])}
    return {"op": "normalize", "server": _part(record[1:6]), "tool": _part(record[6:11])}


def inputs() -> st.SearchStrategy[dict[str, Any]]:
    return records(RECORD, decode)


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
