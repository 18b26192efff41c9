"""Where a run writes its results: checked before the run, and never lost after it; and
how every file the harness writes is written (``write_atomically``)."""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import IO

from .exceptions import HarnessError


class OutputUnwritable(HarnessError):
    """``--output`` names a place the results cannot be written to."""


def refuse_inputs(output: Path, inputs: Iterable[tuple[str, Path]]) -> None:
    """Raise OutputUnwritable if ``output`` is one of the command's own inputs (a vector
    file, a ledger, the results a report reads): writing it would destroy that input."""
    try:
        target = output.resolve()
    except OSError:
        return
    for what, path in inputs:
        try:
            same = path.resolve() == target
        except OSError:
            continue
        if same:
            raise OutputUnwritable(f"cannot write results to {output}: it is {what} {path}")


def check_writable(path: Path) -> None:
    """Raise OutputUnwritable unless ``path`` can be written, without changing it.

    Checked by doing, not by permission bits (root passes ``os.access`` on a
    read-only file system): a probe file in the folder, or opening the existing file.
    """
    where = f"cannot write results to {path}"
    parent = path.parent if str(path.parent) else Path(".")
    if path.is_dir():
        raise OutputUnwritable(f"{where}: it is a folder")
    if not parent.is_dir():
        raise OutputUnwritable(f"{where}: folder {parent} does not exist")
    try:
        if path.exists():
            mode = path.stat().st_mode
            if stat.S_ISREG(mode):
                with open(path, "r+b"):
                    pass
            else:
                # A device or pipe: what matters is whether a write goes through
                # (/dev/full refuses every write; /dev/null takes it).
                with open(path, "wb") as stream:
                    stream.write(b"\n")
                    stream.flush()
        else:
            with tempfile.NamedTemporaryFile(dir=parent, prefix=".hanzo-conformance-probe-"):
                pass
    except OSError as e:
        raise OutputUnwritable(f"{where}: {e.strerror or e}") from None


def _write(stream: IO[str], text: str) -> None:
    stream.write(text)
    stream.flush()


def write_atomically(path: Path, text: str, errors: str = "strict") -> None:
    """Write ``text`` to a temporary file beside ``path``, then rename it over ``path``: a
    write that fails (a full disk) leaves the old file as it was and no partial one
    (OutputUnwritable, saying so). A device or pipe (``/dev/stdout``) is written
    directly; through a symlink, its target is replaced."""
    try:
        _write_atomically(path, text, errors)
    except OSError as e:
        kept = " (the file there is unchanged)" if path.exists() else ""
        raise OutputUnwritable(f"cannot write {path}: {e.strerror or e}{kept}") from None


def _write_atomically(path: Path, text: str, errors: str) -> None:
    if path.exists() and not path.is_file():
        with open(path, "w", encoding="utf-8", errors=errors) as stream:
            _write(stream, text)
        return
    target = path.resolve() if path.is_symlink() else path
    mode = stat.S_IMODE(target.stat().st_mode) if target.exists() else 0o644
    fd, staged = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", errors=errors) as stream:
            _write(stream, text)
            os.fsync(stream.fileno())
        os.chmod(staged, mode)
        os.replace(staged, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(staged)
        raise


def write_results(path: Path, text: str) -> str | None:
    """Write ``text`` to ``path``; the error message if it could not be written.

    backslashreplace: a lone surrogate left in some message becomes a JSON ``\\u``
    escape instead of turning a finished run into an encoding error.
    """
    try:
        write_atomically(path, text, errors="backslashreplace")
    except OutputUnwritable as e:
        return f"hanzo-conformance: the results could not be written: {e}"
    return None
