"""The harness's import graph, read from the source with ``ast``: ``adapters/`` (the
platforms and the worker protocol) never imports ``runners/`` (the tool built on them),
and no two modules of ``runners/`` or ``adapters/`` import each other, directly or round
a longer circle. An import inside a function counts (it is an arrow all the same, only
hidden); one under ``if TYPE_CHECKING:`` does not (it never runs)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("runners", "adapters")


def _module_names() -> dict[str, Path]:
    names = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "_data" in path.relative_to(ROOT).parts:
                continue
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            names[".".join(parts)] = path
    return names


def _type_checking_only(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and (
        (isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING")
        or (isinstance(node.test, ast.Attribute) and node.test.attr == "TYPE_CHECKING")
    )


def _imports(tree: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    for node in ast.iter_child_nodes(tree):
        if _type_checking_only(node):
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        yield from _imports(node)


def _arrows(name: str, path: Path, known: set[str]) -> set[str]:
    """The modules of ``known`` that module ``name`` imports."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    targets: set[str] = set()
    for node in _imports(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets.update(alias.name for alias in node.names)
            continue
        base = node.module or ""
        if node.level:
            anchor = package.split(".")
            anchor = anchor[: len(anchor) - (node.level - 1)]
            base = ".".join([*anchor, *([base] if base else [])])
        targets.add(base)
        targets.update(f"{base}.{alias.name}" for alias in node.names)
    found = set()
    for target in targets:
        # The deepest known module the import names (``a.b.c`` may be a name in ``a.b``).
        while target and target not in known:
            target = target.rpartition(".")[0]
        if target and target != name:
            found.add(target)
    return found


def _graph() -> dict[str, set[str]]:
    names = _module_names()
    known = set(names)
    return {name: _arrows(name, path, known) for name, path in names.items()}


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for succ in sorted(graph.get(node, ())):
            if succ not in index:
                visit(succ)
                low[node] = min(low[node], low[succ])
            elif succ in on_stack:
                low[node] = min(low[node], index[succ])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def _without_package_inits(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """The graph without the arrows out of a package's ``__init__`` to its own modules:
    ``runners/__init__.py`` re-exports the public names lazily (PEP 562), which is no
    dependency of those modules on it."""
    return {
        name: {t for t in targets if not t.startswith(name + ".")}
        for name, targets in graph.items()
    }


def test_the_graph_is_read() -> None:
    graph = _graph()
    assert "runners._cli" in graph
    assert "adapters.protocol" in graph["adapters.worker"]
    assert "adapters.process" in graph["adapters.worker"]
    assert "runners.judge.compare" in graph["runners.judge.outcomes"]


def test_adapters_never_import_runners() -> None:
    graph = _graph()
    upward = {
        name: sorted(t for t in targets if t.split(".")[0] == "runners")
        for name, targets in graph.items()
        if name.split(".")[0] == "adapters"
    }
    assert {name: targets for name, targets in upward.items() if targets} == {}


def test_no_import_circle() -> None:
    assert _circles(_without_package_inits(_graph())) == []


def test_a_circle_is_found() -> None:
    """The check itself can fail: a two-module circle and a three-module one are found."""
    assert _circles({"a": {"b"}, "b": {"a"}, "c": {"a"}}) == [["a", "b"]]
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == [["a", "b", "c"]]
