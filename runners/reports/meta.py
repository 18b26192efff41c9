"""What a result can be reproduced from: the vectors' version and each platform's build.

Recorded in every results document (``summary.run``) and shown by every report.
"""

from __future__ import annotations

import datetime
import hashlib
import heapq
import subprocess
from collections.abc import Iterable, Iterator
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
    """``vectors_version`` built one file at a time; files must come in domain order.

    A file read in parts (``VectorFile.first_case`` above 0 after its first) adds each
    part's lines; they are merged in id order when the next file comes (or the version is
    asked for), so the version is the one the file loaded whole gives."""

    def __init__(self) -> None:
        self._digest = hashlib.sha256()
        self._per_file: dict[str, dict[str, Any]] = {}
        self._parts: list[bytes] = []
        self._file: tuple[str, int] | None = None
        self._cases = 0

    def add(self, vf: VectorFile) -> None:
        self.add_lines(vf.domain, vf.version, len(vf.cases), digest_lines(vf), vf.first_case > 0)

    def add_lines(
        self, domain: str, version: int, count: int, lines: bytes, continued: bool = False
    ) -> None:
        """A file (or, ``continued``, a later part of the file before) by its
        ``digest_lines`` (made where it was loaded: a harness job)."""
        if not continued:
            self._close()
            self._file = (domain, version)
        self._parts.append(lines)
        self._cases += count

    def _close(self) -> None:
        if self._file is None:
            return
        domain, version = self._file
        parts, self._parts, self._file = self._parts, [], None
        lines = parts[0] if len(parts) == 1 else b"".join(_merged(parts, len(domain) + 2))
        self._digest.update(lines)
        self._per_file[domain] = {
            "format": version,
            "cases": self._cases,
            "sha256": hashlib.sha256(lines).hexdigest(),
        }
        self._cases = 0

    def version(self) -> dict[str, Any]:
        self._close()
        return {"version": self._digest.hexdigest()[:16], "files": dict(self._per_file)}


def _merged(parts: list[bytes], id_at: int) -> Iterator[bytes]:
    """The lines of ``parts`` (each in id order) in id order (an id is a line's text from
    ``id_at`` to its last colon: the content hash, hex, has none)."""

    def lines(part: bytes) -> Iterator[bytes]:
        at = 0
        while at < len(part):
            end = part.index(b"\n", at) + 1
            yield part[at:end]
            at = end

    def case_id(line: bytes) -> str:
        return line[id_at : line.rindex(b":")].decode("utf-8")

    return heapq.merge(*map(lines, parts), key=case_id)


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
