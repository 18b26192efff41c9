"""What ``validate`` can see of a case writing outside its case root (docs/protocol.md,
"Case roots: what an OS-domain case writes"): a tree entry whose path is not plain or that
is, or lies under, a path an earlier entry made a symlink; a hooks ``cwd`` not under
``{root}``; a ``record`` fixture given a name that is a path.

The platforms' JSON layers enforce the same rule at run time (the Python reference's
``impl_python/conformance/case_root.py`` owns the path rules, used here as they are);
this module refuses what is visible in the data, so such a file never runs.
"""

from __future__ import annotations

import itertools
import shlex
from collections.abc import Iterator
from typing import Any

from impl_python.conformance.case_root import PLACEHOLDER, EscapeRefused, relative_parts, under_root

# The domains whose cases write to a case root, and where their trees are.
_TREES = {"sandbox-paths": ("tree",), "tool-call-pipeline": ("sandbox", "tree")}
_HOOKED = ("hooks", "tool-call-pipeline")
CONFINED_DOMAINS = frozenset(_TREES) | frozenset(_HOOKED)
_RECORD = "{fixtures}/record"
_SHELL_PUNCTUATION = frozenset("();<>|&")


def problems(domain: str, case_input: Any) -> Iterator[tuple[str, str]]:
    """(JSON pointer within the input, message) for each escape ``case_input`` shows."""
    if domain not in CONFINED_DOMAINS or not isinstance(case_input, dict):
        return
    if domain in _TREES:
        keys = _TREES[domain]
        tree: Any = case_input
        for key in keys:
            tree = tree.get(key) if isinstance(tree, dict) else None
        if isinstance(tree, list):
            base = "".join(f"/{key}" for key in keys)
            yield from _tree_problems(base, tree)
    if domain == "hooks" and isinstance(case_input.get("cwd"), str):
        # {fixtures} is an absolute path: under {root} it is one more '/' (refused).
        cwd = case_input["cwd"].replace("{fixtures}", "/{fixtures}")
        try:
            under_root(cwd, PLACEHOLDER, "input.cwd")
        except EscapeRefused as e:
            yield "/cwd", str(e)
    hooks = case_input.get("hooks")
    if domain in _HOOKED and isinstance(hooks, list):
        for index, hook in enumerate(hooks):
            command = hook.get("command") if isinstance(hook, dict) else None
            for name in _record_names(command) if isinstance(command, str) else ():
                yield (
                    f"/hooks/{index}/command",
                    f"the record fixture is given {name!r}, which is not a file name in the"
                    " hook's working directory (a name with no '/', not '.' or '..');"
                    " a case writes only inside its case root (the case is malformed)",
                )


def _tree_problems(base: str, tree: list[Any]) -> Iterator[tuple[str, str]]:
    links: dict[tuple[str, ...], int] = {}  # an earlier symlink entry's components: its index
    for index, entry in enumerate(tree):
        rel = entry.get("path") if isinstance(entry, dict) else None
        if not isinstance(rel, str) or rel == "":
            continue  # the schema says
        where = f"{base}/{index}/path"
        try:
            parts = tuple(relative_parts(rel, "tree entry"))
        except EscapeRefused as e:
            yield where, str(e)
            continue
        for depth in range(1, len(parts) + 1):
            link = links.get(parts[:depth])
            if link is not None:
                made = "/".join(parts[:depth])
                relation = "is" if depth == len(parts) else "lies under"
                yield (
                    where,
                    f"tree entry {rel!r} {relation} {made!r}, which {base}/{link} made a"
                    " symlink: nothing is created or written through a symlink; a case"
                    " writes only inside its case root (the case is malformed)",
                )
                break
        if entry.get("kind") == "symlink":
            links.setdefault(parts, index)


def _record_names(command: str) -> Iterator[str]:
    """Each name the command gives the record fixture that is a path; a name made by
    the shell ($VAR, `...`) is left to the fixture, which refuses it at run time."""
    if _RECORD not in command:
        return
    lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        words = list(lexer)
    except ValueError:  # unbalanced quotes: the shell will say
        return
    for word, following in itertools.pairwise(words):
        if word != _RECORD or (following and set(following) <= _SHELL_PUNCTUATION):
            continue
        if "$" in following or "`" in following:
            continue
        if following in ("", ".", "..") or "/" in following:
            yield following
