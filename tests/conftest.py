from __future__ import annotations

import json
import signal
import sys
from pathlib import Path
from typing import Any

import miniatures
import pytest

from adapters.registry import register_platform, unregister_platform
from runners.run import signals as _inherited_signals

# The suite interrupts harnesses (its own process, and ones it starts) with SIGINT and
# expects a terminal's defaults; a suite started as a script's background job inherits
# SIGINT ignored, which the harness would keep (runners.run.signals).
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)
_inherited_signals.IGNORED_AT_START = frozenset()

pytest_plugins = ["pytester"]


def hello_case(**overrides: Any) -> dict[str, Any]:
    case = {
        "id": "hello",
        "description": "One data line, dispatched by a blank line.",
        "tags": ["basic"],
        "source": {"kind": "derived", "ref": "tests/conftest.py"},
        "clauses": ["SSE-1"],
        "input": {"chunks": ["data: hi\n\n"]},
        "expected": {"frames": [{"event": None, "data": "hi", "id": None, "retry": None}]},
    }
    case.update(overrides)
    return case


def many(count: int, prefix: str = "case") -> list[dict[str, Any]]:
    """``count`` hello cases, ids ``<prefix>-0`` on."""
    return [hello_case(id=f"{prefix}-{i}") for i in range(count)]


@pytest.fixture
def liar() -> Any:
    """Platform ``liar``: the python reference, but wrong on ids holding ``case-3``."""
    register_platform("liar", lambda: miniatures.Liar("liar", lambda r: "case-3" in r["id"]))
    yield
    unregister_platform("liar")


@pytest.fixture
def served_liar(monkeypatch: pytest.MonkeyPatch) -> Any:
    """miniatures.Liar served from its own child (``adapters.serve``, the extensions
    offered) and started: its lines go the ordinary way, and every output is one "!" off."""
    from adapters.serve import MAX_GROUP
    from adapters.worker import WorkerAdapter
    from runners.run.batches import start_platform

    monkeypatch.setenv("PYTHONPATH", str(Path(__file__).resolve().parent))
    command = [sys.executable, "-m", "adapters.serve", "miniatures:Liar"]
    adapter = WorkerAdapter("liar", command, answers_in_groups=MAX_GROUP, expect=True)
    started = start_platform("liar", adapter)
    yield adapter, started
    adapter.stop()


def vector_document(cases: list[dict[str, Any]], **overrides: Any) -> dict[str, Any]:
    doc = {
        "domain": "sse-frames",
        "version": 1,
        "description": "A small sse-frames file written by the harness tests.",
        "tags": {"basic": "the ordinary, documented behaviour"},
        "variants": [{"kind": "rechunk", "path": "/chunks"}],
        "cases": cases,
    }
    doc.update(overrides)
    return doc


@pytest.fixture
def write_vectors(tmp_path: Path):
    """Write a vector document (or raw text) to tmp_path/vectors/<name> and return its path."""

    def write(content: Any, name: str = "sse-frames.json") -> Path:
        folder = tmp_path / "vectors"
        folder.mkdir(exist_ok=True)
        path = folder / name
        text = content if isinstance(content, str) else json.dumps(content, indent=2)
        path.write_text(text, encoding="utf-8")
        return path

    return write
