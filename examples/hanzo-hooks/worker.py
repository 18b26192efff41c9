"""A conformance worker for hanzo-hooks 0.1.0, Hanzo's published hook runner, on hooks.

    python3.12 -m venv venv && venv/bin/pip install -r examples/hanzo-hooks/requirements.txt
    hanzo-conformance run --platform hanzo-hooks --domain hooks \
        --worker hanzo-hooks='venv/bin/python examples/hanzo-hooks/worker.py' \
        --expectations examples/hanzo-hooks/expectations.json

It asks the harness to lay the cases out (``harness_lays_out`` in its handshake,
docs/protocol.md "Harness-laid cases"): each case arrives with concrete paths, its
working directory made, and the harness reads what the ``record`` fixture saw and
counts and kills leftover processes after the answer. So this worker has no layout of
its own; it only calls the package:

- ``HookConfig(pre_tool_use=[...], post_tool_use=[...])`` takes command lists, one per
  event: each hook's ``command`` goes into the list its ``event`` names (a hook with
  any other event has no place in it and is left out). The package has no tool
  pattern, no timeout and no session id, so ``tool_pattern``, ``timeout_ms`` and
  ``session_id`` are not given to it.
- ``HookRunner(config).run_pre_tool_use(tool_name, tool_input)`` or
  ``run_post_tool_use(tool_name, tool_input, tool_output, is_error)`` with the tool
  input as its JSON text (the package takes a string); the result's own
  ``to_permission_outcome()`` gives the decision and, for a deny, the reason.
- The package runs hooks in the process's working directory and environment (it has
  no ``cwd`` or ``env`` parameter), so the worker enters the case's ``cwd`` and makes
  the case's ``env`` the process environment for the call, and restores both after.
  A case whose ``cwd`` does not exist (HOOK-4's "cannot be started"), or whose ``env``
  the process environment cannot hold (HOOK-7's NUL and ``=``), cannot be given to it
  that way and is answered ``skip``.

``HookRunResult`` has no per-hook record: it says nowhere which hooks ran or how each
ended (``ran``, ``log``). The handshake declares those two output fields absent
(docs/protocol.md, "Partial answers"), so the rest of each output is compared and the
result is ``partial``, never a pass. Nothing is corrected: the
ledger next to this file records the differences. It speaks docs/protocol.md on
stdin/stdout and is self-contained, so it can be copied into the package's repository
with its ledger.
"""

from __future__ import annotations

import json
import os
import sys
import traceback
from importlib import metadata
from typing import Any

from hanzo_hooks import HookConfig, HookRunner

ABSENT = ["/ran", "/log"]
"""The output fields hanzo-hooks 0.1.0 does not have (JSON pointers)."""
NO_ENV = (
    "hanzo-hooks 0.1.0 reads the hook environment from the process environment, "
    "which cannot hold this case's variables (a NUL, an empty name or a name with '=')"
)
NO_CWD = (
    "hanzo-hooks 0.1.0 runs hooks in the process's working directory; "
    "a directory that does not exist cannot be given to it"
)


def hooks(case_input: dict[str, Any]) -> dict[str, Any] | str:
    """The output the package gives, or the reason it cannot answer this case."""
    cwd = case_input["cwd"]
    if not os.path.isdir(cwd):
        return NO_CWD
    commands: dict[str, list[str]] = {"pre_tool_use": [], "post_tool_use": []}
    for hook in case_input["hooks"]:
        if hook["event"] in commands:
            commands[hook["event"]].append(hook["command"])
    runner = HookRunner(HookConfig(commands["pre_tool_use"], commands["post_tool_use"]))
    tool_name = case_input["tool_name"]
    tool_input = json.dumps(case_input["tool_input"], ensure_ascii=False)
    saved_cwd, saved_env = os.getcwd(), dict(os.environ)
    try:
        os.environ.clear()
        os.environ.update(case_input["env"])
    except (ValueError, OSError):  # a NUL, an empty name, a name with "=": none can exist
        os.environ.clear()
        os.environ.update(saved_env)
        return NO_ENV
    os.chdir(cwd)
    try:
        if case_input["event"] == "post_tool_use":
            tool_result = case_input.get("tool_result") or {}
            result = runner.run_post_tool_use(
                tool_name,
                tool_input,
                tool_result.get("output", ""),
                is_error=tool_result.get("is_error", False),
            )
        else:
            result = runner.run_pre_tool_use(tool_name, tool_input)
    finally:
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
    outcome: Any = result.to_permission_outcome()
    return {
        "decision": "allow" if outcome.allowed else "deny",
        "reason": None if outcome.allowed else outcome.reason,
    }


DOMAINS = {"hooks": hooks}


def answer(request: dict[str, Any]) -> dict[str, Any]:
    if request.get("cmd") == "start":
        implementation: dict[str, Any] = {
            "name": "hanzo-hooks",
            "version": metadata.version("hanzo-hooks"),
            "language": f"python {sys.version.split()[0]}",
            "domains": sorted(DOMAINS),
            "absent": {"hooks": ABSENT},
        }
        return {"ok": True, "implementation": implementation, "harness_lays_out": sorted(DOMAINS)}
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
