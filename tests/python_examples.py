"""The Python examples under examples/ that need their own interpreter (a package that
requires a newer Python than the harness runs on): found as ci/bootstrap finds Node
(PATH first, then pyenv's versions), and installed once per machine into
examples/<name>/.venv from the example's pinned requirements.txt."""

from __future__ import annotations

import fcntl
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def _version(python: str) -> tuple[int, int] | None:
    try:
        done = subprocess.run(
            [python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    except OSError:
        return None
    match = re.fullmatch(r"(\d+)\.(\d+)", done.stdout.strip())
    return (int(match[1]), int(match[2])) if done.returncode == 0 and match else None


def find_python(at_least: tuple[int, int]) -> str:
    """A Python >= at_least: `python3.N` on PATH (newest first), then pyenv's versions;
    AssertionError naming where it looked when there is none."""
    candidates = [shutil.which(f"python3.{minor}") for minor in range(20, at_least[1] - 1, -1)]
    pyenv = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    if pyenv.is_dir():
        candidates += [str(p) for p in sorted(pyenv.glob("3.*/bin/python3"), reverse=True)]
    for python in filter(None, candidates):
        version = _version(python)
        if version is not None and version >= at_least:
            return python
    raise AssertionError(
        f"no Python >= {at_least[0]}.{at_least[1]}: none as python3.N on PATH or under "
        f"{pyenv}; install one (e.g. Debian's python3.{at_least[1]} or pyenv)"
    )


def installed_python_example(name: str, at_least: tuple[int, int]) -> str:
    """The interpreter of examples/<name>/.venv, with the example's requirements.txt
    installed (xdist workers install it once, one at a time)."""
    example = EXAMPLES / name
    python = example / ".venv" / "bin" / "python"
    stamp = example / ".venv" / "requirements.installed"
    requirements = (example / "requirements.txt").read_text(encoding="utf-8")
    lock = Path(tempfile.gettempdir()) / f"hanzo-conformance-example-{name}.lock"
    with lock.open("w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        if not (stamp.is_file() and stamp.read_text(encoding="utf-8") == requirements):
            subprocess.run(
                [find_python(at_least), "-m", "venv", "--clear", str(python.parent.parent)],
                check=True,
                timeout=300,
            )
            pip = [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
            subprocess.run([*pip, "-r", str(example / "requirements.txt")], check=True, timeout=600)
            stamp.write_text(requirements, encoding="utf-8")
    return str(python)
