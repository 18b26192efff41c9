"""Platform ``python``: impl_python, driven in-process.

Each domain's JSON layer is the module ``impl_python.conformance.<domain_snake>``
with ``run(case_input) -> output``; a domain is implemented when its module exists.
"""

from __future__ import annotations

import importlib
import pkgutil
import platform
import traceback
from collections.abc import Callable, Sequence
from typing import Any

from impl_python import conformance
from impl_python.errors import HanzoError

from .protocol import Adapter, Implementation, Request, Response, crash

RunFn = Callable[[Any], Any]


def _domain_modules() -> dict[str, RunFn]:
    found: dict[str, RunFn] = {}
    for info in pkgutil.iter_modules(conformance.__path__):
        domain = info.name.replace("_", "-")
        try:
            found[domain] = importlib.import_module(f"{conformance.__name__}.{info.name}").run
        except Exception:  # a broken module fails its own domain's cases, not the platform
            found[domain] = _broken(traceback.format_exc())
    return found


def _broken(detail: str) -> RunFn:
    def run(case_input: Any) -> Any:
        raise ImportError(f"domain module failed to import:\n{detail}")

    return run


class PythonAdapter:
    name = "python"

    def __init__(self) -> None:
        self._domains: dict[str, RunFn] = {}

    def start(self) -> Implementation:
        self._domains = _domain_modules()
        return Implementation(
            name="hanzo-python-reference",
            version="0.1.0",
            language=f"python {platform.python_version()}",
            domains=frozenset(self._domains),
        )

    def run(self, requests: Sequence[Request]) -> list[Response]:
        return [self._run_one(r) for r in requests]

    def _run_one(self, request: Request) -> Response:
        run = self._domains.get(request["domain"])
        if run is None:
            return crash(request["id"], f"python does not implement {request['domain']}")
        try:
            return {"id": request["id"], "output": run(request["input"])}
        except HanzoError as e:
            return {"id": request["id"], "error": {"code": e.code, "message": str(e)}}
        except Exception as e:  # an implementation bug: reported, never raised
            return crash(request["id"], f"{type(e).__name__}: {e}", traceback.format_exc())

    def stop(self) -> None:
        self._domains = {}


def create() -> Adapter:
    return PythonAdapter()
