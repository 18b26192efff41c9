"""mcp-stdio JSON layer: decode, session, encode and spawn-env (docs/domains/mcp-stdio.md)."""

from __future__ import annotations

import json
from typing import Any

from impl_python.config import McpServerConfig
from impl_python.mcp_stdio import (
    DEFAULT_MAX_LINE_BYTES,
    EncodeError,
    McpClientSession,
    StdioMessageDecoder,
    encode_message,
    reply_for,
    server_process,
)


def _chunk_bytes(case_input: dict[str, Any]) -> list[bytes]:
    codec = "latin-1" if case_input.get("encoding") == "bytes" else "utf-8"
    return [chunk.encode(codec) for chunk in case_input["chunks"]]


def _decode(case_input: dict[str, Any]) -> dict[str, Any]:
    decoder = StdioMessageDecoder(case_input.get("max_line_bytes", DEFAULT_MAX_LINE_BYTES))
    messages = [m for chunk in _chunk_bytes(case_input) for m in decoder.feed(chunk)]
    if case_input.get("eof"):
        messages.extend(decoder.close())
    writes = [r for r in map(reply_for, messages) if r is not None]
    return {"messages": messages, "writes": writes}


def _session(case_input: dict[str, Any]) -> dict[str, Any]:
    listing = case_input.get("list_tools")
    session = McpClientSession(
        max_line_bytes=case_input.get("max_line_bytes", DEFAULT_MAX_LINE_BYTES),
        list_tools_server=listing["server"] if listing else None,
    )
    handles = [session.request(c["method"], c.get("params")) for c in case_input.get("calls", [])]
    for chunk in _chunk_bytes(case_input):
        session.feed(chunk)
    if case_input.get("eof"):
        session.close()
    out: dict[str, Any] = {
        "writes": session.writes,
        "initialize": session.outcome(0),
        "calls": [session.outcome(h) for h in handles],
        "events": session.events,
    }
    if listing:
        out["tables"] = session.tables
    return out


def _encode(case_input: dict[str, Any]) -> dict[str, Any]:
    message = dict(case_input["message"])
    if "params_json" in case_input:
        message["params"] = json.loads(case_input["params_json"])
    return {"line": encode_message(message).decode("utf-8")}


def _spawn_env(case_input: dict[str, Any]) -> dict[str, Any]:
    raw = case_input["config"]
    config = McpServerConfig(
        command=list(raw["command"]), args=list(raw.get("args", [])), env=dict(raw.get("env", {}))
    )
    process = server_process(config, case_input["parent_env"])
    return {"argv": process.argv, "env": process.env}


_OPS = {"decode": _decode, "session": _session, "encode": _encode, "spawn-env": _spawn_env}


def run(case_input: dict[str, Any]) -> dict[str, Any]:
    """Raises the contract's errors (``EncodeError``, ``SpawnError``) with their codes."""
    try:
        return _OPS[case_input["op"]](case_input)
    except OverflowError as e:  # params_json's numbers past binary64 (STDIO-11e)
        raise EncodeError(str(e), code="invalid_number") from e
