"""Deliberately wrong platforms, to prove the harness reports each kind of wrongness.

Each wraps the real Python reference and breaks it in one way.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from adapters.protocol import Implementation, Request, Response, crash
from adapters.python import PythonAdapter


class _Wrapped:
    def __init__(self, name: str) -> None:
        self.name = name
        self.inner = PythonAdapter()

    def start(self) -> Implementation:
        return self.inner.start()

    def run(self, requests: Sequence[Request]) -> list[Response]:
        return self.inner.run(requests)

    def stop(self) -> None:
        self.inner.stop()


def first_string_appended(value: Any) -> Any:
    """The output with "!" appended to its first string leaf (depth-first)."""
    value = copy.deepcopy(value)
    done = False

    def walk(node: Any) -> Any:
        nonlocal done
        if done:
            return node
        if isinstance(node, str):
            done = True
            return node + "!"
        if isinstance(node, dict):
            return {k: walk(v) for k, v in node.items()}
        if isinstance(node, list):
            return [walk(v) for v in node]
        return node

    return walk(value)


class Liar(_Wrapped):
    """Returns a subtly wrong output for every request (optionally only when `when` says so)."""

    def __init__(
        self, name: str = "liar", when: Callable[[Request], bool] = lambda r: True
    ) -> None:
        super().__init__(name)
        self.when = when

    def run(self, requests: Sequence[Request]) -> list[Response]:
        out = []
        for request, response in zip(requests, self.inner.run(requests), strict=True):
            if "output" in response and self.when(request):
                response = {
                    "id": response["id"],
                    "output": first_string_appended(response["output"]),
                }
            out.append(response)
        return out


class WrongErrorCode(_Wrapped):
    """Every contract error comes back with another code."""

    def run(self, requests: Sequence[Request]) -> list[Response]:
        return [
            {"id": r["id"], "error": {"code": "something_else", "message": "x"}}
            if "error" in r
            else r
            for r in self.inner.run(requests)
        ]


class ErrorForEverything(_Wrapped):
    """Answers every request with a contract error."""

    def run(self, requests: Sequence[Request]) -> list[Response]:
        return [{"id": r["id"], "error": {"code": "bad_input", "message": "no"}} for r in requests]


class Crasher(_Wrapped):
    """Crashes on every request, with a traceback-like detail."""

    def run(self, requests: Sequence[Request]) -> list[Response]:
        return [crash(r["id"], "boom", "Traceback: the stderr of the crash") for r in requests]


class ShapeDrift(_Wrapped):
    """Adds an undeclared field to every output object (caught by the output schema)."""

    def run(self, requests: Sequence[Request]) -> list[Response]:
        out = []
        for response in self.inner.run(requests):
            if "output" in response and isinstance(response["output"], dict):
                response = {"id": response["id"], "output": {**response["output"], "extra": 1}}
            out.append(response)
        return out


class Lacking(_Wrapped):
    """Implements no domain at all."""

    def start(self) -> Implementation:
        return replace(self.inner.start(), domains=frozenset())


class Raiser(_Wrapped):
    """An adapter that breaks its own contract by raising from run()."""

    def run(self, requests: Sequence[Request]) -> list[Response]:
        raise RuntimeError("adapter bug")


class Dropper(_Wrapped):
    """Answers only the first request of a batch."""

    def run(self, requests: Sequence[Request]) -> list[Response]:
        return self.inner.run(requests)[:1]


class NoStart(_Wrapped):
    def start(self) -> Implementation:
        raise OSError("no such executable: hanzo-worker")


class Rewriter(_Wrapped):
    """Rewrites every output with ``rewrite`` (tests that need one precise wrongness)."""

    def __init__(self, name: str, rewrite: Callable[[Any], Any]) -> None:
        super().__init__(name)
        self.rewrite = rewrite

    def run(self, requests: Sequence[Request]) -> list[Response]:
        return [
            {"id": r["id"], "output": self.rewrite(copy.deepcopy(r["output"]))}
            if "output" in r
            else r
            for r in self.inner.run(requests)
        ]
