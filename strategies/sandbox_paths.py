"""sandbox-paths: real trees with symlinks that leave and re-enter the workspace, loops,
dangling links, `..` past the root, names that share a prefix with the workspace,
`~` and `$HOME` as plain names, NUL and empty paths, allowlists with relative and
looping entries; and container detection from a fake root.

Every input builds a small tree (at most nine entries) in a fresh temporary
directory on every platform; the harness layer removes it afterwards.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from . import Reader, Response, records

# Files that may exist (each in its own directory, so no entry is ever under a file).
FILES = ("ws/a.txt", "ws/sub/b.txt", "ws2/s.txt", "out/s.txt")
# Link slots and the targets a link may have: out and back in, absolute, loops
# (l1 <-> l2, a link to itself), dangling, the root, a file.
LINKS = ("ws/l1", "ws/l2", "ws/sub/l3", "out/l4", "wslink")
TARGETS = (
    "../out",
    "{root}/out",
    "l2",
    "l1",
    "l3",
    "..",
    "../ws2",
    "sub",
    "../../",
    "/",
    "a.txt",
    "../out/new.txt",
    "{root}/ws/sub",
    "../ws/../out",
    "ws",
    "../out/l4",
    "{root}/ws-old",
)
COMPONENTS = (
    "",
    "ws",
    "a.txt",
    "sub",
    "b.txt",
    "l1",
    "l2",
    "l3",
    "..",
    ".",
    "out",
    "s.txt",
    "ws2",
    "wslink",
    "~",
    "$HOME",
    "new.txt",
    "ws-old",
    "l4",
    "..",
    "../ws2",
    "../ws-old",
)
MODES = ("workspace",) * 4 + ("allowlist",) * 4 + ("off", "Workspace")
ALLOWED = (
    ".",
    "../out",
    "{root}/ws2",
    "sub",
    "../ws-old",
    "l1",
    "{root}/ws/l2",
    ".",
    "",
    "a\u0000",
)
INVALID_PATHS = ("", "ws/a\u0000b", "{root}/ws/\u0000")
WORKSPACES = ("{root}/ws",) * 6 + ("{root}/wslink", "{root}/ws/sub/..", "ws", "{root}/missing")
CGROUP_LINES = (
    "12:pids:/docker/abc123",
    "0::/kubepods/besteffort/pod1/docker-abc.scope",
    "0::/machine.slice/libpod-abc.scope",
    "0::/user.slice",
    "docker",
    "1:name=systemd:/",
)


def _tree(r: Reader) -> list[dict[str, Any]]:
    present, links = r.byte(), r.byte()
    tree: list[dict[str, Any]] = [{"path": "ws", "kind": "dir"}]
    tree += [{"path": f, "kind": "file"} for i, f in enumerate(FILES) if present >> i & 1]
    for i, link in enumerate(LINKS):
        target = r.byte()
        if links >> i & 1:
            tree.append({"path": link, "kind": "symlink", "target": TARGETS[target % len(TARGETS)]})
    return tree


def _path(r: Reader) -> str:
    kind, count = r.byte(), r.byte()
    parts = [COMPONENTS[b % len(COMPONENTS)] for b in r.take(5)][: 1 + count % 5]
    if kind % 16 == 15:
        return INVALID_PATHS[(kind >> 4) % len(INVALID_PATHS)]  # SBX-6
    path = "/".join(parts)
    return f"{{root}}/{path}" if kind & 1 else path


def _check(r: Reader) -> dict[str, Any]:
    mode_b, allowed_b, workspace_b = r.take(3)
    tree = _tree(r)
    allowed = [ALLOWED[b % len(ALLOWED)] for b in r.take(2)][: allowed_b % 3]
    return {
        "op": "check_path",
        "tree": tree,
        "workspace": WORKSPACES[workspace_b % len(WORKSPACES)],
        "config": {"mode": MODES[mode_b % len(MODES)], "allowed_paths": allowed},
        "path": _path(r),
    }


def _detect(r: Reader) -> dict[str, Any]:
    flags, lines_b = r.take(2)
    tree: list[dict[str, Any]] = []
    if flags & 1:
        lines = [CGROUP_LINES[b % len(CGROUP_LINES)] for b in r.take(2)][: 1 + (lines_b & 1)]
        tree.append({"path": "proc/1/cgroup", "kind": "file", "content": "\n".join(lines)})
    if flags & 2:
        tree.append({"path": ".dockerenv", "kind": "dir" if flags & 16 else "file"})
    if flags & 4:
        tree.append({"path": "run/.containerenv", "kind": "file"})
    env = {"KUBERNETES_SERVICE_HOST": ("10.0.0.1", "")[flags >> 5 & 1]} if flags & 8 else {}
    return {"op": "detect_container", "tree": tree, "env": env}


# The operation, then enough for either: a check (3 + 2 + 5 + 2 + 7) or a detection.
RECORD = 1 + 19


def decode(record: bytes) -> dict[str, Any]:
    r = Reader(record[1:])
    return _detect(r) if record[0] % 8 == 7 else _check(r)


def inputs() -> st.SearchStrategy[dict[str, Any]]:
    return records(RECORD, decode)


_ERROR_CLAUSES = {
    "invalid_mode": "SBX-1",
    "invalid_workspace": "SBX-2",
    "invalid_allowed_path": "SBX-3",
}
_REASON_CLAUSES = {
    "symlink_loop": "SBX-5",
    "invalid_path": "SBX-6",
    "isolation_off": "SBX-10",
    "in_workspace": "SBX-12",
    "in_allowed_path": "SBX-13",
}


def clauses(case_input: Any, response: Response) -> set[str]:
    if "error" in response:
        return {_ERROR_CLAUSES.get(response["error"].get("code"), "SBX-1")}
    output = response.get("output") or {}
    if case_input["op"] == "detect_container":
        return {"SBX-14", "SBX-15"}
    found = {"SBX-1", "SBX-2", "SBX-9"}
    mode = case_input["config"]["mode"]
    if mode == "allowlist":
        found |= {"SBX-3", "SBX-13"}
    if output.get("resolved") is not None or output.get("reason") == "outside":
        found |= {"SBX-4", "SBX-11"}
        found.add("SBX-12" if mode == "workspace" else "SBX-13")
    if "~" in case_input["path"] or "$" in case_input["path"]:
        found.add("SBX-7")
    reason = output.get("reason")
    if reason in _REASON_CLAUSES:
        found.add(_REASON_CLAUSES[reason])
    return found


PROPERTIES = ()
