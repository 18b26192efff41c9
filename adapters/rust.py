"""Platform ``rust``: the hanzo-* crates, in-process through the PyO3 extension.

The extension (``impl_rust/hanzo-conformance-py``, module ``hanzo_conformance_rust``) does
the work; this adapter only crosses the boundary as JSON text, one
``run_batch`` call per batch (the extension releases the GIL while it runs).
Panics inside a crate come back as ``crash`` responses, never as exceptions.
In-process, an abort or an endless loop in a crate takes the harness with it:
by default the platform is therefore served from a supervised child process
(``adapters/served.py``); this class is what that child runs.
"""

from __future__ import annotations

import json
import traceback
from collections.abc import Sequence
from types import ModuleType
from typing import Any

from .answers import one_line_at_a_time
from .protocol import (
    BaseAdapter,
    Implementation,
    PlatformUnavailable,
    Request,
    Response,
    crash,
)

MODULE = "hanzo_conformance_rust"
INSTALL_HINT = "pip install ./impl_rust/hanzo-conformance-py"


def _import_extension() -> ModuleType:
    try:
        import hanzo_conformance_rust
    except ImportError as e:
        raise PlatformUnavailable(
            "rust",
            f"the rust platform needs the compiled extension {MODULE!r}, which is not "
            f"importable ({e})",
            hint=f"build and install it (needs Rust and a C compiler) with `{INSTALL_HINT}` "
            "from the repository root",
        ) from e
    return hanzo_conformance_rust


class RustAdapter(BaseAdapter):
    name = "rust"

    def __init__(self) -> None:
        self._ext: ModuleType | None = None

    def start(self) -> Implementation:
        ext = _import_extension()
        info: dict[str, Any] = json.loads(ext.implementation())
        self._ext = ext
        # The served child's fast path calls the extension's own run_line once per
        # case, with no frame of this class's in front of it.
        self.run_lines = one_line_at_a_time(ext.run_line)  # type: ignore[method-assign, assignment]
        return Implementation.from_json(info)

    def run(self, requests: Sequence[Request]) -> list[Response]:
        if self._ext is None:
            raise RuntimeError("RustAdapter.run() before start()")
        if not requests:
            return []
        batch = [{"id": r["id"], "domain": r["domain"], "input": r["input"]} for r in requests]
        try:
            responses: list[Response] = json.loads(self._ext.run_batch(json.dumps(batch)))
        except ValueError:  # the extension refused the batch (e.g. a lone surrogate in an input)
            if len(requests) > 1:  # find the request(s) it refuses; the rest still run
                return [response for r in requests for response in self.run([r])]
            detail = traceback.format_exc()
            return [crash(requests[0]["id"], "rust extension rejected the request", detail)]
        if not isinstance(responses, list) or len(responses) != len(requests):
            got = len(responses) if isinstance(responses, list) else type(responses).__name__
            return [
                crash(
                    r["id"],
                    "rust extension broke the protocol",
                    f"{len(requests)} requests, got {got}",
                )
                for r in requests
            ]
        return [
            response
            if isinstance(response, dict) and response.get("id") == request["id"]
            else crash(
                request["id"], "rust extension broke the protocol", f"response: {response!r}"
            )
            for request, response in zip(requests, responses, strict=True)
        ]

    def run_line(self, line: bytes) -> bytes | None:
        """Answer one protocol ``run`` line as text (the served child's fast path).

        The line goes to the extension as it came (serde_json parses it) and the
        response line comes back as it will be written: no Python object per case.
        ``None``: the extension would refuse this request; ``run`` reports it.
        """
        if self._ext is None:
            raise RuntimeError("RustAdapter.run_line() before start()")
        answer: bytes | None = self._ext.run_line(line)
        return answer

    def stop(self) -> None:
        self._ext = None
        self.__dict__.pop("run_lines", None)


def create() -> RustAdapter:
    return RustAdapter()
