"""sandbox-paths JSON layer: build the case's tree in a temporary root, then check or detect.

``{root}`` in any input string is the root's canonical path; in ``resolved`` the
root is written back as ``{root}`` and a path outside it is null (SBX-9).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from typing import Any

from impl_python.sandbox import Sandbox, SandboxConfig, default_mode

from . import case_root

PLACEHOLDER = case_root.PLACEHOLDER


def _bad(message: str) -> ValueError:
    """The harness validated the input against the schema: a mismatch is a bug here."""
    return ValueError(message)


def _str(value: object, what: str) -> str:
    if not isinstance(value, str):
        raise _bad(f"{what} must be a string")
    return value


def build_tree(root: str, entries: object) -> None:
    """Create ``entries`` ({path, kind, target?, content?}) under ``root``, in order,
    each confined to ``root`` (``case_root``: an entry under or on a symlink is refused)."""
    if not isinstance(entries, list):
        raise _bad("input.tree must be a list")
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict):
            raise _bad("tree entries must be objects")
        rel = _str(entry.get("path"), "tree[].path")
        what = f"tree[{index}] {rel!r}"
        parts = case_root.relative_parts(rel, what)
        kind = entry.get("kind")
        if kind == "dir":
            with case_root.directory(root, parts, what):
                continue
        *parents, name = parts
        with case_root.directory(root, parents, what) as parent:
            if kind == "file":
                content = _str(entry.get("content", ""), "tree[].content")
                case_root.write_file(parent, name, content.encode("utf-8"), what)
            elif kind == "symlink":
                target = _str(entry.get("target"), "tree[].target")
                os.symlink(target.replace(PLACEHOLDER, root), name, dir_fd=parent)
            else:
                raise _bad(f"unknown tree kind {kind!r}")


def _relative_to_root(path: str | None, root: str) -> str | None:
    if path is None:
        return None
    if path == root:
        return PLACEHOLDER
    if path.startswith(root + "/"):
        return PLACEHOLDER + path[len(root) :]
    return None


def _check(case_input: dict[str, Any], root: str) -> dict[str, Any]:
    def sub(value: object, what: str) -> str:
        return _str(value, what).replace(PLACEHOLDER, root)

    config = case_input.get("config")
    if not isinstance(config, dict) or not isinstance(config.get("allowed_paths"), list):
        raise _bad("input.config must be {mode, allowed_paths}")
    sandbox = Sandbox(
        SandboxConfig(
            mode=_str(config.get("mode"), "config.mode"),
            allowed_paths=[sub(p, "allowed_paths[]") for p in config["allowed_paths"]],
        ),
        sub(case_input.get("workspace"), "input.workspace"),
    )
    result = sandbox.check(sub(case_input.get("path"), "input.path"))
    return {
        "allowed": result.allowed,
        "reason": result.reason,
        "resolved": _relative_to_root(result.resolved, root),
    }


def _detect(case_input: dict[str, Any], root: str) -> dict[str, Any]:
    env = case_input.get("env")
    if not isinstance(env, dict) or not all(isinstance(v, str) for v in env.values()):
        raise _bad("input.env must map names to strings")
    runtime = Sandbox.detect_container(root, env)
    return {"runtime": runtime, "default_mode": default_mode(runtime).value}


def run(case_input: dict[str, Any]) -> dict[str, Any]:
    """``{op: check_path | detect_container, tree, ...}`` -> the check or the detection."""
    op = case_input.get("op")
    if op not in ("check_path", "detect_container"):
        raise _bad("input.op must be check_path or detect_container")
    root = os.path.realpath(tempfile.mkdtemp(prefix="hanzo-sandbox-"))
    try:
        build_tree(root, case_input.get("tree"))
        return _check(case_input, root) if op == "check_path" else _detect(case_input, root)
    finally:
        shutil.rmtree(root, ignore_errors=True)
