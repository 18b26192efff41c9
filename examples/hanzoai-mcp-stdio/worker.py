"""A conformance worker for hanzoai 8.5.914's ``MCPClient`` (Hanzo's published Python SDK,
``hanzoai.mcp``) on mcp-stdio. hanzoai 8.5.914 needs Python >= 3.12:

    python3.12 -m venv examples/hanzoai-mcp-stdio/.venv
    examples/hanzoai-mcp-stdio/.venv/bin/pip install -r examples/hanzoai-mcp-stdio/requirements.txt
    hanzo-conformance run --worker hanzoai-mcp='examples/hanzoai-mcp-stdio/.venv/bin/python \
        examples/hanzoai-mcp-stdio/worker.py' --platform hanzoai-mcp --domain mcp-stdio \
        --expectations examples/hanzoai-mcp-stdio/expectations.json

- ``session``: a real ``MCPClient([python, replay_server.py, ...])``: ``connect()``, then
  ``list_tools()`` when the case lists tools, then each call (``call_tool`` for
  ``tools/call``, else ``_send``, the one request path every public method uses). The
  replay server writes the case's chunks to its stdout, then closes it (so a case with
  ``eof`` false ends too: unanswered requests are then "server closed stdout
  unexpectedly", the contract's ``unanswered``), and records what the client writes.
  ``writes`` are those lines; ``initialize`` and ``calls`` map results to ``{"result"}``,
  ``MCPClientError("JSON-RPC error C: M")`` to ``{"error": {C, M}}``, a closed stdout to
  ``{"unanswered": true}``, calls never made after a failure to ``{"not_sent": true}``;
  ``events`` are always empty (MCPClient surfaces none); a table is
  ``hanzoai.mcp.mcp_tool_name(server, name)`` for each listed tool, in listed order.
- ``spawn-env``: ``MCPClient(command + args, env).connect()`` with
  ``asyncio.create_subprocess_exec`` recording its argv and ``env`` (``None`` means the
  child inherits the parent's whole environment, which here is the case's
  ``parent_env``), with CPython subprocess's checks (NUL, ``=`` in a name).
- ``encode``: ``JsonRpcRequest(method, params, id).to_line()`` for requests (it has no
  notification form; notifications are answered ``skip``).
- ``decode``: skip (MCPClient has no decoder apart from its request loop).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import sys
import tempfile
import traceback
from importlib import metadata
from pathlib import Path
from typing import Any

import hanzoai.mcp as hz

REPLAY = Path(__file__).resolve().parent / "replay_server.py"
_ERROR = re.compile(r"JSON-RPC error (-?\d+): (.*)", re.S)


def _chunks(case_input: dict[str, Any]) -> list[str]:
    if case_input.get("encoding") == "bytes":
        return list(case_input["chunks"])
    return [c.encode("utf-8").decode("latin-1") for c in case_input["chunks"]]


def _outcome(e: BaseException) -> dict[str, Any]:
    if isinstance(e, hz.MCPClientError):
        m = _ERROR.fullmatch(str(e))
        if m:
            return {"error": {"code": int(m.group(1)), "message": m.group(2)}}
        if "closed stdout" in str(e):
            return {"unanswered": True}
    raise e


async def _session(case_input: dict[str, Any], folder: Path) -> dict[str, Any]:
    (folder / "chunks.json").write_text(json.dumps(_chunks(case_input)), encoding="utf-8")
    record = folder / "stdin.jsonl"
    record.write_bytes(b"")
    command = [sys.executable, "-S", str(REPLAY), str(folder / "chunks.json"), str(record)]
    written = bytearray()
    real = hz.asyncio.create_subprocess_exec

    async def spawn(*argv: str, **kw: Any) -> Any:
        # The real process; its stdin also records what MCPClient writes (the replay's
        # own record can lose the last lines when disconnect() terminates it).
        process = await real(*argv, **kw)
        write = process.stdin.write

        def recorded(data: bytes) -> None:
            written.extend(data)
            write(data)

        process.stdin.write = recorded
        return process

    hz.asyncio.create_subprocess_exec = spawn  # type: ignore[assignment]
    client = hz.MCPClient(command)
    calls = case_input.get("calls", [])
    out: dict[str, Any] = {"initialize": {}, "calls": [], "events": []}
    listing = case_input.get("list_tools")
    tables: list[list[dict[str, str]]] = []
    try:
        try:
            await client.connect()
            out["initialize"] = {"result": _initialize_result(client)}
            failed = False
        except hz.MCPClientError as e:
            out["initialize"] = _outcome(e)
            failed = True
        if listing and not failed:
            try:
                tools = await client.list_tools()
                # hanzoai's own naming, on each listed tool as list_tools returned it.
                names = [t.get("name") if isinstance(t, dict) else t for t in tools]
                server = listing["server"]
                tables.append([{"name": hz.mcp_tool_name(server, n), "tool": n} for n in names])
            except hz.MCPClientError:
                pass
        for call in calls:
            if failed:
                out["calls"].append({"not_sent": True})
                continue
            try:
                if call["method"] == "tools/call":
                    params = call.get("params", {})
                    result = await client.call_tool(params.get("name", ""), params.get("arguments"))
                else:
                    result = await client._send(call["method"], call.get("params"))
                out["calls"].append({"result": result})
            except hz.MCPClientError as e:
                out["calls"].append(_outcome(e))
                failed = "closed stdout" in str(e)
    finally:
        await client.disconnect()
        hz.asyncio.create_subprocess_exec = real  # type: ignore[assignment]
    out["writes"] = [json.loads(line) for line in bytes(written).splitlines() if line.strip()]
    if listing:
        out["tables"] = tables
    return out


def _initialize_result(client: hz.MCPClient) -> Any:
    # connect() keeps only serverInfo and capabilities of the result it read.
    result: dict[str, Any] = {}
    if client.server_info is not None:
        result["serverInfo"] = client.server_info
    if client.capabilities is not None:
        result["capabilities"] = client.capabilities
    return result


class _Recorded(Exception):
    pass


async def _spawn_env(case_input: dict[str, Any]) -> dict[str, Any]:
    config = case_input["config"]
    seen: dict[str, Any] = {}

    async def record(*argv: str, env: dict[str, str] | None = None, **kw: Any) -> Any:
        if any("\0" in a for a in argv) or any("\0" in k + v for k, v in (env or {}).items()):
            raise ValueError("embedded null byte")  # CPython's subprocess checks
        if any("=" in k for k in env or {}):
            raise ValueError("illegal environment variable name")
        seen["argv"] = list(argv)
        seen["env"] = dict(case_input["parent_env"]) if env is None else dict(env)
        raise _Recorded

    real = hz.asyncio.create_subprocess_exec
    hz.asyncio.create_subprocess_exec = record  # type: ignore[assignment]
    try:
        client = hz.MCPClient([*config["command"], *config.get("args", [])], env=config.get("env"))
        with contextlib.suppress(_Recorded):
            await client.connect()
    finally:
        hz.asyncio.create_subprocess_exec = real  # type: ignore[assignment]
    return {"argv": seen["argv"], "env": seen["env"]}


def _encode(case_input: dict[str, Any]) -> dict[str, Any] | None:
    message = case_input["message"]
    if "id" not in message:
        return None
    params = message.get("params")
    if "params_json" in case_input:
        params = json.loads(case_input["params_json"])
    request = hz.JsonRpcRequest(method=message["method"], params=params or {}, id=message["id"])
    return {"line": request.to_line().decode("utf-8")}


def run(case_input: dict[str, Any]) -> dict[str, Any] | None:
    op = case_input["op"]
    if op == "session":
        with tempfile.TemporaryDirectory() as folder:
            return asyncio.run(_session(case_input, Path(folder)))
    if op == "spawn-env":
        return asyncio.run(_spawn_env(case_input))
    if op == "encode":
        return _encode(case_input)
    return None


def answer(request: dict[str, Any]) -> dict[str, Any]:
    if request.get("cmd") == "start":
        return {
            "ok": True,
            "implementation": {
                "name": "hanzoai",
                "version": metadata.version("hanzoai"),
                "language": f"python {sys.version.split()[0]}",
                "domains": ["mcp-stdio"],
            },
        }
    rid = request.get("id", "")
    try:
        output = run(request["input"])
    except ValueError as e:
        for text, code in (("null byte", "nul_byte"), ("illegal environment", "invalid_env_name")):
            if text in str(e):
                return {"id": rid, "error": {"code": code, "message": str(e)}}
        return {"id": rid, "crash": {"message": repr(e), "detail": traceback.format_exc()}}
    except Exception as e:  # a crash answers this case; the worker goes on
        return {"id": rid, "crash": {"message": repr(e), "detail": traceback.format_exc()}}
    if output is None:
        reason = "MCPClient has no separate decoder, and JsonRpcRequest no notification form"
        return {"id": rid, "skip": {"reason": reason}}
    return {"id": rid, "output": output}


def main() -> None:
    os.environ.setdefault("PYTHONDONTWRITEBYTECODE", "1")
    for line in sys.stdin:
        request = json.loads(line)
        if request.get("cmd") == "stop":
            break
        sys.stdout.write(json.dumps(answer(request)) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
