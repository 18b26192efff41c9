"""How the harness's own platforms are started, so that a vector file cannot reach the
machine through them (issue 32; the threat model is docs/protocol.md's "What a vector
file can do").

A vector file is code: the hooks, sandbox-paths, config-merge and tool-call-pipeline
cases make the platform run its shell commands and build its trees. Each worker of
the platforms ``python``, ``rust`` and ``js`` (``confined_launch``) therefore starts

- with a scrubbed environment (``platform_environment``): nothing of the harness's
  environment but what the platform needs to start (``KEPT``), a fixed ``PATH`` and a
  ``TMPDIR`` of its own, so a hook reading ``/proc/$PPID/environ`` finds no token;
- under an address-space limit (``MEMORY_LIMIT_ENV``, RLIMIT_AS), inherited by every
  hook and tree walk it starts;
- with its temporary files in a folder of its own (``WorkerTemp``), removed when the
  worker ends, whether it stopped, timed out or crashed; folders left by a harness
  that was killed are swept when the next one starts (``sweep_stale``);
- where the machine allows it, as the init of its own PID and mount namespaces
  (``namespace_prefix``): ``kill -9 -1`` or ``kill $PPID`` in a hook then reaches the
  namespace alone (whose init ignores them), nothing in it outlives the worker, and
  the hooks layers count leftover processes from the namespace (``ISOLATION_ENV``).
  Without namespaces the worker still leads a session of its own, and the layers count
  the processes working in the case root; the run's report says so once
  (``isolation_note``).

Being an init changes what a worker's own death looks like: the kernel ignores every
signal without a handler sent to an init from inside its namespace, its own included,
so an ``abort()`` ends by SIGSEGV (glibc's fallback) and a worker killed by SIGKILL
from outside is reported by util-linux 2.38's unshare as exit code 1 ("sigprocmask
unblock failed"). The stderr the harness reports still says what happened.

Foreign workers (``--worker``) are the user's own programs and start as before.
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ._resources import HOOK_FIXTURES_ENV

__all__ = [
    "ISOLATION_ENV",
    "KEPT",
    "MEMORY_LIMIT_ENV",
    "NO_NAMESPACES_ENV",
    "PLATFORM_PATH",
    "TEMP_PREFIX",
    "WorkerTemp",
    "confined_launch",
    "isolation_note",
    "limit_prefix",
    "memory_limit",
    "namespace_prefix",
    "platform_environment",
    "remove_tree",
    "sweep_stale",
]

ISOLATION_ENV = "HANZO_CONFORMANCE_ISOLATION"
"""Set by the harness in a confined worker's environment: ``namespace`` (the worker is
its PID namespace's init: the hooks layers count every other process of it as a
leftover) or ``session`` (it leads a session of its own, with no namespace: the layers
count the processes working in the case root). A hook cannot change its platform's
environment."""
NO_NAMESPACES_ENV = "HANZO_CONFORMANCE_NO_NAMESPACES"
"""Set (not empty, not 0) in the harness's environment: start no namespaces (as on a
machine without them)."""
MEMORY_LIMIT_ENV = "HANZO_CONFORMANCE_MEMORY_LIMIT_MB"
"""The address-space limit of each confined worker and everything it starts, in MiB."""
DEFAULT_MEMORY_LIMIT_MB = 4096
PLATFORM_PATH = "/usr/local/bin:/usr/bin:/bin"
"""The ``PATH`` a confined worker gets (the platforms are started by absolute path; a
hook's ``PATH`` is whatever its vector sets)."""
KEPT = (HOOK_FIXTURES_ENV, "PYTHONPATH", "LANG", "LC_ALL", "LC_CTYPE")
"""The harness's variables a confined worker keeps: where the hook programs are, where
Python finds the platform's modules when the harness was told so, and the locale."""
TEMP_PREFIX = "hanzo-conformance-"
"""Each worker's temporary folder is
``<tmp>/hanzo-conformance-<PID namespace inode>-<harness pid>-<random>``."""

_STARTED = time.time()
_PROBE_TIMEOUT_S = 10.0

# Sets RLIMIT_AS and becomes the command (argv: limit in bytes, "--", command...).
_LIMIT_CODE = (
    "import os, resource, sys\n"
    "n = int(sys.argv[1])\n"
    "resource.setrlimit(resource.RLIMIT_AS, (n, n))\n"
    "os.execvp(sys.argv[3], sys.argv[3:])\n"
)


def memory_limit() -> int:
    """The address-space limit in bytes (``MEMORY_LIMIT_ENV``, else 4 GiB)."""
    text = os.environ.get(MEMORY_LIMIT_ENV, "").strip()
    try:
        mib = int(text) if text else DEFAULT_MEMORY_LIMIT_MB
    except ValueError:
        mib = DEFAULT_MEMORY_LIMIT_MB
    return max(mib, 64) << 20


def _namespace_forms() -> list[list[str]]:
    unshare = shutil.which("unshare")
    if unshare is None:
        return []
    # util-linux unshare: the forked child execs the command as the namespace's pid 1,
    # with /proc remounted for the namespace; --kill-child ends it if unshare dies.
    common = ["--pid", "--fork", "--mount-proc", "--kill-child"]
    root = [unshare, *common, "--"]
    # Unprivileged: a user namespace mapping the user to itself (not to root, so file
    # permissions mean what they mean outside).
    user = [unshare, "--map-current-user", *common, "--"]
    return [root, user] if os.geteuid() == 0 else [user]


@functools.cache
def namespace_prefix() -> tuple[str, ...] | None:
    """The argv prefix that starts a command as the init of fresh PID and mount
    namespaces, or None where the machine does not allow it (tried once per process)."""
    if os.environ.get(NO_NAMESPACES_ENV, "").strip() not in ("", "0"):
        return None
    for form in _namespace_forms():
        probe = [*form, "/bin/sh", "-c", 'test "$$" = 1']
        with contextlib.suppress(OSError, subprocess.SubprocessError):
            done = subprocess.run(
                probe,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                timeout=_PROBE_TIMEOUT_S,
                check=False,
            )
            if done.returncode == 0:
                return tuple(form)
    return None


def isolation_note() -> str | None:
    """What a report says once when OS-domain cases ran without namespaces (None: they
    had them)."""
    if namespace_prefix() is not None:
        return None
    return (
        "no PID namespaces on this machine (unshare --pid --fork --mount-proc failed, or "
        f"{NO_NAMESPACES_ENV} is set): the platforms' hooks ran without them, so a hook "
        "could still signal any process of this user (kill -9 -1), read "
        "the harness's environment in /proc, and leave a process that outlives its case "
        "by leaving the case root's directory"
    )


def platform_environment(temp: str, *, namespaced: bool) -> dict[str, str]:
    """The whole environment of a confined worker (see the module's docstring)."""
    env = {name: os.environ[name] for name in KEPT if name in os.environ}
    env["PATH"] = PLATFORM_PATH
    env["TMPDIR"] = temp
    env[ISOLATION_ENV] = "namespace" if namespaced else "session"
    return env


def _pid_namespace() -> str:
    """This process's PID namespace (its inode), so that a pid in a folder's name is only
    looked up in the namespace it means: a harness in a container or under ``unshare``
    sharing ``/tmp`` must not take the folders of a live harness outside for dead."""
    try:
        link = os.readlink("/proc/self/ns/pid")  # "pid:[4026531836]"
    except OSError:
        return "0"
    digits = "".join(c for c in link if c.isdigit())
    return digits or "0"


def _own_prefix(pid: int | None = None) -> str:
    return f"{TEMP_PREFIX}{_pid_namespace()}-{os.getpid() if pid is None else pid}-"


class WorkerTemp:
    """One worker's temporary folder: made at spawn, removed when the worker ends."""

    def __init__(self) -> None:
        sweep_stale()
        self.path = tempfile.mkdtemp(prefix=_own_prefix())

    def remove(self) -> None:
        remove_tree(self.path)


def remove_tree(path: str) -> None:
    """Remove ``path`` and everything under it, never following a symlink; a folder a
    hook made unreadable or unwritable (chmod 000) is made ours again and retried.
    Nothing outside ``path`` is touched: a ``path`` already gone (removed twice, or by
    the worker) is no failure, and the folder holding ``path`` (the system's temporary
    folder) keeps its mode."""
    top = os.path.abspath(path)

    def inside(folder: str) -> bool:
        folder = os.path.abspath(folder)
        return folder == top or folder.startswith(top + os.sep)

    def retry(function: Any, failed: str, _: Any) -> None:
        if not os.path.lexists(failed):
            return
        with contextlib.suppress(OSError):
            parent = os.path.dirname(failed)
            if inside(parent) and not os.path.islink(parent):
                os.chmod(parent, 0o700)
            if os.path.isdir(failed) and not os.path.islink(failed):
                os.chmod(failed, 0o700)
                shutil.rmtree(failed, ignore_errors=True)
            else:
                function(failed)

    if sys.version_info >= (3, 12):
        shutil.rmtree(path, onexc=retry)
    else:
        shutil.rmtree(path, onerror=retry)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process: alive
    return True


@functools.cache
def sweep_stale(directory: str | None = None) -> tuple[str, ...]:
    """Remove the worker folders a killed harness left behind (once per process and
    folder): only those named ``hanzo-conformance-<pid namespace>-<pid>-*`` for this
    process's PID namespace, owned by this user, last changed before this harness
    started, whose harness process ``<pid>`` is gone. Returns what was removed."""
    base = Path(directory or tempfile.gettempdir())
    ours = f"{TEMP_PREFIX}{_pid_namespace()}-"
    removed: list[str] = []
    try:
        entries = list(os.scandir(base))
    except OSError:
        return ()
    for entry in entries:
        if not entry.name.startswith(ours):
            continue
        pid_text = entry.name[len(ours) :].partition("-")[0]
        if not pid_text.isdigit() or int(pid_text) == os.getpid():
            continue
        try:
            info = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if (
            not entry.is_dir(follow_symlinks=False)
            or info.st_uid != os.getuid()
            or info.st_mtime >= _STARTED
            or _pid_alive(int(pid_text))
        ):
            continue
        remove_tree(entry.path)
        removed.append(entry.path)
    return tuple(removed)


def limit_prefix(limit: int, *, prlimit: str | None = None) -> list[str]:
    """The argv prefix that runs a command under RLIMIT_AS ``limit``: util-linux
    ``prlimit`` where there is one (``prlimit``: its path, "" for none, None to look
    on ``PATH``), else this Python (which costs an interpreter start per worker)."""
    tool = shutil.which("prlimit") if prlimit is None else prlimit
    if tool:
        return [tool, f"--as={limit}", "--"]
    return [sys.executable, "-I", "-S", "-c", _LIMIT_CODE, str(limit), "--"]


def confined_launch(argv: Sequence[str]) -> tuple[list[str], dict[str, str], WorkerTemp]:
    """The argv, environment and temporary folder a confined worker is started with."""
    temp = WorkerTemp()
    prefix = namespace_prefix()
    command = [*limit_prefix(memory_limit()), *(prefix or ()), *argv]
    return command, platform_environment(temp.path, namespaced=prefix is not None), temp
