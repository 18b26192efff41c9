"""Confinement of what an OS-domain case writes to its case root (docs/protocol.md,
"Case roots: what an OS-domain case writes").

Every path a case creates or writes (a tree entry, a hook's working directory) is
relative to the case root, has no empty, ``.`` or ``..`` component, and is reached
from the root one directory at a time (``dir_fd``, ``O_NOFOLLOW``) without following
a symlink: a component that is a symlink or not a directory is refused, and a file
is never opened for writing through a symlink. A symlink may *point* anywhere (it is
sandbox-paths' test material); nothing is ever created or written through one.

A refusal is an :class:`EscapeRefused` (a ``ValueError``: the case is malformed, the
served child answers it as a crash naming the entry), never a contract error.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager

PLACEHOLDER = "{root}"
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_WRITE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC


class EscapeRefused(ValueError):
    """A case would create or write something outside its case root."""


def refuse(what: str, problem: str) -> EscapeRefused:
    return EscapeRefused(
        f"{what}: {problem}; a case creates and writes only inside its case root,"
        " never through a symlink (the case is malformed)"
    )


def relative_parts(rel: str, what: str) -> list[str]:
    """``rel``'s components, refusing an absolute path and empty, ``.``, ``..`` components."""
    if rel.startswith("/"):
        raise refuse(what, f"{rel!r} is absolute")
    parts = rel.split("/")
    if "\0" in rel or any(p in ("", ".", "..") for p in parts):
        raise refuse(what, f"{rel!r} is not a plain relative path (empty, '.' or '..' component)")
    return parts


def _kind(dir_fd: int, name: str) -> int | None:
    """The file type bits of ``name`` in ``dir_fd`` (links not followed), None if absent."""
    try:
        return stat.S_IFMT(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode)
    except FileNotFoundError:
        return None


@contextmanager
def directory(root: str, parts: list[str], what: str) -> Iterator[int]:
    """A descriptor of ``root/parts...``, each missing directory made, none a symlink."""
    fd = os.open(root, _DIR_FLAGS & ~os.O_NOFOLLOW)
    try:
        for depth, name in enumerate(parts):
            kind = _kind(fd, name)
            if kind is None:
                os.mkdir(name, dir_fd=fd)
            elif kind == stat.S_IFLNK:
                raise refuse(what, f"{'/'.join(parts[: depth + 1])!r} is a symlink")
            elif kind != stat.S_IFDIR:
                raise refuse(what, f"{'/'.join(parts[: depth + 1])!r} is not a directory")
            try:
                inner = os.open(name, _DIR_FLAGS, dir_fd=fd)
            except OSError as e:  # replaced since the check: still never followed
                if e.errno in (errno.ELOOP, errno.ENOTDIR):
                    raise refuse(what, f"{'/'.join(parts[: depth + 1])!r} is a symlink") from e
                raise
            os.close(fd)
            fd = inner
        yield fd
    finally:
        os.close(fd)


def make_dirs(root: str, rel: str, what: str) -> None:
    """``root/rel`` and its parents as directories, none through a symlink."""
    with directory(root, relative_parts(rel, what) if rel else [], what):
        pass


def write_file(dir_fd: int, name: str, data: bytes, what: str) -> None:
    """``name`` in ``dir_fd`` created or truncated with ``data``; never through a symlink."""
    if _kind(dir_fd, name) == stat.S_IFLNK:
        raise refuse(what, f"{name!r} is a symlink, and a file is never written through one")
    try:
        fd = os.open(name, _WRITE_FLAGS, 0o666, dir_fd=dir_fd)
    except OSError as e:
        if e.errno == errno.ELOOP:
            raise refuse(what, f"{name!r} is a symlink") from e
        raise
    with os.fdopen(fd, "wb") as f:
        f.write(data)


def under_root(path: str, root: str, what: str) -> str:
    """``path`` (placeholders substituted) relative to ``root``: "" for the root itself;
    refused unless it is the root or a plain path under it."""
    if path == root:
        return ""
    if not path.startswith(root + "/"):
        raise refuse(what, f"{path!r} is not under {PLACEHOLDER}")
    rel = path[len(root) + 1 :]
    relative_parts(rel, what)
    return rel
