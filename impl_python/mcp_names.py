"""MCP tool names: ``mcp__<server>__<tool>`` (HIP-301 §1, docs/domains/mcp-normalization.md).

Tool names from MCP servers are folded into one model-facing namespace. Every
code point outside ``[A-Za-z0-9_-]`` becomes one ``_`` (MCP-1); a long server
part and a long tool part are each cut and suffixed with a hash of that part, so
every name of one server keeps the same ``mcp__<S>__`` prefix (MCP-4);
:func:`parse_tool_name` is the syntactic inverse (MCP-5..MCP-7) and
:func:`build_tool_table` resolves collisions and routes names back (MCP-8).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from impl_python.errors import HanzoError

__all__ = [
    "HASH_HEX_LEN",
    "MAX_SERVER_PART_LEN",
    "MAX_TOOL_NAME_LEN",
    "PREFIX",
    "SEPARATOR",
    "DuplicateServerError",
    "DuplicateToolError",
    "EmptyNameError",
    "McpNameError",
    "McpToolRef",
    "NameCollisionError",
    "NotMcpNameError",
    "ToolEntry",
    "ToolTable",
    "build_tool_table",
    "normalize_name_part",
    "normalize_tool_name",
    "parse_tool_name",
    "server_part",
]

PREFIX = "mcp__"
"""Every normalized MCP tool name starts with this (MCP-3)."""

SEPARATOR = "__"
"""Between the normalized server and the normalized tool (MCP-3)."""

MAX_TOOL_NAME_LEN = 64
"""The model APIs' limit: ``^[a-zA-Z0-9_-]{1,64}$`` (MCP-4)."""

HASH_HEX_LEN = 8
"""Lowercase hex digits of SHA-256 in a shortened part or a collision suffix (MCP-4, MCP-8)."""

MAX_SERVER_PART_LEN = 32
"""Longest server part; a longer normalized server is shortened on its own (MCP-4)."""

_SUFFIX_LEN = 1 + HASH_HEX_LEN  # "_" + hash
_ALLOWED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")


class McpNameError(HanzoError):
    """Base of the mcp-normalization contract errors."""


class EmptyNameError(McpNameError):
    """The server or the tool name is the empty string (MCP-2)."""

    code = "empty_name"


class NotMcpNameError(McpNameError):
    """The string is not a name :func:`normalize_tool_name` could have produced (MCP-5)."""

    code = "not_mcp_name"


class DuplicateServerError(McpNameError):
    """The same server name appears twice in a tool table's input (MCP-8)."""

    code = "duplicate_server"


class DuplicateToolError(McpNameError):
    """The same tool name appears twice in one server's tool list (MCP-8)."""

    code = "duplicate_tool"


class NameCollisionError(McpNameError):
    """Two entries still share a name after the collision suffixes (MCP-8)."""

    code = "name_collision"


class McpToolRef(NamedTuple):
    """The two pieces :func:`parse_tool_name` splits a name into (both already normalized)."""

    server: str
    tool: str


def normalize_name_part(part: str) -> str:
    """Replace every code point outside ``[A-Za-z0-9_-]`` with one ``_`` (MCP-1).

    No case folding and no Unicode normalization: ``"É"`` (one code point) and
    ``"E\\u0301"`` (two) become ``"_"`` and ``"E_"``.
    """
    return "".join(ch if ch in _ALLOWED else "_" for ch in part)


def normalize_tool_name(server: str, tool: str) -> str:
    """Return the model-facing name of ``tool`` on MCP server ``server`` (MCP-2..MCP-4).

    Raises :class:`EmptyNameError` if either argument is empty.
    """
    if not server:
        raise EmptyNameError("MCP server name is empty")
    if not tool:
        raise EmptyNameError("MCP tool name is empty")
    s = server_part(server)
    return PREFIX + s + SEPARATOR + _shorten(normalize_name_part(tool), _tool_room(s))


def _hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:HASH_HEX_LEN]


def _shorten(part: str, limit: int) -> str:
    """``part`` if it fits in ``limit``, else its head, ``_`` and a hash of all of it (MCP-4)."""
    if len(part) <= limit:
        return part
    return part[: limit - _SUFFIX_LEN] + "_" + _hex(part.encode("ascii"))


def _tool_room(s: str) -> int:
    """Code points left for the tool part after ``mcp__<s>__`` (at least 25)."""
    return MAX_TOOL_NAME_LEN - len(PREFIX) - len(s) - len(SEPARATOR)


def server_part(server: str) -> str:
    """The ``<S>`` of every name of ``server``: it depends on the server alone (MCP-4).

    Raises :class:`EmptyNameError` for an empty server.
    """
    if not server:
        raise EmptyNameError("MCP server name is empty")
    return _shorten(normalize_name_part(server), MAX_SERVER_PART_LEN)


def parse_tool_name(name: str) -> McpToolRef:
    """Split ``mcp__<server>__<tool>`` at the first ``__`` after a non-empty server (MCP-6).

    The pieces are the *normalized* server and tool: normalization is lossy and a
    shortened name keeps only a prefix of them (MCP-7), so route by a table of the
    names you generated, not by these pieces. Raises :class:`NotMcpNameError` for
    anything :func:`normalize_tool_name` cannot produce the shape of (MCP-5).
    """
    if not 0 < len(name) <= MAX_TOOL_NAME_LEN:
        raise NotMcpNameError(f"not 1..{MAX_TOOL_NAME_LEN} characters long")
    if any(ch not in _ALLOWED for ch in name):
        raise NotMcpNameError("contains a character outside [A-Za-z0-9_-]")
    if not name.startswith(PREFIX):
        raise NotMcpNameError(f"does not start with {PREFIX!r}")
    rest = name[len(PREFIX) :]
    # The server is at least one character, so the search starts at index 1.
    cut = rest.find(SEPARATOR, 1)
    if cut < 0:
        raise NotMcpNameError(f"no {SEPARATOR!r} between a server and a tool")
    tool = rest[cut + len(SEPARATOR) :]
    if not tool:
        raise NotMcpNameError("empty tool")
    return McpToolRef(rest[:cut], tool)


# --- the tool table (MCP-8) ------------------------------------------------------------


@dataclass(frozen=True)
class ToolEntry:
    """One model-facing name and the raw server and tool it routes to."""

    name: str
    server: str
    tool: str


class ToolTable:
    """Every tool of every server under a unique name; routes a name back (MCP-8)."""

    def __init__(self, entries: Sequence[ToolEntry]) -> None:
        self.entries: tuple[ToolEntry, ...] = tuple(entries)
        self._by_name = {e.name: e for e in self.entries}

    def resolve(self, name: str) -> ToolEntry | None:
        """The entry named ``name``, or ``None``: never a guess from the name's shape."""
        return self._by_name.get(name)


def _collision_suffix(server: str, tool: str) -> str:
    # 0xFF never occurs in UTF-8, so the pair is unambiguous.
    return _hex(server.encode("utf-8") + b"\xff" + tool.encode("utf-8"))


def build_tool_table(servers: Iterable[tuple[str, Sequence[str]]]) -> ToolTable:
    """Name every tool of every server, in input order, without two entries sharing a name.

    Each entry first gets :func:`normalize_tool_name`. Every entry whose name another
    entry shares (whichever server either is on) is renamed: its tool part becomes
    ``n(tool)`` cut to leave room for ``_`` plus the first 8 hex digits of
    SHA-256(server UTF-8, 0xFF, tool UTF-8). The server part never changes, so a
    server-wide rule keeps covering all its tools. Raises :class:`DuplicateServerError`,
    :class:`DuplicateToolError`, :class:`EmptyNameError`, or :class:`NameCollisionError`
    if names still coincide (only a crafted name or a 32-bit hash collision does that).
    """
    raw: list[tuple[str, str, str, str]] = []  # (server, tool, server part, base name)
    seen_servers: set[str] = set()
    for server, tools in servers:
        if server in seen_servers:
            raise DuplicateServerError(f"server {server!r} listed twice")
        seen_servers.add(server)
        s = server_part(server)
        seen_tools: set[str] = set()
        for tool in tools:
            if tool in seen_tools:
                raise DuplicateToolError(f"tool {tool!r} listed twice for server {server!r}")
            seen_tools.add(tool)
            raw.append((server, tool, s, normalize_tool_name(server, tool)))
    counts: dict[str, int] = {}
    for *_, base in raw:
        counts[base] = counts.get(base, 0) + 1
    entries: list[ToolEntry] = []
    for server, tool, s, base in raw:
        name = base
        if counts[base] > 1:
            room = _tool_room(s) - _SUFFIX_LEN
            name = (
                PREFIX
                + s
                + SEPARATOR
                + normalize_name_part(tool)[:room]
                + "_"
                + _collision_suffix(server, tool)
            )
        entries.append(ToolEntry(name, server, tool))
    if len({e.name for e in entries}) != len(entries):
        raise NameCollisionError("two tools still share a name after the collision suffixes")
    return ToolTable(entries)
