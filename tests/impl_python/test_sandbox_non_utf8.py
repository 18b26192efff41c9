"""SBX-8: vectors cannot carry non-UTF-8 names, but the Python library handles them
(str paths with surrogateescape, as os.fsdecode gives them)."""

from __future__ import annotations

import os
from pathlib import Path

from impl_python.sandbox import Sandbox, SandboxConfig


def test_non_utf8_names_are_checked_like_any_other(tmp_path: Path) -> None:
    root = os.path.realpath(tmp_path)
    ws = os.path.join(root, "ws")
    os.mkdir(ws)
    os.mkdir(os.path.join(root, "outside"))
    inside = os.fsdecode(os.path.join(os.fsencode(ws), b"caf\xe9"))  # Latin-1 bytes
    escape = os.fsdecode(os.path.join(os.fsencode(ws), b"\xff-link"))
    os.mkdir(inside)
    os.symlink("../outside", escape)
    sandbox = Sandbox(SandboxConfig("workspace"), ws)

    assert sandbox.check(os.path.join(inside, "new.txt")).resolved == os.path.join(
        inside, "new.txt"
    )
    assert sandbox.check_path(os.path.join(inside, "new.txt"))
    result = sandbox.check(os.path.join(escape, "x"))
    assert (result.allowed, result.reason) == (False, "outside")
    assert result.resolved == os.path.join(root, "outside", "x")
