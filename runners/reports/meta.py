"""What a result can be reproduced from: the vectors' version and each platform's build.

Recorded in every results document (``summary.run``) and shown by every report.
"""

from __future__ import annotations

import datetime
import hashlib
import subprocess
from collections.abc import Iterable
from functools import cache
from importlib import metadata
from pathlib import Path
from typing import Any

from adapters.isolation import isolation_note
from adapters.registry import BUILTIN
from adapters.served import OS_DOMAINS

from ..vectors.load import VectorFile

REPO_ROOT = Path(__file__).resolve().parents[2]


@cache
def git_commit(folder: Path = REPO_ROOT) -> str | None:
    """HEAD of the git checkout holding ``folder`` (``+dirty`` if it has changes), or None."""
    try:
        head = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=folder, capture_output=True, text=True, timeout=10
        )
        if head.returncode != 0:
            return None
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=folder,
            capture_output=True,
            text=True,
            timeout=10,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return head.stdout.strip() + ("+dirty" if dirty.stdout.strip() else "")


class VectorsDigest:
    """``vectors_version`` built one file at a time; files must come in domain order."""

    def __init__(self) -> None:
        self._digest = hashlib.sha256()
        self._per_file: dict[str, dict[str, Any]] = {}

    def add(self, vf: VectorFile) -> None:
        self.add_lines(vf.domain, vf.version, len(vf.cases), digest_lines(vf))

    def add_lines(self, domain: str, version: int, count: int, lines: bytes) -> None:
        """A file by its ``digest_lines`` (made where it was loaded: a harness job)."""
        self._digest.update(lines)
        self._per_file[domain] = {
            "format": version,
            "cases": count,
            "sha256": hashlib.sha256(lines).hexdigest(),
        }

    def version(self) -> dict[str, Any]:
        return {"version": self._digest.hexdigest()[:16], "files": dict(self._per_file)}


def digest_lines(vf: VectorFile) -> bytes:
    """What a file adds to the vectors' version: ``domain::id:hash`` lines, by id."""
    return "".join(
        f"{vf.domain}::{case.id}:{case.content_hash()}\n"
        for case in sorted(vf.cases, key=lambda c: c.id)
    ).encode()


def vectors_version(files: Iterable[VectorFile]) -> dict[str, Any]:
    """A version that changes whenever any case does: a hash of every case's content hash."""
    digest = VectorsDigest()
    for vf in sorted(files, key=lambda f: f.domain):
        digest.add(vf)
    return digest.version()


def harness_version() -> str:
    try:
        return metadata.version("hanzo-conformance")
    except metadata.PackageNotFoundError:
        return "unknown"


def run_metadata(files: Iterable[VectorFile] | VectorsDigest) -> dict[str, Any]:
    """``summary.run`` of a results document (from the files, or their digest made as
    a streamed run loaded them)."""
    run: dict[str, Any] = {
        "vectors": files.version() if isinstance(files, VectorsDigest) else vectors_version(files),
        "harness": {"version": harness_version()},
        "finished": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    }
    commit = git_commit()
    if commit:
        run["vectors"]["commit"] = commit
        run["harness"]["commit"] = commit
    return run


def isolation(summary: dict[str, Any]) -> str | None:
    """``summary.run.isolation``: the one note that the OS-domain cases of the harness's
    own platforms ran without PID namespaces (adapters/isolation.py says what that
    costs); None when they had them, or when the run had no such case."""
    ran_os_cases = any(
        platform in BUILTIN and domain in OS_DOMAINS
        for domain, row in summary.get("matrix", {}).items()
        for platform in row
    )
    return isolation_note() if ran_os_cases else None
