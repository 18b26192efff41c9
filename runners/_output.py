"""Where a run writes its results: checked before the run, and never lost after it."""

from __future__ import annotations

import stat
import tempfile
from collections.abc import Iterable
from pathlib import Path

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


def write_results(path: Path, text: str) -> str | None:
    """Write ``text`` to ``path``; the error message if it could not be written.

    backslashreplace: a lone surrogate left in some message becomes a JSON ``\\u``
    escape instead of turning a finished run into an encoding error.
    """
    try:
        with open(path, "w", encoding="utf-8", errors="backslashreplace") as stream:
            stream.write(text)
            stream.flush()
    except OSError as e:
        return f"hanzo-conformance: the results could not be written to {path}: {e.strerror or e}"
    return None
