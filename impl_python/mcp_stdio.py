"""The MCP client's stdio transport (HIP-301 §1, docs/domains/mcp-stdio.md).

:class:`StdioMessageDecoder` turns a server's stdout bytes, in chunks of any size, into
JSON-RPC messages (STDIO-1..9); :func:`reply_for` is what the client writes back
(STDIO-10); :func:`encode_message` writes one message as one line (STDIO-11);
:class:`McpClientSession` is the sans-I/O lifecycle, id matching and tool table
(STDIO-12..15); :func:`server_process` the server's argv and environment
(STDIO-16, 17). :class:`StdioMcpTransport` runs them over a real subprocess.
"""

from __future__ import annotations

import asyncio
import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from impl_python.config import McpServerConfig
from impl_python.errors import HanzoError
from impl_python.hooks import ecmascript_number
from impl_python.mcp_names import McpNameError, build_tool_table

__all__ = [
    "CLIENT_INFO",
    "DEFAULT_MAX_LINE_BYTES",
    "INHERITED_ENV_VARS",
    "PROTOCOL_VERSION",
    "SUPPORTED_PROTOCOL_VERSIONS",
    "EncodeError",
    "McpClientSession",
    "McpConnection",
    "ServerProcess",
    "SpawnError",
    "StdioMcpTransport",
    "StdioMessageDecoder",
    "encode_message",
    "reply_for",
    "server_process",
]

DEFAULT_MAX_LINE_BYTES = 16 * 1024 * 1024
PROTOCOL_VERSION = "2025-06-18"
SUPPORTED_PROTOCOL_VERSIONS = ("2025-06-18", "2025-03-26", "2024-11-05")
CLIENT_INFO = {"name": "hanzo-mcp-stdio", "version": "1.0.0"}
INHERITED_ENV_VARS = ("HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER")
MAX_SAFE = 2**53 - 1
MAX_DEPTH = 100
_BOM = b"\xef\xbb\xbf"
_WHITESPACE = b" \t\r\n"

Message = dict[str, Any]


class EncodeError(HanzoError):
    """A message that cannot be one line of UTF-8 JSON (STDIO-11d, 11e)."""


class SpawnError(HanzoError):
    """A server configuration that cannot start a process (STDIO-16, 17c)."""


# --- decoding ---------------------------------------------------------------------


class _NotIJson(ValueError):
    pass


def _parse_constant(name: str) -> Any:
    raise _NotIJson(name)  # NaN, Infinity: not JSON


def _parse_float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise _NotIJson(text)
    return value


def _parse_int(text: str) -> int:
    value = int(text)
    if abs(value) >= 2**1024 - 2**970:  # past the largest binary64 once rounded
        raise _NotIJson(text)
    return value


_decoder = json.JSONDecoder(
    parse_float=_parse_float, parse_int=_parse_int, parse_constant=_parse_constant
)
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def _well_formed(value: Any, depth: int, check_strings: bool) -> bool:
    """No lone surrogate in any string or key; nesting at most MAX_DEPTH."""
    if isinstance(value, str):
        return not (check_strings and _SURROGATE.search(value))
    if isinstance(value, dict):
        if depth >= MAX_DEPTH:
            return False
        return all(
            _well_formed(k, depth, check_strings) and _well_formed(v, depth + 1, check_strings)
            for k, v in value.items()
        )
    if isinstance(value, list):
        if depth >= MAX_DEPTH:
            return False
        return all(_well_formed(v, depth + 1, check_strings) for v in value)
    return True


def _parse(text: str) -> Any:
    value = _decoder.decode(text)
    check_strings = _SURROGATE_ESCAPE.search(text) is not None
    deep = text.count("[") + text.count("{") > MAX_DEPTH
    if (check_strings or deep) and not _well_formed(value, 0, check_strings):
        raise _NotIJson("lone surrogate or too deep")
    return value


def as_id(value: Any) -> str | int | None:
    """The id ``value`` is (Terms: a string, or an integer-valued number within
    ±(2^53-1)), or None when it is none."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if -MAX_SAFE <= value <= MAX_SAFE else None
    if isinstance(value, float) and value.is_integer() and -MAX_SAFE <= value <= MAX_SAFE:
        return int(value)
    return None


def _invalid(reason: str) -> Message:
    return {"type": "invalid", "reason": reason}


def _classify(value: Any) -> Message:
    """STDIO-7c..8: one parsed JSON text to a message."""
    if isinstance(value, list):
        return _invalid("batch")
    if not isinstance(value, dict):
        return _invalid("not_an_object")
    if "method" in value:
        method = value["method"]
        request_id = as_id(value["id"]) if "id" in value else None
        if value.get("jsonrpc") != "2.0":
            return _with_id(_invalid("bad_jsonrpc"), method, request_id)
        if not isinstance(method, str):
            return _invalid("bad_method")
        if "params" in value and not isinstance(value["params"], dict):
            return _with_id(_invalid("bad_params"), method, request_id)
        if "id" not in value:
            message: Message = {"type": "notification", "method": method}
        elif request_id is None:
            return _invalid("bad_id")
        else:
            message = {"type": "request", "id": request_id, "method": method}
        if "params" in value:
            message["params"] = value["params"]
        return message
    if value.get("jsonrpc") != "2.0":
        return _invalid("bad_jsonrpc")
    if "id" not in value:
        return _invalid("bad_id")
    if "result" in value and "error" in value:
        return _invalid("result_and_error")
    if "result" not in value and "error" not in value:
        return _invalid("no_result_or_error")
    response_id = as_id(value["id"])
    if "error" in value:
        error = value["error"]
        if not isinstance(error, dict):
            return _invalid("bad_error")
        code = error.get("code")
        if isinstance(code, float):
            code = as_id(code)
        if (
            not isinstance(code, int)
            or isinstance(code, bool)
            or not -MAX_SAFE <= code <= MAX_SAFE
            or not isinstance(error.get("message"), str)
        ):
            return _invalid("bad_error")
        if response_id is None and value["id"] is not None:
            return _invalid("bad_id")
        reported: dict[str, Any] = {"code": code, "message": error["message"]}
        if "data" in error:
            reported["data"] = error["data"]
        return {"type": "error", "id": response_id, "error": reported}
    if response_id is None:
        return _invalid("bad_id")
    return {"type": "response", "id": response_id, "result": value["result"]}


def _with_id(message: Message, method: Any, request_id: str | int | None) -> Message:
    # STDIO-8c: a would-be request whose id can be read carries it (STDIO-10c answers).
    if isinstance(method, str) and request_id is not None:
        message["id"] = request_id
    return message


def decode_line(line: bytes) -> Message | None:
    """One line's bytes (no LF; BOM already dropped) to its message; None when blank."""
    if not line.strip(_WHITESPACE):
        return None
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        return _invalid("invalid_utf8")
    try:
        value = _parse(text)
    except (ValueError, RecursionError):
        return _invalid("parse_error")
    return _classify(value)


class StdioMessageDecoder:
    """Stdout bytes in, messages out; lines end at LF only (STDIO-2)."""

    def __init__(self, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES) -> None:
        self.max_line_bytes = max_line_bytes
        self._parts: list[bytes] = []
        self._held = 0
        self._overlong = False
        self._first_line = True

    def _hold(self, piece: bytes) -> None:
        if self._overlong or not piece:
            return
        if self._held + len(piece) > self.max_line_bytes:
            self._overlong = True  # STDIO-6: stop keeping this line's bytes
            self._parts.clear()
            self._held = 0
            return
        self._parts.append(piece)
        self._held += len(piece)

    def _end_line(self) -> Message | None:
        overlong, parts = self._overlong, self._parts
        self._overlong, self._parts, self._held = False, [], 0
        first, self._first_line = self._first_line, False
        if overlong:
            return _invalid("line_too_long")
        line = b"".join(parts)
        if first and line.startswith(_BOM):
            line = line[3:]  # STDIO-3
        return decode_line(line)

    def feed(self, chunk: bytes) -> list[Message]:
        out: list[Message] = []
        start = 0
        find = chunk.find
        while True:
            end = find(b"\n", start)
            if end < 0:
                self._hold(chunk[start:])
                return out
            self._hold(chunk[start:end])
            message = self._end_line()
            if message is not None:
                out.append(message)
            start = end + 1

    def close(self) -> list[Message]:
        """The end of the stream: held bytes are a final line (STDIO-5b)."""
        if not self._overlong and not self._parts:
            return []
        message = self._end_line()
        return [] if message is None else [message]


def reply_for(message: Message) -> Message | None:
    """What the client writes back for one decoded message (STDIO-10), or None."""
    kind = message["type"]
    if kind == "request":
        if message["method"] == "ping":
            return {"jsonrpc": "2.0", "id": message["id"], "result": {}}
        return {
            "jsonrpc": "2.0",
            "id": message["id"],
            "error": {"code": -32601, "message": "Method not found"},
        }
    if kind == "invalid" and "id" in message:
        return {
            "jsonrpc": "2.0",
            "id": message["id"],
            "error": {"code": -32600, "message": "Invalid Request"},
        }
    return None


# --- encoding ---------------------------------------------------------------------

_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f"}
_ESCAPES["\r"] = "\\r"
for _c in range(0x20):
    _ESCAPES.setdefault(chr(_c), f"\\u{_c:04x}")
_ESCAPES["\u2028"] = "\\u2028"
_ESCAPES["\u2029"] = "\\u2029"
_NEEDS_ESCAPE = re.compile('["\\\\\x00-\x1f\u2028\u2029]')


def _string(text: str) -> str:
    if _SURROGATE.search(text):
        raise EncodeError("a lone surrogate cannot be UTF-8", code="invalid_string")
    return '"' + _NEEDS_ESCAPE.sub(lambda m: _ESCAPES[m.group()], text) + '"'


def _number(value: int | float) -> str:
    if isinstance(value, int) and -MAX_SAFE <= value <= MAX_SAFE:
        return str(value)
    try:
        as_float = float(value)
    except OverflowError:
        as_float = math.inf
    if not math.isfinite(as_float):
        raise EncodeError("a number past binary64", code="invalid_number")
    if as_float.is_integer() and -MAX_SAFE <= as_float <= MAX_SAFE:
        return str(int(as_float))
    return ecmascript_number(as_float)


def _value(value: Any) -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, int | float):
        return _number(value)
    if isinstance(value, list):
        return "[" + ",".join(_value(v) for v in value) + "]"
    if isinstance(value, dict):
        members = sorted(value.items(), key=lambda kv: kv[0])
        return "{" + ",".join(_string(k) + ":" + _value(v) for k, v in members) + "}"
    raise TypeError(f"not a JSON value: {type(value).__name__}")


def _refuse_lone_surrogates(value: Any) -> None:
    """STDIO-11d before 11e: a lone surrogate anywhere in ``value``, key or string, fails
    the encode with invalid_string before any number is written."""
    if isinstance(value, str):
        _string(value)
    elif isinstance(value, list):
        for item in value:
            _refuse_lone_surrogates(item)
    elif isinstance(value, dict):
        for key, item in value.items():
            _string(key)
            _refuse_lone_surrogates(item)


def encode_message(message: Mapping[str, Any]) -> bytes:
    """One request (``id`` given) or notification as one line, LF included (STDIO-11)."""
    _refuse_lone_surrogates(message.get("params"))
    parts = ['{"jsonrpc":"2.0"']
    if "id" in message:
        request_id = message["id"]
        parts.append(
            ',"id":' + (_string(request_id) if isinstance(request_id, str) else _number(request_id))
        )
    parts.append(',"method":' + _string(message["method"]))
    if "params" in message:
        parts.append(',"params":' + _value(message["params"]))
    return ("".join(parts) + "}\n").encode("utf-8")


# --- the session ------------------------------------------------------------------


def _key(request_id: str | int) -> tuple[str, str | int]:
    return ("s", request_id) if isinstance(request_id, str) else ("n", request_id)


@dataclass
class _Listing:
    pending: int
    seen: set[str]
    names: list[str]
    stale: bool = False


class McpClientSession:
    """Lifecycle, id matching and the tool table, without I/O (STDIO-12..15).

    Writes are JSON objects; :func:`encode_message` (or the caller) makes them lines.
    """

    def __init__(
        self,
        *,
        max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
        list_tools_server: str | None = None,
    ) -> None:
        self._decoder = StdioMessageDecoder(max_line_bytes)
        self._server = list_tools_server
        self.writes: list[Message] = []
        self._taken = 0
        self.events: list[Message] = []
        self.tables: list[list[dict[str, str]]] = []
        self.state = "initializing"
        self._next_id = 1
        self._pending: dict[tuple[str, str | int], int] = {}  # written id -> handle
        self._answered: set[tuple[str, str | int]] = set()
        self._outcomes: list[Message | None] = []
        self._calls: list[tuple[str, Any]] = []
        self._queued: list[int] = []
        self._listing: _Listing | None = None
        init = self._new_handle("initialize", None)
        self._send(
            init,
            "initialize",
            {
                "capabilities": {},
                "clientInfo": dict(CLIENT_INFO),
                "protocolVersion": PROTOCOL_VERSION,
            },
        )
        self._init_handle = init

    def _new_handle(self, method: str, params: Any) -> int:
        self._outcomes.append(None)
        self._calls.append((method, params))
        return len(self._outcomes) - 1

    def _send(self, handle: int, method: str, params: Any) -> int:
        request_id = self._next_id
        self._next_id += 1
        write: Message = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            write["params"] = params
        self.writes.append(write)
        self._pending[_key(request_id)] = handle
        return request_id

    def request(self, method: str, params: Mapping[str, Any] | None = None) -> int:
        """Make a request; returns its handle for :meth:`outcome`. Queued until ready."""
        handle = self._new_handle(method, dict(params) if params is not None else None)
        if self.state == "ready":
            self._send(handle, method, self._calls[handle][1])
        elif self.state == "initializing":
            self._queued.append(handle)
        return handle

    def outcome(self, handle: int) -> Message:
        """``{"result"}``, ``{"error"}``, ``{"failed"}``, ``{"unanswered": true}`` or
        ``{"not_sent": true}`` (STDIO-13e)."""
        done = self._outcomes[handle]
        if done is not None:
            return done
        if handle in self._pending.values():
            return {"unanswered": True}
        return {"not_sent": True}

    def take_writes(self) -> list[Message]:
        """The writes made since the last call."""
        out = self.writes[self._taken :]
        self._taken = len(self.writes)
        return out

    def feed(self, chunk: bytes) -> None:
        for message in self._decoder.feed(chunk):
            self._receive(message)

    def close(self) -> None:
        for message in self._decoder.close():
            self._receive(message)
        if self.state != "failed":
            self.state = "closed"

    # -- internals

    def _write(self, message: Message) -> None:
        if self.state != "failed":
            self.writes.append(message)

    def _receive(self, message: Message) -> None:
        kind = message["type"]
        if kind in ("response", "error") and message["id"] is not None:
            key = _key(message["id"])
            handle = self._pending.pop(key, None)
            if handle is None:
                reason = "already_answered" if key in self._answered else "unknown_id"
                self.events.append({"type": "unmatched", "id": message["id"], "reason": reason})
                return
            self._answered.add(key)
            self._answer(handle, message)
            return
        self.events.append(message)
        reply = reply_for(message)
        if reply is not None:
            self._write(reply)
        if (
            kind == "notification"
            and message["method"] == "notifications/tools/list_changed"
            and self._server is not None
            and self.state == "ready"
        ):
            if self._listing is not None:
                self._listing.stale = True
            else:
                self._start_listing()

    def _answer(self, handle: int, message: Message) -> None:
        if self._listing is not None and handle == self._listing.pending:
            self._page(message)
            return
        outcome: Message = (
            {"result": message["result"]}
            if message["type"] == "response"
            else {"error": message["error"]}
        )
        if handle == self._init_handle:
            self._initialized(outcome)
        self._outcomes[handle] = outcome

    def _initialized(self, outcome: Message) -> None:
        result = outcome.get("result")
        if "error" in outcome:
            self.state = "failed"
            return
        if not isinstance(result, dict) or result.get("protocolVersion") not in (
            SUPPORTED_PROTOCOL_VERSIONS
        ):
            outcome.clear()
            outcome["failed"] = "unsupported_protocol_version"
            self.state = "failed"
            return
        self.state = "ready"
        self.writes.append({"jsonrpc": "2.0", "method": "notifications/initialized"})
        if self._server is not None:
            self._start_listing()
        queued, self._queued = self._queued, []
        for handle in queued:
            method, params = self._calls[handle]
            self._send(handle, method, params)

    def _start_listing(self) -> None:
        handle = self._new_handle("tools/list", None)
        self._send(handle, "tools/list", None)
        self._listing = _Listing(handle, set(), [])

    def _list_page(self, listing: _Listing, cursor: str) -> None:
        handle = self._new_handle("tools/list", {"cursor": cursor})
        self._send(handle, "tools/list", {"cursor": cursor})
        listing.pending = handle

    def _fail_listing(self, reason: str) -> None:
        self._listing = None
        self.events.append({"type": "listing_failed", "reason": reason})

    def _page(self, message: Message) -> None:
        listing = self._listing
        assert listing is not None
        if listing.stale:
            self._start_listing()  # STDIO-15e: stale pages are discarded
            return
        if message["type"] == "error":
            self._fail_listing("tools_list_error")
            return
        result = message["result"]
        tools = result.get("tools") if isinstance(result, dict) else None
        if not isinstance(tools, list) or not all(
            isinstance(t, dict) and isinstance(t.get("name"), str) for t in tools
        ):
            self._fail_listing("bad_tools_page")
            return
        cursor = result.get("nextCursor")
        if cursor is not None and not isinstance(cursor, str):
            self._fail_listing("bad_tools_page")
            return
        listing.names.extend(t["name"] for t in tools)
        if cursor is None:
            self._listing = None
            self._publish(listing.names)
        elif cursor in listing.seen:
            self._fail_listing("cursor_loop")
        else:
            listing.seen.add(cursor)
            self._list_page(listing, cursor)

    def _publish(self, names: list[str]) -> None:
        assert self._server is not None
        try:
            table = build_tool_table([(self._server, names)])
        except McpNameError as e:
            self.events.append({"type": "listing_failed", "reason": e.code})
            return
        entries = sorted(table.entries, key=lambda e: e.tool)
        self.tables.append([{"name": e.name, "tool": e.tool} for e in entries])


# --- the server's process ---------------------------------------------------------

_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class ServerProcess:
    """What to ``execve``: the argv and the exact environment (STDIO-16, 17)."""

    argv: list[str]
    env: dict[str, str]


def server_process(config: McpServerConfig, parent_env: Mapping[str, str]) -> ServerProcess:
    """The server's argv and environment; raises :class:`SpawnError`."""
    argv = [*config.command, *config.args]
    if not config.command or not config.command[0]:
        raise SpawnError("no program to start", code="empty_command")
    if any("\0" in a for a in argv):
        raise SpawnError("a NUL in an argument", code="nul_byte")
    env = {
        name: parent_env[name]
        for name in INHERITED_ENV_VARS
        if name in parent_env and not parent_env[name].startswith("()")
    }
    for name, value in config.env.items():
        if not _ENV_NAME.fullmatch(name):
            raise SpawnError(f"not an environment name: {name!r}", code="invalid_env_name")
        if "\0" in value:
            raise SpawnError(f"a NUL in the value of {name}", code="nul_byte")
        env[name] = value
    return ServerProcess(argv, env)


# --- the transport (HIP-301's shapes) ---------------------------------------------


class McpConnection(Protocol):
    """Transport-agnostic MCP connection."""

    async def send(self, request: Mapping[str, Any]) -> Message: ...

    async def close(self) -> None: ...


class _StdioConnection:
    def __init__(self, process: asyncio.subprocess.Process, session: McpClientSession) -> None:
        self._process = process
        self._session = session
        self._changed = asyncio.Event()
        self._reader = asyncio.create_task(self._read())

    async def _flush(self) -> None:
        stdin = self._process.stdin
        assert stdin is not None
        for write in self._session.take_writes():
            stdin.write(encode_message(write))
        await stdin.drain()

    async def _read(self) -> None:
        stdout = self._process.stdout
        assert stdout is not None
        while chunk := await stdout.read(65536):  # no line limit here (STDIO-6)
            self._session.feed(chunk)
            await self._flush()
            self._changed.set()
        self._session.close()
        self._changed.set()

    async def send(self, request: Mapping[str, Any]) -> Message:
        """``{"method", "params"?}`` to its outcome (STDIO-13e)."""
        handle = self._session.request(request["method"], request.get("params"))
        await self._flush()
        while True:
            outcome = self._session.outcome(handle)
            waiting = "unanswered" in outcome or "not_sent" in outcome
            if not waiting or self._session.state in ("failed", "closed"):
                return outcome
            self._changed.clear()
            await self._changed.wait()

    async def close(self) -> None:
        if self._process.stdin is not None:
            self._process.stdin.close()
        await self._reader
        await self._process.wait()


class StdioMcpTransport:
    """Spawns an MCP server as a subprocess, communicates over stdin/stdout."""

    def __init__(
        self,
        command: Sequence[str],
        env: Mapping[str, str] | None = None,
        *,
        parent_env: Mapping[str, str] | None = None,
    ) -> None:
        import os

        self._process = server_process(
            McpServerConfig(command=list(command), env=dict(env or {})),
            os.environ if parent_env is None else parent_env,
        )

    async def connect(self) -> McpConnection:
        process = await asyncio.create_subprocess_exec(
            *self._process.argv,
            env=self._process.env,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
        )
        connection = _StdioConnection(process, McpClientSession())
        await connection._flush()
        return connection
