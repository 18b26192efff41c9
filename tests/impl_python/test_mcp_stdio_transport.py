"""impl_python's StdioMcpTransport (HIP-301 §1) against a real child server: it starts the
server with the STDIO-17 environment, initializes (STDIO-12), matches answers by id
(STDIO-13) and closes; the server is a few lines of Python that answers out of order."""

from __future__ import annotations

import asyncio
import sys

from impl_python.mcp_stdio import StdioMcpTransport

# Answers initialize, records every method in order, answers the two calls in reverse
# order (so matching by id matters), each answer carrying what the server saw so far.
SERVER = r"""
import json, os, sys
seen, held = [], []
for line in sys.stdin:
    m = json.loads(line)
    seen.append(m["method"])
    if m["method"] == "initialize":
        r = {"protocolVersion": "2025-06-18", "capabilities": {}, "serverInfo": {"name": "t"}}
        print(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": r}), flush=True)
    elif "id" in m:
        held.append(m)
        if len(held) == 2:
            for h in reversed(held):
                env = sorted(os.environ)
                r = {"method": h["method"], "seen": list(seen), "env": env}
                print(json.dumps({"jsonrpc": "2.0", "id": h["id"], "result": r}), flush=True)
"""


async def _exchange() -> tuple[dict, dict]:
    parent = {"PATH": "/usr/bin:/bin", "HANZO_API_KEY": "sk-secret", "HOME": "/tmp"}
    transport = StdioMcpTransport([sys.executable, "-c", SERVER], {"EXTRA": "1"}, parent_env=parent)
    connection = await transport.connect()
    first, second = await asyncio.gather(
        connection.send({"method": "a"}), connection.send({"method": "b", "params": {"x": 1}})
    )
    await connection.close()
    return first, second


def test_a_real_server_is_initialized_and_answers_are_matched_by_id() -> None:
    first, second = asyncio.run(asyncio.wait_for(_exchange(), 30))
    assert first["result"]["method"] == "a" and second["result"]["method"] == "b"
    # notifications/initialized went before any request (STDIO-12b).
    assert first["result"]["seen"] == ["initialize", "notifications/initialized", "a", "b"]
    # Only the safe variables and the configured one reach the server (STDIO-17).
    env = set(first["result"]["env"]) - {"LC_CTYPE", "__CF_USER_TEXT_ENCODING"}
    assert env == {"PATH", "HOME", "EXTRA"}, env
