"""Harness-laid cases: the harness lays out an OS case for a worker that asks it to.

A worker that announces ``harness_lays_out`` in its handshake (docs/protocol.md,
"Harness-laid cases") is sent the concrete case of each of those domains' cases: the
harness makes the case root, builds the tree, fixtures' working directory and tier files,
replaces ``{root}`` and ``{fixtures}``, and sends what ``impl_python.conformance.layout``
makes of the input (the layout the Python platform uses for itself: one owner). After
the answer it finishes the output (hooks' ``saw`` and ``leftover_processes``, the root
written back as ``{root}``), kills what the case left running and removes the root.
"""

from __future__ import annotations

import traceback
from collections.abc import Collection, Sequence
from typing import Any

from impl_python.conformance.layout import LAID_DOMAINS, LaidCase, lay_out
from impl_python.errors import HanzoError

from ._resources import export_hook_fixtures
from .protocol import Request, Response, crash

ALL = "all"
"""``harness_lays_out: "all"``: every domain of ``LAID_DOMAINS`` the worker runs."""


def laid_domains(announced: object, domains: Collection[str]) -> frozenset[str]:
    """The domains the harness lays out for a worker that announced ``announced``
    (``true``-like ``"all"`` or a list, checked against started.json) and runs
    ``domains``; ValueError naming a listed domain the worker does not run."""
    if announced is None:
        return frozenset()
    if announced == ALL:
        return frozenset(d for d in LAID_DOMAINS if d in domains)
    listed = frozenset(str(d) for d in announced)  # type: ignore[attr-defined]
    missing = sorted(listed - frozenset(domains))
    if missing:
        raise ValueError(
            f"harness_lays_out names {', '.join(missing)}, which the worker does not list "
            "in implementation.domains"
        )
    return listed


class LaidBatch:
    """One batch's requests with the cases of the laid domains laid out.

    ``requests`` is what goes to the worker (a laid case's input is its concrete
    case; every other request is as it was); ``refused`` answers the cases whose
    layout failed (a contract error of the layout, or a harness bug), which are not
    sent. ``finish`` turns the worker's answers into the domain's outputs, ``close``
    removes every root (call it whatever happened)."""

    def __init__(self, requests: Sequence[Request], domains: frozenset[str]) -> None:
        export_hook_fixtures()  # {fixtures}: the checkout's, or the wheel's bundled copy
        self.requests: list[Request] = []
        self.refused: dict[str, Response] = {}
        self._cases: dict[str, LaidCase] = {}
        for request in requests:
            if request["domain"] not in domains:
                self.requests.append(request)
                continue
            request_id = request["id"]
            try:
                case = lay_out(request["domain"], request["input"])
            except HanzoError as e:  # e.g. a tree entry that would escape the root
                self.refused[request_id] = {
                    "id": request_id,
                    "error": {"code": e.code, "message": str(e)},
                }
                continue
            except Exception as e:
                self.refused[request_id] = crash(
                    request_id,
                    f"the harness could not lay out the case: {type(e).__name__}: {e}",
                    traceback.format_exc(),
                )
                continue
            self._cases[request_id] = case
            # A plain request: the concrete input has no cached text nor expectation.
            self.requests.append(
                {"id": request_id, "domain": request["domain"], "input": case.input}
            )

    def finish(self, response: Response | None) -> Response | None:
        """The domain's answer from the worker's answer to a laid case (others as they are)."""
        if response is None:
            return None
        case = self._cases.get(response["id"])
        if case is None or "output" not in response:
            return response
        output: Any = response["output"]  # type: ignore[typeddict-item]
        if not isinstance(output, dict):
            return response  # not the domain's shape: the output schema reports it
        try:
            # Other members (e.g. what the answer declares absent) go on as they were.
            return {**response, "output": case.finish(output)}  # type: ignore[return-value]
        except Exception as e:  # the answer's shape broke the finishing: say so, go on
            return crash(
                response["id"],
                f"the harness could not finish the laid case's output: {type(e).__name__}: {e}",
                traceback.format_exc(),
            )

    def close(self) -> None:
        for case in self._cases.values():
            case.close()
        self._cases = {}
