"""A conformance worker for hanzoai 8.5.914, Hanzo's published Python runtime (Python >=
3.12), on every domain the package has a counterpart for:

    python3.12 -m venv examples/hanzoai-runtime/.venv
    examples/hanzoai-runtime/.venv/bin/pip install -r examples/hanzoai-runtime/requirements.txt
    cd examples/hanzoai-runtime && hanzo-conformance run --platform hanzoai-runtime \
        --worker hanzoai-runtime='.venv/bin/python worker.py' --expectations expectations.json

hanzoai 8.x says it ports claw-code's runtime. Each domain calls the package's own
function and reports what it returns, unchanged; what it raises is a crash. Nothing is
corrected: the ledger next to this file records the differences.

- mcp-normalization: ``hanzoai.mcp.mcp_tool_name(server, tool)`` answers ``normalize``.
  The package has no function that parses a name back into server and tool, and no tool
  table, so ``parse`` and ``table`` are ``skip``.
- config-merge (harness-laid: the harness writes the tier files and sends
  ``{env, project_root, trusted}``): ``ConfigLoader.default_for(project_root)`` with the
  case's environment as the process's (the package finds its user tier from
  ``HANZO_CONFIG_HOME`` and ``Path.home()``), then ``load(trust_project_mcp=trusted)``.
  Each config field is what ``RuntimeConfig`` answers for it (``get(name)``,
  ``mcp_servers()``), unset ones included: the package has no defaults. It builds no
  policy and reports no warnings (it logs some): both declared absent. No project root
  is ``skip`` (the package always reads a working directory's ``.hanzo/``).
- mcp-stdio: a real ``MCPClient(["/bin/sh", replay])``: ``connect()``, then
  ``list_tools()`` when the case lists tools, then each call (``call_tool`` for
  ``tools/call``, else ``_send``, the one request path every public method uses). The
  replay server (``replay_script``) writes the case's chunks to its stdout, one
  ``write`` per chunk, then closes it (so a case with
  ``eof`` false ends too: unanswered requests are then "server closed stdout
  unexpectedly", the contract's ``unanswered``), and records what the client writes.
  ``writes`` are those lines; ``initialize`` and ``calls`` map results to ``{"result"}``,
  ``MCPClientError("JSON-RPC error C: M")`` to ``{"error": {C, M}}``, a closed stdout to
  ``{"unanswered": true}``, calls never made after a failure to ``{"not_sent": true}``;
  ``events`` are always empty (MCPClient surfaces none); a table is
  ``mcp_tool_name(server, name)`` for each listed tool, in listed order. ``spawn-env``:
  ``MCPClient(command + args, env).connect()`` with ``asyncio.create_subprocess_exec``
  recording its argv and ``env`` (``None`` means the child inherits the parent's whole
  environment, which here is the case's ``parent_env``), with CPython subprocess's
  checks (NUL, ``=`` in a name). ``encode``: ``JsonRpcRequest(method, params,
  id).to_line()`` for requests (it has no notification form: skip). ``decode``: skip
  (MCPClient has no decoder apart from its request loop).
- token-estimation: ``hanzoai.session.estimate_session_tokens`` of a one-message
  ``Session`` per message (and of the whole list for the total). Each wire message is
  made into a ``ConversationMessage`` as a caller converting it would
  (``conversation_message``). A bare text (it estimates sessions only, with no byte
  count) and a given ``token_count`` (a ``ConversationMessage`` has none) are ``skip``.
- permission-policy: ``hanzoai.protocols.PermissionPolicy(PermissionMode.Prompt,
  tool_modes)``, each rule's pattern a ``tool_modes`` key set in rule order with
  ``with_tool_mode``, then ``mode_for(tool_name)``. The package matches exact names
  only and takes ``PermissionMode`` members, not strings; ``mode_for`` returns a mode
  and nothing else (no rule index, no rule reason, no audit record). See NO_GLOBS,
  NO_MODE_STRINGS, NO_DECISION.
- session-compaction: ``hanzoai.session.compact_session(session,
  CompactionConfig(preserve_recent_messages=reserve_recent,
  max_estimated_tokens=max_tokens))``. Kept messages are the caller's own objects
  (the package returns them by identity), so each is written back as the caller's wire
  message; a message the package made (its summary) is written from its blocks.
  ``compacted_count`` is ``removed_message_count``. The package counts tokens itself
  and reports no count per message, no total, no savings and no over-budget flag; see
  NO_COUNTS.

The worker never derives a field the package does not report. The fields permission-policy
and session-compaction lack are declared absent (ABSENT, the protocol's partial answers:
the rest is compared and the case reported partial, never a pass); until the harness
takes partial answers (PARTIAL_ANSWERS), those cases are answered ``skip`` naming them.

It speaks docs/protocol.md on stdin/stdout; like every example worker it is
self-contained, so it can be copied into the package's own repository with its ledger.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import os
import re
import sys
import tempfile
import traceback
from importlib import metadata
from pathlib import Path
from typing import Any

try:
    import hanzoai.mcp as hz
    from hanzoai.config import ConfigLoader, McpStdioConfig
    from hanzoai.mcp import mcp_tool_name
    from hanzoai.protocols import PermissionMode, PermissionPolicy
    from hanzoai.session import (
        CompactionConfig,
        ConversationMessage,
        MessageRole,
        Session,
        TextBlock,
        ToolResultBlock,
        ToolUseBlock,
        compact_session,
        estimate_session_tokens,
    )
except ImportError as missing:
    raise SystemExit(
        f"hanzoai is not installed ({missing}): "
        "pip install -r examples/hanzoai-runtime/requirements.txt"
    ) from None

NO_DECODER = "MCPClient has no separate decoder, and JsonRpcRequest no notification form"
NO_PARSE = "hanzoai 8.5.914 has no function that parses an mcp__ name back into server and tool"
NO_TABLE = "hanzoai 8.5.914 builds no tool table: MCPClient.list_tools returns the server's names"
NO_TEXT = "hanzoai 8.5.914 estimates sessions only and reports no byte count (utf8_bytes)"
NO_GIVEN = "a hanzoai ConversationMessage has no token_count to keep (TOK-5)"
NO_CONFIG_RECORD = (
    "hanzoai 8.5.914's ConfigLoader builds no permission policy from the config and "
    "reports no warnings (it logs some): policy, warnings and evaluations (CFG-20, CFG-22)"
)
NO_PROJECT = (
    "hanzoai 8.5.914's ConfigLoader always reads a working directory's .hanzo/ (cwd): "
    "it has no load without a project root (CFG-2)"
)
CONFIG_FIELDS = ("api_key", "model", "permissions", "custom_instructions")
CONFIG_FIELDS += ("oauth_credentials", "hooks", "input_mode")
NO_GLOBS = (
    "hanzoai 8.5.914's PermissionPolicy matches exact tool names only (a tool_modes map): "
    "it has no glob patterns (PERM-11..PERM-19)"
)
NO_MODE_STRINGS = (
    "hanzoai 8.5.914's PermissionPolicy takes PermissionMode members, not mode strings: "
    "it has no mode to validate (PERM-2)"
)
NO_DECISION = (
    "hanzoai 8.5.914's PermissionPolicy.mode_for returns a mode only: it has no "
    "rule_index, no rule reason and no audit record (PERM-4, PERM-6)"
)
NO_OFF = (
    "hanzoai 8.5.914's CompactionConfig.max_estimated_tokens is an integer: it has no "
    "'no budget, no compaction' setting (COMP-7)"
)
NO_FORCE = "hanzoai 8.5.914's compact_session has no forced compaction (COMP-7a)"
NO_SUMMARIZER = (
    "hanzoai 8.5.914's compact_session writes its own summary: it takes no summarizer "
    "that could fail (COMP-11)"
)
NO_COUNTS = (
    "hanzoai 8.5.914's CompactionResult has no token_count per message, no total_tokens, "
    "no tokens_saved and no over_budget (COMP-1)"
)
ABSENT = {
    "config-merge": ["/policy", "/warnings", "/evaluations"],
    "permission-policy": ["/rule_index", "/reason", "/audit"],
    "session-compaction": [
        "/messages/*/token_count",
        "/tokens_saved",
        "/total_tokens",
        "/over_budget",
    ],
}
"""The output fields hanzoai 8.5.914 does not have, per domain (JSON pointers)."""
PARTIAL_ANSWERS = True
"""Whether to send partial answers (the handshake's ``absent``, declared for every case
of a domain in ABSENT; docs/protocol.md "Partial answers"); without, those cases are
skipped, for a harness that predates them."""
GLOB_CHARACTERS = frozenset("*?[")
MODES = {
    "allow": PermissionMode.Allow,
    "deny": PermissionMode.Deny,
    "prompt": PermissionMode.Prompt,
}


class NotApplicable(Exception):
    """The case needs something hanzoai does not have; answered skip with the reason."""


class ContractError(Exception):
    """The package refused the input the way the contract names (an error code)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class Partial(Exception):
    """The package's answer, without the fields ABSENT names for its domain. Until the
    protocol can compare the rest (PARTIAL_ANSWERS), the case is answered skip with the
    reason: never a pass, and no field is made up to fill the gap."""

    def __init__(self, output: dict[str, Any], lacking: str) -> None:
        super().__init__(lacking)
        self.output = output


def mcp_normalization(case_input: dict[str, Any]) -> dict[str, Any]:
    op = case_input["op"]
    if op == "normalize":
        return {"name": mcp_tool_name(case_input["server"], case_input["tool"])}
    raise NotApplicable(NO_PARSE if op == "parse" else NO_TABLE)


def conversation_message(message: dict[str, Any]) -> ConversationMessage:
    """A wire message as a caller converting it to hanzoai's type would: a tool message
    (with ``tool_call_id``) is a tool result (no tool name: the wire message has none);
    any other message is a text block of its content (left out when it is empty and the
    message makes tool calls) followed by one tool use per call."""
    if "tool_call_id" in message and message["role"] == "tool":
        return ConversationMessage.tool_result(message["tool_call_id"], "", message["content"])
    calls = message.get("tool_calls", [])
    blocks: list[Any] = []
    if message["content"] or not calls:
        blocks.append(TextBlock(text=message["content"]))
    for call in calls:
        arguments = call.get("arguments", "")
        blocks.append(ToolUseBlock(id=call["id"], name=call["name"], input=arguments))
    return ConversationMessage(role=MessageRole(message["role"]), blocks=blocks)


def token_estimation(case_input: dict[str, Any]) -> dict[str, Any]:
    if "text" in case_input:
        raise NotApplicable(NO_TEXT)
    messages = case_input["messages"]
    if any("token_count" in m for m in messages):
        raise NotApplicable(NO_GIVEN)
    counts = [
        estimate_session_tokens(Session(messages=[conversation_message(m)])) for m in messages
    ]
    return {
        "token_counts": counts,
        "estimated": [True] * len(counts),
        "total_tokens": estimate_session_tokens(
            Session(messages=[conversation_message(m) for m in messages])
        ),
    }


def permission_policy(case_input: dict[str, Any]) -> dict[str, Any]:
    rules = case_input["rules"]
    if any(rule["mode"] not in MODES for rule in rules):
        raise NotApplicable(NO_MODE_STRINGS)
    if any(GLOB_CHARACTERS & set(rule["tool_pattern"]) for rule in rules):
        raise NotApplicable(NO_GLOBS)
    policy = PermissionPolicy(PermissionMode.Prompt)
    for rule in rules:
        policy.with_tool_mode(rule["tool_pattern"], MODES[rule["mode"]])
    mode = policy.mode_for(case_input["tool_name"])
    raise Partial({"mode": mode.name.lower()}, NO_DECISION)


def wire_message(message: ConversationMessage) -> dict[str, Any]:
    """A message hanzoai made (its summary), written from its blocks."""
    text = "".join(
        b.text if isinstance(b, TextBlock) else b.output
        for b in message.blocks
        if isinstance(b, (TextBlock, ToolResultBlock))
    )
    written: dict[str, Any] = {"role": message.role.value, "content": text}
    calls = [{"id": b.id, "name": b.name} for b in message.blocks if isinstance(b, ToolUseBlock)]
    if calls:
        written["tool_calls"] = calls
    return written


def session_compaction(case_input: dict[str, Any]) -> dict[str, Any]:
    if case_input.get("force"):
        raise NotApplicable(NO_FORCE)
    if case_input.get("summarizer_fails"):
        raise NotApplicable(NO_SUMMARIZER)
    if case_input["max_tokens"] is None:
        raise NotApplicable(NO_OFF)
    wire = case_input["messages"]
    session = Session(messages=[conversation_message(m) for m in wire])
    config = CompactionConfig(
        preserve_recent_messages=case_input.get("reserve_recent", 3),
        max_estimated_tokens=case_input["max_tokens"],
    )
    result = compact_session(session, config)
    pairs = zip(session.messages, wire, strict=True)
    callers = {id(converted): original for converted, original in pairs}
    messages = [
        {k: v for k, v in callers[id(m)].items() if k != "token_count"}
        if id(m) in callers
        else wire_message(m)
        for m in result.compacted_session.messages
    ]
    raise Partial(
        {"messages": messages, "compacted_count": result.removed_message_count}, NO_COUNTS
    )


# mcp-stdio: hanzoai.mcp.MCPClient against a replay server process per case.

MCP_ERROR = re.compile(r"JSON-RPC error (-?\d+): (.*)", re.S)


def _chunks(case_input: dict[str, Any]) -> list[str]:
    if case_input.get("encoding") == "bytes":
        return list(case_input["chunks"])
    return [c.encode("utf-8").decode("latin-1") for c in case_input["chunks"]]


ALNUM = {ord(c): c for c in "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"}


def replay_script(chunks: list[bytes]) -> str:
    """The replay MCP server as a POSIX shell script: one ``printf`` (one ``write``) per
    chunk, every byte but letters and digits as a ``%b`` octal escape (NUL included),
    then stdout closed and stdin read to its end, so the client's writes never meet a
    closed pipe. A shell starts far quicker than a Python, and every case runs once per
    chunking (the vector file's rechunk variants)."""
    lines = []
    for chunk in chunks:
        if chunk:
            escaped = "".join(ALNUM.get(b) or f"\\0{b:03o}" for b in chunk)
            lines.append(f"printf '%b' '{escaped}'")
    lines += ["exec 1>&-", "exec cat >/dev/null"]
    return "\n".join(lines) + "\n"


def _outcome(e: BaseException) -> dict[str, Any]:
    if isinstance(e, hz.MCPClientError):
        m = MCP_ERROR.fullmatch(str(e))
        if m:
            return {"error": {"code": int(m.group(1)), "message": m.group(2)}}
        if "closed stdout" in str(e):
            return {"unanswered": True}
    raise e


async def _session(case_input: dict[str, Any], folder: Path) -> dict[str, Any]:
    replay = folder / "replay.sh"
    chunks = [c.encode("latin-1") for c in _chunks(case_input)]
    replay.write_text(replay_script(chunks), encoding="ascii")
    command = ["/bin/sh", str(replay)]
    written = bytearray()
    real = hz.asyncio.create_subprocess_exec

    async def spawn(*argv: str, **kw: Any) -> Any:
        # The real process; its stdin records what MCPClient writes.
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


def mcp_stdio(case_input: dict[str, Any]) -> dict[str, Any]:
    op = case_input["op"]
    try:
        if op == "session":
            with tempfile.TemporaryDirectory() as folder:
                return asyncio.run(_session(case_input, Path(folder)))
        if op == "spawn-env":
            return asyncio.run(_spawn_env(case_input))
        encoded = _encode(case_input) if op == "encode" else None
    except ValueError as e:
        # CPython's subprocess checks, which MCPClient leaves to it, are its answer.
        for text, code in (("null byte", "nul_byte"), ("illegal environment", "invalid_env_name")):
            if text in str(e):
                raise ContractError(code, str(e)) from None
        raise
    if encoded is None:
        raise NotApplicable(NO_DECODER)
    return encoded


# config-merge: hanzoai.config.ConfigLoader on the tier files the harness wrote.


@contextlib.contextmanager
def process_environment(env: dict[str, str]) -> Any:
    """The case's environment as the process's, for the package's own discovery
    (ConfigLoader.default_for reads HANZO_CONFIG_HOME and Path.home())."""
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def server_entry(server: Any) -> dict[str, Any]:
    if isinstance(server, McpStdioConfig):
        return {"command": server.command, "args": server.args, "env": server.env}
    return dataclasses.asdict(server)


def config_merge(case_input: dict[str, Any]) -> dict[str, Any]:
    """ConfigLoader.default_for(project_root).load(trust_project_mcp=trusted): each field
    is what RuntimeConfig answers for it (``get(name)``; ``mcp_servers()`` for the
    servers), unset fields included (the package has no defaults)."""
    if case_input["project_root"] is None:
        raise NotApplicable(NO_PROJECT)
    with process_environment(case_input["env"]):
        loader = ConfigLoader.default_for(Path(case_input["project_root"]))
        loaded = loader.load(trust_project_mcp=case_input["trusted"])
    config = {name: loaded.get(name) for name in CONFIG_FIELDS}
    servers = loaded.mcp_servers()
    config["mcp_servers"] = {name: server_entry(s) for name, s in servers.items()}
    raise Partial({"config": config}, NO_CONFIG_RECORD)


DOMAINS = {
    "mcp-normalization": mcp_normalization,
    "config-merge": config_merge,
    "mcp-stdio": mcp_stdio,
    "permission-policy": permission_policy,
    "session-compaction": session_compaction,
    "token-estimation": token_estimation,
}


def answer(request: dict[str, Any]) -> dict[str, Any]:
    if request.get("cmd") == "start":
        implementation: dict[str, Any] = {
            "name": "hanzoai",
            "version": metadata.version("hanzoai"),
            "language": f"python {sys.version.split()[0]}",
            "domains": sorted(DOMAINS),
        }
        if PARTIAL_ANSWERS:
            implementation["absent"] = ABSENT
        started: dict[str, Any] = {"ok": True, "implementation": implementation}
        # config-merge's tier files are the harness's to write: no layout here.
        started["harness_lays_out"] = ["config-merge"]
        return started
    run = DOMAINS.get(request.get("domain", ""))
    if run is None:
        return {"id": request.get("id", ""), "crash": {"message": "unknown domain", "detail": ""}}
    try:
        return {"id": request["id"], "output": run(request["input"])}
    except Partial as e:
        if PARTIAL_ANSWERS:
            return {"id": request["id"], "output": e.output}
        return {"id": request["id"], "skip": {"reason": str(e)}}
    except NotApplicable as e:
        return {"id": request["id"], "skip": {"reason": str(e)}}
    except ContractError as e:
        return {"id": request["id"], "error": {"code": e.code, "message": str(e)}}
    except Exception as e:  # a crash answers this case; the worker goes on
        crash = {"message": repr(e), "detail": traceback.format_exc()}
        return {"id": request["id"], "crash": crash}


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
