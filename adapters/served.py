"""Platforms ``python`` and ``rust``: in-process adapters served from a supervised child.

By default each runs as ``python -m adapters.serve <platform>`` behind a
:class:`adapters.worker.WorkerAdapter`, so a case that loops forever or aborts
the process fails that case (timeout, crash with stderr, restart) and the run
goes on. For debugging (a breakpoint, a profiler, one process to look at), set
``HANZO_CONFORMANCE_IN_PROCESS=1`` (or pass ``--in-process`` to
``hanzo-conformance run``): the adapters then run inside the harness, without
that protection, except the OS domains' cases (``OS_DOMAINS``: their hooks and
trees would be the harness's own children), which still go to a served child,
confined as adapters/isolation.py says.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from .protocol import Adapter, BaseAdapter, Implementation, Request, Response
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
        confined=True,
    )


OS_DOMAINS = frozenset({"hooks", "sandbox-paths", "config-merge", "tool-call-pipeline"})
"""The domains whose cases run programs or build trees on the machine: a vector file's
code (docs/protocol.md, "What a vector file can do")."""


class OsDomainsServed(BaseAdapter):
    """An in-process platform whose OS-domain cases go to ``served`` (a confined child,
    started at the first such case), every other case to ``inner`` in this process (on
    the caller's thread: ``in_process``). The child's protocol problems are the
    platform's; a child declared broken fails the OS-domain cases alone (its crash
    answers say so), so the platform is never ``broken`` as a whole."""

    def __init__(self, inner: Adapter, served: WorkerAdapter) -> None:
        self.name = inner.name
        self.inner = inner
        self.served = served
        self._served_started = False
        self.problems = served.problems  # the child's list, as it grows (inner has none)

    def start(self) -> Implementation:
        return self.inner.start()

    def run(self, requests: Sequence[Request]) -> list[Response]:
        local = [r for r in requests if r["domain"] not in OS_DOMAINS]
        if len(local) == len(requests):
            return self.inner.run(requests)
        answers = {id(r): a for r, a in zip(local, self.inner.run(local), strict=True)}
        confined = [r for r in requests if r["domain"] in OS_DOMAINS]
        if not self._served_started:
            self.served.start()  # PlatformUnavailable: the platform's problem, as served
            self._served_started = True
        for request, answer in zip(confined, self.served.run(confined), strict=True):
            answers[id(request)] = answer
        return [answers[id(r)] for r in requests]

    def stop(self) -> None:
        self.inner.stop()
        if self._served_started:
            self.served.stop()


def python(*, timeout: float = 10.0, in_process: bool = False) -> Adapter:
    if _in_process(in_process):
        from .python import PythonAdapter

        return OsDomainsServed(PythonAdapter(), served("python", "python", timeout=timeout))
    return served("python", "python", timeout=timeout)


def rust(*, timeout: float = 10.0, in_process: bool = False) -> Adapter:
    if _in_process(in_process):
        from .rust import RustAdapter

        return OsDomainsServed(RustAdapter(), served("rust", "rust", timeout=timeout))
    return served("rust", "rust", timeout=timeout)
