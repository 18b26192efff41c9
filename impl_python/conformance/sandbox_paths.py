"""sandbox-paths JSON layer: build the case's tree in a temporary root, then check or detect.

``layout.lay_out`` lays the case out (it calls ``build_tree`` here): ``{root}`` in any
input string is the root's canonical path; in ``resolved`` the root is written back as
``{root}`` and a path outside it is null (SBX-9).
"""

from __future__ import annotations

import os
from typing import Any

from impl_python.sandbox import Sandbox, SandboxConfig, default_mode

from . import case_root, layout

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


def _check(case_input: dict[str, Any]) -> dict[str, Any]:
    config = case_input["config"]
    sandbox = Sandbox(
        SandboxConfig(mode=config["mode"], allowed_paths=list(config["allowed_paths"])),
        case_input["workspace"],
    )
    result = sandbox.check(case_input["path"])
    return {"allowed": result.allowed, "reason": result.reason, "resolved": result.resolved}


def _detect(case_input: dict[str, Any]) -> dict[str, Any]:
    env = case_input.get("env")
    if not isinstance(env, dict) or not all(isinstance(v, str) for v in env.values()):
        raise _bad("input.env must map names to strings")
    runtime = Sandbox.detect_container(case_input["root"], env)
    return {"runtime": runtime, "default_mode": default_mode(runtime).value}


def run_laid(case_input: dict[str, Any]) -> dict[str, Any]:
    """The laid-out case (``layout.lay_out``) -> the check (``resolved`` a concrete
    path) or the detection."""
    return _check(case_input) if case_input["op"] == "check_path" else _detect(case_input)


def run(case_input: dict[str, Any]) -> dict[str, Any]:
    """``{op: check_path | detect_container, tree, ...}`` -> the check or the detection."""
    with layout.laid("sandbox-paths", case_input) as case:
        return case.finish(run_laid(case.input))
