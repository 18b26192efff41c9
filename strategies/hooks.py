"""hooks: real processes. Canonical JSON of tool inputs (numbers, escapes, key order by
code point), values that cannot be passed (NUL, the 128 KiB entry limit counted in
bytes), exit codes, signals, deny reasons from stderr, post-hooks, matching, order.

Every input starts real processes on every platform, so inputs are kept cheap and
bounded: at most three hooks, short fixture programs, and a timeout (a sleeping hook
killed after 100 ms) only about once in thirty inputs.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from . import Reader, Response, records

# Values where JSON writers disagree (HOOK-6): integer-valued floats, -0, exponents
# at the ECMAScript thresholds, the largest safe integer (vectors are I-JSON: 2^53 + 1
# cannot be one, JS reads it as 2^53), the extremes, escapes and non-ASCII.
VALUES: tuple[Any, ...] = (
    1,
    "a",
    1.0,
    -0.0,
    0.1,
    1.5e-7,
    1e-6,
    1e21,
    1e20,
    123456789012345680000,
    2**53 - 1,
    -2.5,
    5e-324,
    1.7976931348623157e308,
    True,
    False,
    None,
    'a\nb\t"q" \\',
    "\u0001\u001f\b\f\r",
    "\u007f\u2028/",
    "\U0001f600é",
    "",
    [1, [True, None]],
    {"z": {"b": 0, "a": "y"}},
    {},
    [],
)
# Keys whose code-point order differs from UTF-16 order (U+FFFF vs an astral one).
KEYS = ("a", "b", "B", "é", "\U0001f600", "\uffff", "", "path")
TOOL_NAMES = ("fs.write", "fs.read", "mcp__gh__create_issue", "fs.écrire", "fs.[write", "fs")
PATTERNS = (
    "*",
    "*",
    "*",
    "*",
    "*",
    "*",
    "fs.*",
    "fs.[!r]*",
    "mcp__*",
    "fs.?crire",
    "fs",
    "fs.[write",
    "",
)
MESSAGES = ("no", "", "b says no", "  spaced\t\r\n", "é😀")
STDERR = ("nope\\n \\t\\r\\n", "bad \\377 byte", " \\n", "é\\342\\202", "x")
EXITS = (0, 2, 1, 3, 255)
SIGNALS = ("TERM", "KILL", "HUP")
SESSIONS = ("sess-1", "", "sess-ü-日本")
NOTES = ("x", "ñandú", "a\u0000b", "")
# Names no environment entry can carry (HOOK-7): "NOTE=set" would read as NOTE.
UNPASSABLE_NAMES = ("NOTE=set", "", "NO\u0000TE", "=x")
OBSERVE = ("HANZO_TOOL_INPUT", "HANZO_TOOL_NAME", "HANZO_SESSION_ID", "HANZO_TOOL_OUTPUT", "NOTE")
OUTPUTS = ("ok", "", "é\n😀")
# Around the 131071-byte entry limit (HOOK-7): "HANZO_TOOL_INPUT=" and '{"blob":"..."}'
# are 28 bytes, so 131043 one-byte characters fit and 131044 do not (65521 and 65522
# of a two-byte one).
FILLS = (("x", 131043), ("x", 131044), ("é", 65521), ("é", 65522))
HOOK_COUNTS = (0, 1, 1, 1, 1, 2, 2, 3)


def _command(kind: int, arg: int, index: int) -> tuple[str, int | None]:
    """A hook command and, for the sleeper, the short timeout it needs."""
    name = f"h{index}"
    if kind == 0:
        return f"{{fixtures}}/record {name}", None
    if kind == 1:
        message = MESSAGES[arg // 5 % len(MESSAGES)]
        return f"{{fixtures}}/exit-with {EXITS[arg % 5]} '{message}'", None
    if kind == 2:
        return f"{{fixtures}}/record {name} {EXITS[arg % 5]} '{MESSAGES[arg // 5 % 5]}'", None
    if kind == 3:
        return f"printf '{STDERR[arg % len(STDERR)]}' >&2; exit {EXITS[arg // 8 % 5]}", None
    if kind == 4:
        return f"exec {{fixtures}}/die-by {SIGNALS[arg % 3]}", None
    if kind == 5:
        return "kill -s HUP $$", None
    if kind == 6 and arg % 4 == 0:
        return "{fixtures}/sleeper s 5", 100  # HOOK-9, about one input in thirty
    return f"{{fixtures}}/record {name}", None


def _hook(r: Reader, index: int, event: str) -> dict[str, Any]:
    kind, arg, pattern, flags = r.take(4)
    command, timeout = _command(kind % 8, arg, index)  # 7: record too
    hook: dict[str, Any] = {
        "event": event,
        "command": command,
        "tool_pattern": PATTERNS[pattern % len(PATTERNS)],
    }
    if flags % 8 == 7:
        hook["event"] = ("post_tool_use" if event == "pre_tool_use" else "pre_tool_use", "")[
            flags >> 3 & 1
        ]  # another event, or an invalid one (HOOK-1)
    if timeout is not None:
        hook["timeout_ms"] = timeout
    elif flags >> 4 & 3 == 1:
        hook["timeout_ms"] = 10000
    elif flags >> 4 & 3 == 2 and flags >> 6 == 3:
        hook["timeout_ms"] = (0, 2147483648, 2000.0, 2147483647)[flags & 3]  # HOOK-1 edges
    return hook


def _tool_input(r: Reader) -> dict[str, Any]:
    size = r.byte() % 4
    return {KEYS[r.byte() % len(KEYS)]: VALUES[r.byte() % len(VALUES)] for _ in range(size)}


# The options, three hook slots of 4 bytes, a tool input of up to 3 members.
RECORD = 8 + 3 * 4 + 1 + 2 * 3


def decode(record: bytes) -> dict[str, Any]:
    r = Reader(record)
    event_b, name_b, session_b, env_b, observe_b, count_b, fill_b, result_b = r.take(8)
    event = "post_tool_use" if event_b % 4 == 3 else "pre_tool_use"
    hooks = [_hook(r, i, event) for i in range(HOOK_COUNTS[count_b % len(HOOK_COUNTS)])]
    r.take(4 * (3 - len(hooks)))  # unused slots: the tool input stays where it is
    env = {"PATH": "/usr/bin:/bin"}
    if env_b & 1:
        env["NOTE"] = NOTES[env_b >> 1 & 3]
    if env_b >> 3 & 3 == 3:
        env["HANZO_TOOL_OUTPUT"] = "stale"  # HOOK-5: a pre-hook must not see it
    elif env_b >> 3 & 3 == 2:
        env[UNPASSABLE_NAMES[env_b >> 1 & 3]] = "v"
    case: dict[str, Any] = {
        "hooks": hooks,
        "event": event,
        "tool_name": TOOL_NAMES[name_b % len(TOOL_NAMES)] if name_b != 255 else "fs\u0000write",
        "tool_input": _tool_input(r),
        "session_id": SESSIONS[session_b % len(SESSIONS)],
        "env": env,
        "cwd": "{root}/missing" if env_b >> 5 == 7 else "{root}",
        "observe": [
            "HANZO_TOOL_INPUT",
            *(v for i, v in enumerate(OBSERVE[1:]) if observe_b >> i & 1),
        ],
    }
    if fill_b % 16 == 15:
        text, count = FILLS[fill_b >> 4 & 3]
        case["tool_input_fill"] = {"key": "blob", "text": text, "count": count}
    if event == "post_tool_use":
        case["tool_result"] = {
            "output": OUTPUTS[result_b % 3],
            "error": None if result_b & 4 == 0 else "failed",
            "is_error": bool(result_b & 8),
        }
    return case


def inputs() -> st.SearchStrategy[dict[str, Any]]:
    return records(RECORD, decode)


_CODE_CLAUSES = {
    "hook_allow": "HOOK-8",
    "hook_deny": "HOOK-11",
    "hook_exit_error": "HOOK-8",
    "hook_signal": "HOOK-8",
    "hook_timeout": "HOOK-9",
    "hook_env_unpassable": "HOOK-7",
}


def clauses(case_input: Any, response: Response) -> set[str]:
    if "error" in response:
        return {"HOOK-1"}
    found = {"HOOK-1", "HOOK-2", "HOOK-13"}
    output = response.get("output") or {}
    if len(case_input["hooks"]) > 1:
        found.add("HOOK-3")
    if output.get("ran"):
        found |= {"HOOK-4", "HOOK-10"}
    if output.get("saw"):
        found |= {"HOOK-5", "HOOK-6"}
    if case_input["event"] == "post_tool_use":
        found.add("HOOK-12")
    found |= {_CODE_CLAUSES[r["code"]] for r in output.get("log", ()) if r["code"] in _CODE_CLAUSES}
    return found


PROPERTIES = ()
