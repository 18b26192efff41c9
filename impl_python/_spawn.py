"""Starting a hook process with the C library's posix_spawn(3), through ctypes.

A hook starts in a new session, in the runner's working directory, with stdin and
stdout on /dev/null, stderr on a pipe (HOOK-4), signals 1..31 at their default
disposition and an empty signal mask (HOOK-14). The standard library cannot do all
of that safely in a process with threads (the served python platform has one):

- ``subprocess.Popen`` passes an inherited ignore and the signal mask on
  (``restore_signals`` resets only SIGPIPE and SIGXFSZ, which Python itself ignores),
  and its ``preexec_fn`` runs Python code between fork and exec, which the
  documentation calls not safe in the presence of threads;
- ``os.posix_spawn`` has ``setsigdef``, ``setsigmask`` and ``setsid`` but no
  working-directory action.

The C library's posix_spawn has all of them (``posix_spawn_file_actions_addchdir_np``:
glibc 2.29+, musl 1.1.24+), and sets the child up between fork and exec with no
Python code there. Linux only, like the hooks domain.
"""

from __future__ import annotations

import ctypes
import functools
import os
from collections.abc import Iterable, Mapping, Sequence

__all__ = ["spawn_in_new_session"]

# posix_spawnattr flags, the same values in glibc and musl.
_SETSIGDEF = 0x04
_SETSIGMASK = 0x08
_SETSID = 0x80
# The C types are opaque here; these buffers have room to spare (glibc:
# posix_spawnattr_t 336 bytes, posix_spawn_file_actions_t 80, sigset_t 128).
_OPAQUE_BYTES = 1024

_P = ctypes.c_void_p
_INT = ctypes.c_int
_TEXT = ctypes.c_char_p
_PROTOTYPES: dict[str, list[type]] = {
    "posix_spawn": [ctypes.POINTER(_INT), _TEXT, _P, _P, _P, _P],
    "posix_spawn_file_actions_init": [_P],
    "posix_spawn_file_actions_destroy": [_P],
    "posix_spawn_file_actions_addopen": [_P, _INT, _TEXT, _INT, ctypes.c_uint],
    "posix_spawn_file_actions_adddup2": [_P, _INT, _INT],
    "posix_spawn_file_actions_addchdir_np": [_P, _TEXT],
    "posix_spawnattr_init": [_P],
    "posix_spawnattr_destroy": [_P],
    "posix_spawnattr_setflags": [_P, ctypes.c_short],
    "posix_spawnattr_setsigdefault": [_P, _P],
    "posix_spawnattr_setsigmask": [_P, _P],
    "sigemptyset": [_P],
    "sigaddset": [_P, _INT],
}


@functools.cache
def _libc() -> ctypes.CDLL:
    libc = ctypes.CDLL(None, use_errno=True)  # the C library this process already has
    for name, argtypes in _PROTOTYPES.items():
        try:
            function = getattr(libc, name)
        except AttributeError:
            raise RuntimeError(f"the C library has no {name} (hooks need glibc 2.29+)") from None
        function.argtypes = argtypes
        function.restype = _INT
    return libc


def _check(error: int) -> None:
    """posix_spawn* return an error number (0: success)."""
    if error:
        raise OSError(error, os.strerror(error))


def _check_errno(result: int) -> None:
    """sig*set return -1 and set errno."""
    if result == -1:
        error = ctypes.get_errno()
        raise OSError(error, os.strerror(error))


def _c_strings(items: Sequence[bytes]) -> ctypes.Array[ctypes.c_char_p]:
    """A NULL-terminated ``char *[]``; a NUL inside an item would cut it silently."""
    for item in items:
        if b"\0" in item:
            raise ValueError(f"embedded NUL in {item[:40]!r}")
    return (ctypes.c_char_p * (len(items) + 1))(*items, None)


def _environment(env: Mapping[str, str]) -> list[bytes]:
    entries = []
    for name, value in env.items():
        if "=" in name:  # as subprocess refuses it
            raise ValueError(f"illegal environment variable name {name!r}")
        entries.append(os.fsencode(name) + b"=" + os.fsencode(value))
    return entries


def _sigset(libc: ctypes.CDLL, signals: Iterable[int]) -> ctypes.Array[ctypes.c_char]:
    sigset = ctypes.create_string_buffer(_OPAQUE_BYTES)
    _check_errno(libc.sigemptyset(sigset))
    for signal_number in signals:
        _check_errno(libc.sigaddset(sigset, signal_number))
    return sigset


def spawn_in_new_session(
    argv: Sequence[str],
    *,
    env: Mapping[str, str],
    cwd: str | None,
    stderr_fd: int,
    default_signals: Iterable[int],
) -> int:
    """Start ``argv`` (``argv[0]`` an absolute path) and return its pid.

    The child is the leader of a new session, in ``cwd`` (if given) with exactly
    ``env``, stdin and stdout on /dev/null, stderr on ``stderr_fd``, the signals
    ``default_signals`` at their default disposition and an empty signal mask.
    Other descriptors follow their close-on-exec flag (Python opens every descriptor
    close-on-exec). OSError (the child's errno) when it cannot be started: no such
    program, no such working directory.
    """
    libc = _libc()
    args = _c_strings([os.fsencode(arg) for arg in argv])
    envp = _c_strings(_environment(env))
    actions = ctypes.create_string_buffer(_OPAQUE_BYTES)
    attributes = ctypes.create_string_buffer(_OPAQUE_BYTES)
    _check(libc.posix_spawn_file_actions_init(actions))
    try:
        _check(libc.posix_spawnattr_init(attributes))
        try:
            devnull = os.fsencode(os.devnull)
            # stderr first: stderr_fd may be 0 or 1 when this process has those closed.
            _check(libc.posix_spawn_file_actions_adddup2(actions, stderr_fd, 2))
            _check(libc.posix_spawn_file_actions_addopen(actions, 0, devnull, os.O_RDONLY, 0))
            _check(libc.posix_spawn_file_actions_addopen(actions, 1, devnull, os.O_WRONLY, 0))
            if cwd is not None:
                _check(libc.posix_spawn_file_actions_addchdir_np(actions, os.fsencode(cwd)))
            _check(libc.posix_spawnattr_setflags(attributes, _SETSID | _SETSIGDEF | _SETSIGMASK))
            _check(libc.posix_spawnattr_setsigdefault(attributes, _sigset(libc, default_signals)))
            _check(libc.posix_spawnattr_setsigmask(attributes, _sigset(libc, ())))
            pid = ctypes.c_int()
            path = os.fsencode(argv[0])
            _check(libc.posix_spawn(ctypes.byref(pid), path, actions, attributes, args, envp))
            return pid.value
        finally:
            libc.posix_spawnattr_destroy(attributes)
    finally:
        libc.posix_spawn_file_actions_destroy(actions)
