"""A conformance worker for ``mcp`` 2.3.0, the official MCP Python SDK, on mcp-stdio.

    python -m venv examples/mcp-python-stdio/.venv
    examples/mcp-python-stdio/.venv/bin/pip install -r examples/mcp-python-stdio/requirements.txt
    hanzo-conformance run --worker mcp-python='examples/mcp-python-stdio/.venv/bin/python \
        examples/mcp-python-stdio/worker.py' --platform mcp-python --domain mcp-stdio \
        --expectations examples/mcp-python-stdio/expectations.json

It drives the SDK's own ``mcp.client.stdio.stdio_client``: its stdout reader
(anyio's ``TextReceiveStream``, the ``split("\\n")`` loop, ``_parse_line``), its stdin
writer (``model_dump_json`` plus LF) and its environment (``get_default_environment()``
merged with ``env``). Only the process is replaced: ``_create_platform_compatible_process``
returns a replay process whose stdout yields exactly the case's chunks (a pipe would
merge or split them) and whose stdin records what the SDK writes; for spawn-env it
records the command, arguments and environment the SDK would start. Nothing the SDK
returns is corrected: the ledger next to this file records the differences.

- ``decode``: every item the read stream yields, a ``SessionMessage`` or an
  ``Exception`` (the SDK's one form for every bad line, reported as
  ``parse_error``); ``writes`` are the lines the transport wrote to the replay's stdin.
  The replay ends its stdout after the last chunk when ``eof`` is true, else it stays
  open until the worker has received every message.
- ``encode``: the request validated by ``mcp_types.jsonrpc_message_adapter`` and sent
  through the write stream: the line is the bytes the replay's stdin received.
- ``spawn-env``: ``stdio_client(StdioServerParameters(command, args, env))`` with the
  case's parent environment as ``os.environ``; the recorder raises ``ValueError`` for a
  NUL, as CPython's ``subprocess`` does when anyio would really spawn.
- ``session``: answered ``skip``; lifecycle and id matching are ``ClientSession``'s,
  which this worker does not drive.
"""

from __future__ import annotations

import json
import os
import sys
import traceback
from importlib import metadata
from typing import Any

import anyio
import anyio.abc
import mcp.client.stdio as sdk_stdio
import mcp_types
from mcp.shared.message import SessionMessage


class _ReplayStdout(anyio.abc.ByteReceiveStream):
    def __init__(self, chunks: list[bytes], eof: bool) -> None:
        self._chunks = [c for c in chunks if c]  # a pipe never reads zero bytes
        self._eof = eof
        self.drained = anyio.Event()
        self._closed = anyio.Event()

    async def receive(self, max_bytes: int = 65536) -> bytes:
        if self._chunks:
            return self._chunks.pop(0)
        self.drained.set()
        if self._eof:
            raise anyio.EndOfStream
        await self._closed.wait()
        raise anyio.ClosedResourceError

    async def aclose(self) -> None:
        self._closed.set()


class _ReplayStdin(anyio.abc.ByteSendStream):
    def __init__(self, process: _ReplayProcess) -> None:
        self.received = bytearray()
        self._process = process

    async def send(self, item: bytes) -> None:
        self.received += item

    async def aclose(self) -> None:
        self._process.returncode = 0  # the replay exits when its stdin closes


class _ReplayProcess:
    def __init__(self, chunks: list[bytes], eof: bool) -> None:
        self.returncode: int | None = None
        self.pid = 0
        self.stdout = _ReplayStdout(chunks, eof)
        self.stdin = _ReplayStdin(self)
        self.stderr = None


def _chunk_bytes(case_input: dict[str, Any]) -> list[bytes]:
    codec = "latin-1" if case_input.get("encoding") == "bytes" else "utf-8"
    return [chunk.encode(codec) for chunk in case_input["chunks"]]


def _message(item: Any) -> dict[str, Any]:
    """A SessionMessage (or the Exception the SDK yields instead) as the contract's object."""
    if isinstance(item, Exception):
        return {"type": "invalid", "reason": "parse_error"}
    raw = item.message.model_dump(by_alias=True, exclude_unset=True, mode="json")
    if "method" in raw:
        out: dict[str, Any] = {"type": "notification", "method": raw["method"]}
        if "id" in raw:
            out = {"type": "request", "id": raw["id"], "method": raw["method"]}
        if "params" in raw:
            out["params"] = raw["params"]
        return out
    if "error" in raw:
        error = raw["error"]
        reported = {"code": error["code"], "message": error["message"]}
        if "data" in error:
            reported["data"] = error["data"]
        return {"type": "error", "id": raw.get("id"), "error": reported}
    return {"type": "response", "id": raw["id"], "result": raw.get("result")}


def _lines(data: bytes) -> list[Any]:
    return [json.loads(line) for line in data.decode("utf-8").splitlines() if line]


def _params(command: str = "replay") -> sdk_stdio.StdioServerParameters:
    return sdk_stdio.StdioServerParameters(command=command)


async def _decode(case_input: dict[str, Any]) -> dict[str, Any]:
    process = _ReplayProcess(_chunk_bytes(case_input), bool(case_input.get("eof")))

    async def spawn(*args: Any, **kwargs: Any) -> _ReplayProcess:
        return process

    sdk_stdio._create_platform_compatible_process = spawn  # type: ignore[assignment]
    messages: list[dict[str, Any]] = []
    async with sdk_stdio.stdio_client(_params()) as (read, _write), anyio.create_task_group() as tg:

        async def collect() -> None:
            async for item in read:
                messages.append(_message(item))

        tg.start_soon(collect)
        await process.stdout.drained.wait()
        for _ in range(10):  # let the reader hand over the lines of the last chunk
            await anyio.lowlevel.checkpoint()
        tg.cancel_scope.cancel()
    return {"messages": messages, "writes": _lines(bytes(process.stdin.received))}


async def _encode(case_input: dict[str, Any]) -> dict[str, Any]:
    process = _ReplayProcess([], False)

    async def spawn(*args: Any, **kwargs: Any) -> _ReplayProcess:
        return process

    sdk_stdio._create_platform_compatible_process = spawn  # type: ignore[assignment]
    message: dict[str, Any] = {"jsonrpc": "2.0", **case_input["message"]}
    if "params_json" in case_input:
        message["params"] = json.loads(case_input["params_json"])
    validated = mcp_types.jsonrpc_message_adapter.validate_python(message)
    async with sdk_stdio.stdio_client(_params()) as (_read, write):
        await write.send(SessionMessage(validated))
        for _ in range(10):
            await anyio.lowlevel.checkpoint()
    return {"line": bytes(process.stdin.received).decode("utf-8")}


async def _spawn_env(case_input: dict[str, Any]) -> dict[str, Any]:
    config = case_input["config"]
    seen: dict[str, Any] = {}

    async def spawn(
        command: str, args: list[str], env: dict[str, str] | None = None, **kw: Any
    ) -> Any:
        argv = [command, *args]
        # What CPython's subprocess checks before execve, when anyio really spawns.
        if any("\0" in a for a in argv) or any("\0" in k + v for k, v in (env or {}).items()):
            raise ValueError("embedded null byte")
        if any("=" in k for k in env or {}):
            raise ValueError("illegal environment variable name")
        seen.update(argv=argv, env=env)
        return _ReplayProcess([], True)

    sdk_stdio._create_platform_compatible_process = spawn  # type: ignore[assignment]
    command = config["command"]
    params = sdk_stdio.StdioServerParameters(
        command=command[0] if command else "",
        args=[*command[1:], *config.get("args", [])],
        env=config.get("env"),
    )
    # get_default_environment() reads os.environ when called: a plain dict stands in
    # for it (os.environ itself refuses names such as "A=B" that a parent may hold).
    saved = os.environ
    os.environ = dict(case_input["parent_env"])  # type: ignore[assignment]  # noqa: B003
    try:
        async with sdk_stdio.stdio_client(params):
            pass
    finally:
        os.environ = saved  # noqa: B003
    return {"argv": seen["argv"], "env": seen["env"]}


OPS = {"decode": _decode, "encode": _encode, "spawn-env": _spawn_env}


def mcp_stdio(case_input: dict[str, Any]) -> dict[str, Any] | None:
    run = OPS.get(case_input["op"])
    return None if run is None else anyio.run(run, case_input)


def _crash(request: dict[str, Any], e: BaseException) -> dict[str, Any]:
    return {"id": request["id"], "crash": {"message": repr(e), "detail": traceback.format_exc()}}


def answer(request: dict[str, Any]) -> dict[str, Any]:
    if request.get("cmd") == "start":
        return {
            "ok": True,
            "implementation": {
                "name": "mcp",
                "version": metadata.version("mcp"),
                "language": f"python {sys.version.split()[0]}",
                "domains": ["mcp-stdio"],
            },
        }
    if request.get("domain") != "mcp-stdio":
        return {"id": request.get("id", ""), "crash": {"message": "unknown domain", "detail": ""}}
    try:
        output = mcp_stdio(request["input"])
    except ValueError as e:
        codes = {"embedded null byte": "nul_byte", "illegal environment": "invalid_env_name"}
        for text, code in codes.items():
            if text in str(e):
                return {"id": request["id"], "error": {"code": code, "message": str(e)}}
        return {
            "id": request["id"],
            "crash": {"message": repr(e), "detail": traceback.format_exc()},
        }
    except BaseException as e:  # a crash answers this case; the worker goes on
        if isinstance(e, KeyboardInterrupt | SystemExit):
            raise
        return {
            "id": request["id"],
            "crash": {"message": repr(e), "detail": traceback.format_exc()},
        }
    if output is None:
        reason = "lifecycle and id matching are ClientSession's; this worker drives stdio_client"
        return {"id": request["id"], "skip": {"reason": reason}}
    return {"id": request["id"], "output": output}


def main() -> None:
    for line in sys.stdin:
        request = json.loads(line)
        if request.get("cmd") == "stop":
            break
        sys.stdout.write(json.dumps(answer(request)) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
