"""A device named as a vector, results or ledger file is refused at once with exit 2
(one such read of /dev/zero grew to 24 GB before the kernel killed it)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from runners._cli import main

DEVICE = "/dev/zero"


@pytest.mark.parametrize(
    "argv",
    [
        ["validate", "--vectors", DEVICE],
        ["fmt", "--check", "--vectors", DEVICE],
        ["run", "--platform", "python", "--vectors", DEVICE],
        ["report", DEVICE],
        ["run", "--platform", "python", "--domain", "oauth-pkce", "--expectations", DEVICE],
    ],
)
def test_a_device_is_refused_with_exit_2_and_named(argv: list[str], capsys: Any) -> None:
    assert Path(DEVICE).exists()
    assert main(argv) == 2
    out = capsys.readouterr()
    assert f"{DEVICE}" in out.err + out.out and "not a regular file" in out.err + out.out
