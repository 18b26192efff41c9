"""Pre/post tool-use hooks run as real processes (HIP-301 §9, docs/domains/hooks.md).

Each hook is ``/bin/sh -c command`` in a new session (HOOK-4), so a timeout or the
end of the hook kills its whole process group (HOOK-9, HOOK-10), and starts with the
default disposition of every standard signal and an empty signal mask (HOOK-14),
which ``subprocess`` cannot give it safely: ``_spawn`` says why.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import os
import select
import signal
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import IO, Any

from impl_python._spawn import spawn_in_new_session
from impl_python.errors import HanzoError
from impl_python.permissions import Glob

__all__ = [
    "DEFAULT_TIMEOUT_MS",
    "MAX_ENV_ENTRY_BYTES",
    "REASON_LIMIT_BYTES",
    "HookConfig",
    "HookError",
    "HookLogRecord",
    "HookResult",
    "HookRunner",
    "ToolResult",
    "canonical_json",
]

DEFAULT_TIMEOUT_MS = 5000
MAX_TIMEOUT_MS = 2_147_483_647
#: HOOK-7: longest ``NAME=value`` (Linux MAX_ARG_STRLEN is 131072 with the NUL).
MAX_ENV_ENTRY_BYTES = 131_071
#: HOOK-11: stderr bytes kept for the deny reason.
REASON_LIMIT_BYTES = 4096
EVENTS = ("pre_tool_use", "post_tool_use")
#: HOOK-14: the standard signals, which a hook starts with at their default disposition
#: (SIGKILL and SIGSTOP have no other).
STANDARD_SIGNALS = tuple(s for s in range(1, 32) if s not in (signal.SIGKILL, signal.SIGSTOP))
DEFAULT_DENY_REASON = "blocked by pre_tool_use hook"


class HookError(HanzoError):
    """Base of the hooks contract errors (construction only)."""


@dataclass(frozen=True)
class HookConfig:
    """HIP-301's HookConfig; also the type of ``HanzoConfig.hooks`` (config.py re-exports
    it), so hooks from the merged settings feed a HookRunner unchanged."""

    event: str
    command: str
    tool_pattern: str
    timeout_ms: int = DEFAULT_TIMEOUT_MS


@dataclass(frozen=True)
class ToolResult:
    """HIP-301 §2's ToolResult, as passed to post-hooks."""

    output: str
    error: str | None = None
    is_error: bool = False


@dataclass(frozen=True)
class HookLogRecord:
    """HOOK-13."""

    code: str
    hook: int
    exit_code: int | None = None
    signal: int | None = None


@dataclass(frozen=True)
class HookResult:
    """The outcome of run_pre / run_post."""

    decision: str  # allow | deny | error
    reason: str | None
    ran: list[int] = field(default_factory=list)
    log: list[HookLogRecord] = field(default_factory=list)


# --- canonical JSON (HOOK-6) ------------------------------------------------------------

_SHORT_ESCAPES = {
    '"': '\\"',
    "\\": "\\\\",
    "\b": "\\b",
    "\t": "\\t",
    "\n": "\\n",
    "\f": "\\f",
    "\r": "\\r",
}


def _string(text: str) -> str:
    out = ['"']
    for ch in text:
        if ch in _SHORT_ESCAPES:
            out.append(_SHORT_ESCAPES[ch])
        elif ch < " ":
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def ecmascript_number(value: float) -> str:
    """ECMAScript Number::toString, from Python's shortest round-trip digits (repr)."""
    if not math.isfinite(value):
        raise ValueError("JSON has no NaN or Infinity")
    if value == 0:
        return "0"
    _, digit_tuple, exponent = Decimal(repr(abs(value))).normalize().as_tuple()
    assert isinstance(exponent, int)
    digits = "".join(map(str, digit_tuple))
    k = len(digits)
    n = k + exponent  # value = 0.digits x 10^n
    if k <= n <= 21:
        text = digits + "0" * (n - k)
    elif 0 < n <= 21:
        text = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        text = "0." + "0" * -n + digits
    else:
        mantissa = digits[0] + ("." + digits[1:] if k > 1 else "")
        text = f"{mantissa}e{'+' if n - 1 >= 0 else '-'}{abs(n - 1)}"
    return ("-" if value < 0 else "") + text


def canonical_json(value: Any) -> str:
    """HOOK-6: JSON.stringify with keys sorted by code point."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return ecmascript_number(float(value)) if abs(value) >= 10**21 else str(value)
    if isinstance(value, float):
        return ecmascript_number(value)
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, Mapping):
        members = sorted(value.items())
        return "{" + ",".join(_string(k) + ":" + canonical_json(v) for k, v in members) + "}"
    if isinstance(value, Sequence):
        return "[" + ",".join(canonical_json(v) for v in value) + "]"
    raise TypeError(f"not JSON: {type(value).__name__}")


# --- running one hook -------------------------------------------------------------------


def _sequence_length(lead: int) -> int:
    """Bytes in the UTF-8 sequence starting with ``lead`` (1 for ASCII or an invalid lead)."""
    for length, mask, bits in ((2, 0xE0, 0xC0), (3, 0xF0, 0xE0), (4, 0xF8, 0xF0)):
        if lead & mask == bits:
            return length
    return 1


def _reason(kept: bytes) -> str:
    """HOOK-11: drop a cut UTF-8 sequence, decode, strip trailing ASCII whitespace."""
    for back in range(1, min(4, len(kept)) + 1):
        if kept[-back] & 0xC0 != 0x80:  # the last lead byte (or ASCII), `back` from the end
            if _sequence_length(kept[-back]) > back:
                kept = kept[:-back]
            break
    text = kept.decode("utf-8", errors="replace").rstrip(" \t\n\r")
    return text or DEFAULT_DENY_REASON


def _kill_group(pgid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):  # already empty
        os.killpg(pgid, signal.SIGKILL)


def _unpassable(env: Mapping[str, str]) -> str | None:
    """HOOK-7: of the variables that cannot be passed, the least name by code point."""
    bad = (
        name
        for name, value in env.items()
        if not name
        or "=" in name
        or "\0" in name
        or "\0" in value
        or len(name.encode()) + 1 + len(value.encode()) > MAX_ENV_ENTRY_BYTES
    )
    return min(bad, default=None)


@dataclass(frozen=True)
class _Run:
    record: HookLogRecord
    outcome: str  # allow | deny | error
    reason: str | None


def _drain(stream: IO[bytes], kept: bytearray) -> None:
    """Read ``stream`` to its end, keeping the first REASON_LIMIT_BYTES (HOOK-11)."""
    while chunk := stream.read(65536):
        if len(kept) < REASON_LIMIT_BYTES:
            kept += chunk[: REASON_LIMIT_BYTES - len(kept)]


def _exits_within(pid: int, timeout_ms: int) -> bool:
    """Whether the child ``pid`` ends within ``timeout_ms`` (it is not reaped here)."""
    pidfd = os.pidfd_open(pid)  # readable once the process has ended
    try:
        waiting = select.poll()
        waiting.register(pidfd, select.POLLIN)
        return bool(waiting.poll(timeout_ms))
    finally:
        os.close(pidfd)


def _wait(pid: int) -> int | None:
    """The hook's exit code, or minus the signal that killed it (None: already reaped,
    as when this process ignores SIGCHLD)."""
    try:
        return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    except ChildProcessError:
        return None


def run_hook(index: int, hook: HookConfig, env: dict[str, str], cwd: str | None) -> _Run:
    """Run one hook to its end (blocking): HOOK-4, HOOK-14 and HOOK-7..HOOK-11."""
    bad = _unpassable(env)
    if bad is not None:
        record = HookLogRecord("hook_env_unpassable", index)
        return _Run(record, "error", f"hook environment variable {bad} cannot be passed")
    stderr_read, stderr_write = os.pipe()
    try:
        pid = spawn_in_new_session(
            ["/bin/sh", "-c", hook.command],
            env=env,
            cwd=cwd,
            stderr_fd=stderr_write,
            default_signals=STANDARD_SIGNALS,
        )
    except OSError:  # no /bin/sh, a missing cwd: as the shell reports a missing program
        os.close(stderr_read)
        record = HookLogRecord("hook_exit_error", index, exit_code=127)
        return _Run(record, "error", "hook exited with code 127")
    finally:
        os.close(stderr_write)
    kept = bytearray()
    with open(stderr_read, "rb", buffering=0) as stderr:
        reader = threading.Thread(target=_drain, args=(stderr, kept), daemon=True)
        reader.start()
        # The process, not the pipe: a grandchild holding stderr cannot hold the runner.
        timed_out = not _exits_within(pid, hook.timeout_ms)
        if timed_out:
            _kill_group(pid)
        status = _wait(pid)
        _kill_group(pid)  # HOOK-10: nothing outlives the hook
        reader.join()
    if timed_out:
        record = HookLogRecord("hook_timeout", index)
        return _Run(record, "error", f"hook timed out after {hook.timeout_ms} ms")
    if status is None:  # the kernel reaped it (SIGCHLD ignored): 127, as the Rust runner
        status = 127
    if status < 0:
        record = HookLogRecord("hook_signal", index, signal=-status)
        return _Run(record, "error", f"hook killed by signal {-status}")
    if status == 0:
        return _Run(HookLogRecord("hook_allow", index, exit_code=0), "allow", None)
    if status == 2:
        return _Run(HookLogRecord("hook_deny", index, exit_code=2), "deny", _reason(bytes(kept)))
    record = HookLogRecord("hook_exit_error", index, exit_code=status)
    return _Run(record, "error", f"hook exited with code {status}")


class HookRunner:
    """Runs the hooks matching a tool call (HIP-301 §9)."""

    def __init__(
        self,
        hooks: Sequence[HookConfig],
        *,
        session_id: str = "",
        cwd: str | None = None,
        env: Mapping[str, str] | None = None,
    ) -> None:
        for hook in hooks:
            if hook.event not in EVENTS:
                raise HookError(f"invalid hook event {hook.event!r}", code="invalid_event")
            timeout = hook.timeout_ms
            if (
                isinstance(timeout, bool)
                or not isinstance(timeout, int)
                or not 1 <= timeout <= MAX_TIMEOUT_MS
            ):
                raise HookError(f"invalid hook timeout {timeout!r}", code="invalid_timeout")
        self.hooks = list(hooks)
        self._globs = [Glob(h.tool_pattern) for h in self.hooks]
        self.session_id = session_id
        self.cwd = cwd
        self.env = dict(os.environ if env is None else env)

    def _matching(self, event: str, tool_name: str) -> list[int]:
        return [
            i
            for i, h in enumerate(self.hooks)
            if h.event == event and self._globs[i].matches(tool_name)
        ]

    def _env(self, tool_name: str, tool_input: Any, output: ToolResult | None) -> dict[str, str]:
        env = dict(self.env)
        env.pop("HANZO_TOOL_OUTPUT", None)
        env["HANZO_TOOL_NAME"] = tool_name
        env["HANZO_TOOL_INPUT"] = canonical_json(tool_input)
        env["HANZO_SESSION_ID"] = self.session_id
        if output is not None:
            result = {"output": output.output, "error": output.error, "is_error": output.is_error}
            env["HANZO_TOOL_OUTPUT"] = canonical_json(result)
        return env

    async def run_pre(self, tool_name: str, input: Any) -> HookResult:
        """Run matching pre-hooks in order; the first deny or error decides (HOOK-3)."""
        env = self._env(tool_name, input, None)
        ran: list[int] = []
        log: list[HookLogRecord] = []
        for index in self._matching("pre_tool_use", tool_name):
            ran.append(index)
            run = await asyncio.to_thread(run_hook, index, self.hooks[index], env, self.cwd)
            log.append(run.record)
            if run.outcome != "allow":
                return HookResult(run.outcome, run.reason, ran, log)
        return HookResult("allow", None, ran, log)

    async def run_post(self, tool_name: str, input: Any, result: ToolResult) -> HookResult:
        """Run every matching post-hook; failures are logged, never block (HOOK-12)."""
        env = self._env(tool_name, input, result)
        ran: list[int] = []
        log: list[HookLogRecord] = []
        for index in self._matching("post_tool_use", tool_name):
            ran.append(index)
            run = await asyncio.to_thread(run_hook, index, self.hooks[index], env, self.cwd)
            log.append(run.record)
        return HookResult("allow", None, ran, log)
