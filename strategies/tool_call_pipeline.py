"""tool-call-pipeline: one call through permission, prompter, pre-hooks, sandbox,
execution and post-hooks. Settings whose permission keys order differently in JS
objects ("10", "2", "mcp__*"), modes that are not exactly allow/deny/prompt, a hook
deny over an allow, prompter deny and escalate, slash commands skipping the
permission steps, sandbox refusals of the second path, invalid origins; and the
direct form with rule reasons and first-match order.

Hooks are real processes and the sandbox a real tree: an input has at most two
hooks (short fixture programs, no timeouts) and a five-entry tree.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import strategies as st

from . import Reader, Response, records
from .permission_policy import _rule

TOOL_NAMES = ("fs.write", "fs.read", "mcp__gh__create_issue", "shell", "fs.écrire")
ORIGINS = ("agent", "agent", "agent", "subagent", "slash_command", "slash_command", "Agent")
ANSWERS = (("allow", None), ("deny", "user said no"), ("deny", None), ("escalate", None))
# Settings permission keys and modes: code-point order vs JS object order, and
# modes that fail closed (CFG-15).
KEYS = ("fs.*", "*", "10", "2", "mcp__*", "fs.write", "shell", "fs.[!r]*")
MODES = ("allow", "deny", "prompt", "allow", "Allow", "")
HOOK_COMMANDS = (
    "{fixtures}/exit-with 0",
    "{fixtures}/exit-with 2 'hook says no'",
    "{fixtures}/exit-with 1",
    "{fixtures}/record h",
    "{fixtures}/exit-with 2",
)
HOOK_PATTERNS = ("*", "fs.*", "mcp__*", "shell")
TIERS = ("user", "project", "local")
TREE = [
    {"path": "ws/a.txt", "kind": "file"},
    {"path": "outside/secret.txt", "kind": "file"},
    {"path": "ws/escape", "kind": "symlink", "target": "../outside"},
    {"path": "ws/loop1", "kind": "symlink", "target": "loop2"},
    {"path": "ws/loop2", "kind": "symlink", "target": "loop1"},
]
PATHS = ("a.txt", "../outside/secret.txt", "escape/x", "loop1", "", "{root}/ws/new.txt", "~")
SANDBOX_MODES = ("workspace", "workspace", "allowlist", "off")


def _hooks(r: Reader) -> list[dict[str, Any]]:
    # Mostly none or one (each is a process on every platform), now and then two.
    count_b, second_b, events = r.take(3)
    count = count_b % 4 // 2 + (second_b % 8 == 7)
    hooks = []
    for i in range(count):
        command, pattern = r.take(2)
        hooks.append(
            {
                "event": "post_tool_use" if events >> i & 1 else "pre_tool_use",
                "command": HOOK_COMMANDS[command % len(HOOK_COMMANDS)],
                "tool_pattern": HOOK_PATTERNS[pattern % len(HOOK_PATTERNS)],
                "timeout_ms": 10000,
            }
        )
    return hooks


def _settings(r: Reader, hooks: list[dict[str, Any]]) -> dict[str, Any]:
    files: dict[str, Any] = {}
    for tier in TIERS:
        present, keys, modes = r.take(3)
        if not present & 1:
            continue
        doc: dict[str, Any] = {
            "permissions": {
                k: MODES[(modes >> i) % len(MODES)] for i, k in enumerate(KEYS) if keys >> i & 1
            }
        }
        if tier == "project" and hooks:
            doc["hooks"] = hooks
        files[tier] = "{" if present & 2 and present & 4 else json.dumps(doc)
    return {"files": files}


# The call, the prompter, the sandbox, the output; hooks (3 + 2 x 2); then either
# three settings tiers (3 each) or four 6-byte rules.
RECORD = 8 + 7 + 1 + 4 * 6


def decode(record: bytes) -> dict[str, Any]:
    r = Reader(record)
    form, name_b, origin_b, answer_b, paths_b, mode_b, output_b, _ = r.take(8)
    hooks = _hooks(Reader(record[8:15]))
    rest = Reader(record[15:])
    answer, reason = ANSWERS[answer_b % len(ANSWERS)]
    paths = [PATHS[paths_b % len(PATHS)], PATHS[(paths_b >> 3) % len(PATHS)]][: mode_b >> 5 & 3]
    case: dict[str, Any] = {
        "prompter": {"answer": answer, "reason": reason},
        "sandbox": {
            "tree": TREE,
            "workspace": "{root}/ws",
            "config": {
                "mode": SANDBOX_MODES[mode_b % len(SANDBOX_MODES)],
                "allowed_paths": ["."] if mode_b & 4 else [],
            },
        },
        "call": {
            "tool_name": TOOL_NAMES[name_b % len(TOOL_NAMES)],
            "input": {"path": paths[0] if paths else ""},
            "origin": ORIGINS[origin_b % len(ORIGINS)],
            "paths": paths,
        },
        "tool_output": {
            "output": ("done", "", "é")[output_b % 3],
            "error": None if output_b & 4 == 0 else "failed",
            "is_error": bool(output_b & 8),
        },
        "session_id": "sess-1",
    }
    if form % 4 == 3:
        # The direct form: rules with reasons in first-match order (valid modes only,
        # so construction errors stay rare), hooks as given.
        count = rest.byte() % 5
        case["rules"] = [_rule(rest.take(6), True) for _ in range(count)]
        case["hooks"] = hooks
    else:
        case["settings"] = _settings(rest, hooks)
    return case


def inputs() -> st.SearchStrategy[dict[str, Any]]:
    return records(RECORD, decode)


def clauses(case_input: Any, response: Response) -> set[str]:
    if "error" in response:
        return {"PIPE-1"}
    output = response.get("output") or {}
    found = {"PIPE-1", "PIPE-2", "PIPE-4", "PIPE-5"}
    if "settings" in case_input:
        found.add("PIPE-6")
    audit = output.get("audit") or {}
    if audit.get("outcome") == "escalated":
        found.add("PIPE-3")
    return found


PROPERTIES = ()
