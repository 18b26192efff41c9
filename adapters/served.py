"""Platforms ``python`` and ``rust``: in-process adapters served from a supervised child.

By default each runs as ``python -m adapters.serve <platform>`` behind a
:class:`adapters.worker.WorkerAdapter`, so a case that loops forever or aborts
the process fails that case (timeout, crash with stderr, restart) and the run
goes on. For debugging (a breakpoint, a profiler, one process to look at), set
``HANZO_CONFORMANCE_IN_PROCESS=1`` (or pass ``--in-process`` to
``hanzo-conformance run``): the adapters then run inside the harness, without
that protection.
"""

from __future__ import annotations

import os
import sys

from .protocol import Adapter
from .serve import MAX_GROUP
from .worker import WorkerAdapter

IN_PROCESS_ENV = "HANZO_CONFORMANCE_IN_PROCESS"


def in_process(asked: bool = False) -> bool:
    """Whether the debugging switch (the option, or the environment variable) is on."""
    return asked or os.environ.get(IN_PROCESS_ENV, "").strip() not in ("", "0")


_in_process = in_process


def served(name: str, spec: str, *, timeout: float = 10.0) -> WorkerAdapter:
    """A worker platform ``name`` serving the in-process adapter ``spec`` (see adapters.serve)."""
    return WorkerAdapter(
        name,
        [sys.executable, "-m", "adapters.serve", spec],
        timeout=timeout,
        answers_in_groups=MAX_GROUP,
        expect=True,
    )


def python(*, timeout: float = 10.0, in_process: bool = False) -> Adapter:
    if _in_process(in_process):
        from .python import PythonAdapter

        return PythonAdapter()
    return served("python", "python", timeout=timeout)


def rust(*, timeout: float = 10.0, in_process: bool = False) -> Adapter:
    if _in_process(in_process):
        from .rust import RustAdapter

        return RustAdapter()
    return served("rust", "rust", timeout=timeout)
