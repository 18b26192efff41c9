"""MCP tool names: ``mcp__<server>__<tool>`` (HIP-301 §1, docs/domains/mcp-normalization.md).

Tool names from MCP servers are folded into one model-facing namespace. Every
code point outside ``[A-Za-z0-9_-]`` becomes one ``_`` (MCP-1); names longer than
the model APIs' 64-character limit are cut and suffixed with a hash of the whole
name (MCP-4); :func:`parse_tool_name` is the syntactic inverse (MCP-5..MCP-7).
"""

from __future__ import annotations

import hashlib
from typing import NamedTuple

from impl_python.errors import HanzoError

__all__ = [
    "HASH_HEX_LEN",
    "MAX_TOOL_NAME_LEN",
    "PREFIX",
    "SEPARATOR",
    "EmptyNameError",
    "McpNameError",
    "McpToolRef",
    "NotMcpNameError",
    "normalize_name_part",
    "normalize_tool_name",
    "parse_tool_name",
]

PREFIX = "mcp__"
"""Every normalized MCP tool name starts with this (MCP-3)."""

SEPARATOR = "__"
"""Between the normalized server and the normalized tool (MCP-3)."""

MAX_TOOL_NAME_LEN = 64
"""The model APIs' limit: ``^[a-zA-Z0-9_-]{1,64}$`` (MCP-4)."""

HASH_HEX_LEN = 8
"""Lowercase hex digits of SHA-256 kept in a shortened name (MCP-4)."""

_KEEP_LEN = MAX_TOOL_NAME_LEN - 1 - HASH_HEX_LEN  # 55 code points kept, then "_", then the hash
_ALLOWED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")


class McpNameError(HanzoError):
    """Base of the mcp-normalization contract errors."""


class EmptyNameError(McpNameError):
    """The server or the tool name is the empty string (MCP-2)."""

    code = "empty_name"


class NotMcpNameError(McpNameError):
    """The string is not a name :func:`normalize_tool_name` could have produced (MCP-5)."""

    code = "not_mcp_name"


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
    full = PREFIX + normalize_name_part(server) + SEPARATOR + normalize_name_part(tool)
    if len(full) <= MAX_TOOL_NAME_LEN:
        return full
    digest = hashlib.sha256(full.encode("ascii")).hexdigest()[:HASH_HEX_LEN]
    return full[:_KEEP_LEN] + "_" + digest


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
