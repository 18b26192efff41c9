"""A conformance worker for hanzoai 8.5.914, Hanzo's published Python runtime, on
mcp-normalization.

    python3.12 -m venv venv && venv/bin/pip install -r examples/hanzoai-runtime/requirements.txt
    hanzo-conformance run --platform hanzoai-runtime --domain mcp-normalization \
        --worker hanzoai-runtime='venv/bin/python examples/hanzoai-runtime/worker.py' \
        --expectations examples/hanzoai-runtime/expectations.json

hanzoai 8.x says it ports claw-code's runtime. Its MCP names are
``hanzoai.mcp.mcp_tool_name(server, tool)`` (over ``normalize_mcp_name``): this worker
answers the contract's `normalize` operation with it, unchanged, and reports what it
raises as a crash. The package has no function that parses a name back into its server
and tool, and no tool table (MCPClient.list_tools returns the server's tools as they
are), so `parse` and `table` cases are answered `skip` with that reason, never
compared. Nothing is corrected: the ledger next to this file records the differences.
It speaks docs/protocol.md on stdin/stdout; like every example worker it is
self-contained (its protocol loop is the httpx-sse worker's), so it can be copied into
the package's own repository with its ledger.
"""

from __future__ import annotations

import json
import sys
import traceback
from importlib import metadata
from typing import Any

from hanzoai.mcp import mcp_tool_name

NO_PARSE = "hanzoai 8.5.914 has no function that parses an mcp__ name back into server and tool"
NO_TABLE = "hanzoai 8.5.914 builds no tool table: MCPClient.list_tools returns the server's names"


def mcp_normalization(case_input: dict[str, Any]) -> dict[str, Any] | str:
    """The output, or the reason the package cannot answer this operation."""
    op = case_input["op"]
    if op == "normalize":
        return {"name": mcp_tool_name(case_input["server"], case_input["tool"])}
    return NO_PARSE if op == "parse" else NO_TABLE


DOMAINS = {"mcp-normalization": mcp_normalization}


def answer(request: dict[str, Any]) -> dict[str, Any]:
    if request.get("cmd") == "start":
        return {
            "ok": True,
            "implementation": {
                "name": "hanzoai",
                "version": metadata.version("hanzoai"),
                "language": f"python {sys.version.split()[0]}",
                "domains": sorted(DOMAINS),
            },
        }
    run = DOMAINS.get(request.get("domain", ""))
    if run is None:
        return {"id": request.get("id", ""), "crash": {"message": "unknown domain", "detail": ""}}
    try:
        result = run(request["input"])
    except Exception as e:  # a crash answers this case; the worker goes on
        crash = {"message": repr(e), "detail": traceback.format_exc()}
        return {"id": request["id"], "crash": crash}
    if isinstance(result, str):
        return {"id": request["id"], "skip": {"reason": result}}
    return {"id": request["id"], "output": result}


def main() -> None:
    for line in sys.stdin:
        request = json.loads(line)
        if request.get("cmd") == "stop":
            break
        sys.stdout.write(json.dumps(answer(request)) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
