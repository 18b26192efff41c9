"""Filesystem isolation and container detection (HIP-301 §10, docs/domains/sandbox-paths.md).

Paths are canonicalized by a hand-written walk (SBX-4), not ``os.path.realpath``,
whose treatment of loops and missing components changed across Python versions.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path

from impl_python.errors import HanzoError

CGROUP_READ_LIMIT = 65536
"""SBX-14: the bytes of ``proc/1/cgroup`` read at most (a real one is a few hundred)."""

__all__ = [
    "MAX_SYMLINKS",
    "IsolationMode",
    "PathCheck",
    "Sandbox",
    "SandboxConfig",
    "SandboxError",
    "SymlinkLoopError",
    "canonicalize",
    "default_mode",
    "is_inside",
]

#: SBX-5: links followed in one canonicalization (Linux MAXSYMLINKS).
MAX_SYMLINKS = 40


class SandboxError(HanzoError):
    """Base of the sandbox-paths contract errors."""


class SymlinkLoopError(OSError):
    """More than MAX_SYMLINKS links on the way (SBX-5); not a contract error of its own."""


class IsolationMode(Enum):
    """HIP-301 §10."""

    OFF = "off"
    WORKSPACE_ONLY = "workspace"
    ALLOW_LIST = "allowlist"

    @classmethod
    def parse(cls, value: object) -> IsolationMode:
        """``value`` itself if a mode, else the mode spelled exactly ``value`` (SBX-1)."""
        if isinstance(value, IsolationMode):
            return value
        for mode in cls:
            if mode.value == value:
                return mode
        raise SandboxError(f"invalid isolation mode {value!r}", code="invalid_mode")


@dataclass(frozen=True)
class SandboxConfig:
    """HIP-301's SandboxConfig; ``mode`` may be given as its string (checked by Sandbox)."""

    mode: IsolationMode | str = IsolationMode.WORKSPACE_ONLY
    allowed_paths: Sequence[str] = field(default_factory=list)


@dataclass(frozen=True)
class PathCheck:
    """The result of one check (SBX-9)."""

    allowed: bool
    reason: str
    resolved: str | None


def _components(path: str) -> list[str]:
    return [part for part in path.split("/") if part not in ("", ".")]


def canonicalize(path: str, base: str) -> str:
    """The SBX-4 walk; relative ``path`` starts at ``base`` (itself canonical).

    Raises SymlinkLoopError when a 41st link would be followed (SBX-5).
    """
    current = "/" if path.startswith("/") else base
    pending = _components(path)
    pending.reverse()  # a stack: the next component is pending[-1]
    followed = 0
    while pending:
        name = pending.pop()
        if name == "..":
            current = os.path.dirname(current)
            continue
        candidate = current.rstrip("/") + "/" + name
        try:
            mode = os.lstat(candidate).st_mode
        except OSError:  # missing, under a file, unreadable: taken literally
            current = candidate
            continue
        if not stat.S_ISLNK(mode):
            current = candidate
            continue
        followed += 1
        if followed > MAX_SYMLINKS:
            raise SymlinkLoopError(f"more than {MAX_SYMLINKS} symbolic links in {path!r}")
        target = os.readlink(candidate)
        if target.startswith("/"):
            current = "/"
        pending.extend(reversed(_components(target)))
    return current


def is_inside(path: str, directory: str) -> bool:
    """SBX-11: whole-component prefix test on canonical paths."""
    return directory == "/" or path == directory or path.startswith(directory + "/")


def _valid(path: str) -> bool:
    return path != "" and "\0" not in path


class Sandbox:
    """Filesystem isolation for one workspace (HIP-301 §10)."""

    def __init__(self, config: SandboxConfig, workspace: Path | str) -> None:
        self.mode = IsolationMode.parse(config.mode)
        ws = os.fspath(workspace)
        if not _valid(ws) or not ws.startswith("/"):
            raise SandboxError(f"workspace must be absolute: {ws!r}", code="invalid_workspace")
        try:
            self.workspace = canonicalize(ws, "/")
        except SymlinkLoopError as e:
            raise SandboxError(str(e), code="invalid_workspace") from e
        if not os.path.isdir(self.workspace):
            raise SandboxError(f"workspace is not a directory: {ws!r}", code="invalid_workspace")
        self.allowed_paths = tuple(self._allowed(entry) for entry in config.allowed_paths)

    def _allowed(self, entry: str) -> str:
        if not _valid(entry):
            raise SandboxError(f"invalid allowed path {entry!r}", code="invalid_allowed_path")
        try:
            return canonicalize(entry, self.workspace)
        except SymlinkLoopError as e:
            raise SandboxError(str(e), code="invalid_allowed_path") from e

    def check(self, path: Path | str) -> PathCheck:
        """Decide ``path`` (SBX-9..SBX-13); never raises."""
        if self.mode is IsolationMode.OFF:
            return PathCheck(True, "isolation_off", None)
        text = os.fspath(path)
        if not _valid(text):
            return PathCheck(False, "invalid_path", None)
        try:
            resolved = canonicalize(text, self.workspace)
        except SymlinkLoopError:
            return PathCheck(False, "symlink_loop", None)
        if self.mode is IsolationMode.WORKSPACE_ONLY:
            inside = is_inside(resolved, self.workspace)
            return PathCheck(inside, "in_workspace" if inside else "outside", resolved)
        inside = any(is_inside(resolved, entry) for entry in self.allowed_paths)
        return PathCheck(inside, "in_allowed_path" if inside else "outside", resolved)

    def check_path(self, path: Path | str) -> bool:
        """HIP-301: True if the path is allowed under the current isolation mode."""
        return self.check(path).allowed

    @staticmethod
    def detect_container(
        root: Path | str = "/", env: Mapping[str, str] | None = None
    ) -> str | None:
        """'docker', 'podman', 'k8s' or None, looking in SBX-14's order."""
        environ = os.environ if env is None else env
        base = Path(root)
        try:
            # Bytes, not read_text: universal newlines would make a CR end a line (SBX-14: LF only);
            # at most CGROUP_READ_LIMIT of them (a link to /dev/zero must not be read without end).
            with open(base / "proc/1/cgroup", "rb") as stream:
                cgroup = stream.read(CGROUP_READ_LIMIT).decode("utf-8", errors="replace")
        except OSError:
            cgroup = ""
        paths = [line.split(":", 2)[2] for line in cgroup.split("\n") if line.count(":") >= 2]
        for needle, runtime in (("kubepods", "k8s"), ("docker", "docker"), ("libpod", "podman")):
            if any(needle in p for p in paths):
                return runtime
        if os.path.lexists(base / ".dockerenv"):
            return "docker"
        if os.path.lexists(base / "run/.containerenv"):
            return "podman"
        if environ.get("KUBERNETES_SERVICE_HOST"):
            return "k8s"
        return None


def default_mode(container: str | None) -> IsolationMode:
    """SBX-15: off inside a container, workspace otherwise."""
    return IsolationMode.OFF if container is not None else IsolationMode.WORKSPACE_ONLY
