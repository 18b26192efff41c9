"""The ``Adapter`` protocol declares every member the harness uses, so no caller asks an
adapter what it is: every built-in adapter and ``BaseAdapter`` satisfy it, and no
module of ``runners/`` or ``adapters/`` probes an adapter with ``getattr``/``hasattr`` or
tells adapters apart with ``isinstance`` on a class of ``adapters/``."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from adapters.protocol import Adapter, BaseAdapter, Implementation
from adapters.python import PythonAdapter
from adapters.rust import RustAdapter
from adapters.worker import WorkerAdapter

ROOT = Path(__file__).resolve().parent.parent
ADAPTER_CLASSES = {"Adapter", "BaseAdapter", "WorkerAdapter", "PythonAdapter", "RustAdapter"}


class _Minimal(BaseAdapter):
    name = "minimal"

    def start(self) -> Implementation:
        return Implementation("minimal", "0", "python", frozenset())

    def stop(self) -> None:
        pass


@pytest.mark.parametrize(
    "adapter",
    [_Minimal(), PythonAdapter(), RustAdapter(), WorkerAdapter("w", ["true"])],
    ids=lambda a: type(a).__name__,
)
def test_every_adapter_has_every_member(adapter: Adapter) -> None:
    assert isinstance(adapter, Adapter)


def test_the_defaults_mark_nothing_and_take_no_line() -> None:
    adapter = _Minimal()
    assert (adapter.in_process, adapter.problems, adapter.broken) == (True, (), None)
    assert adapter.run_lines([b"{}"], 0, 1, lambda line: None) == 0
    assert not WorkerAdapter("w", ["true"]).in_process


def _probes(path: Path, root: Path = ROOT) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
            continue
        args = node.args
        if node.func.id in ("getattr", "hasattr") and args and "adapter" in ast.unparse(args[0]):
            found.append(f"{path.relative_to(root)}:{node.lineno}: {ast.unparse(node)}")
        if node.func.id == "isinstance" and len(args) == 2:
            names = {n.id for n in ast.walk(args[1]) if isinstance(n, ast.Name)}
            if names & (ADAPTER_CLASSES - {"Adapter"}):
                found.append(f"{path.relative_to(root)}:{node.lineno}: {ast.unparse(node)}")
    return found


def test_no_module_probes_an_adapter() -> None:
    paths = sorted([*(ROOT / "runners").rglob("*.py"), *(ROOT / "adapters").rglob("*.py")])
    assert [probe for path in paths for probe in _probes(path)] == []


def test_the_probe_finder_finds_a_probe(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        'x = getattr(platform.adapter, "broken", None)\ny = isinstance(a, WorkerAdapter)\n',
        encoding="utf-8",
    )
    assert len(_probes(sample, tmp_path)) == 2
