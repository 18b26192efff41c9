"""A deliberately broken Python platform for the isolation tests (tests/test_isolation.py).

The reference, except for mcp-normalization cases whose server is one of:

* ``hanzo-test-loop``: loops forever (busy, holding the GIL between switches);
* ``hanzo-test-abort``: aborts the process (``os.abort``, as a crashing extension would);
* ``hanzo-test-surrogate``: returns a name ending in a lone surrogate (no UTF-8 form);
* ``hanzo-test-abort-once``: aborts the first time only (a crash that does not come
  back when the case runs again), remembered in the file ``$HANZO_TEST_ABORT_ONCE``.

Served with ``python -m adapters.serve broken_python:create`` (this folder on PYTHONPATH).
"""

from __future__ import annotations

import os
from typing import Any

from adapters.protocol import Implementation
from adapters.python import PythonAdapter


class BrokenPython(PythonAdapter):
    def start(self) -> Implementation:
        implementation = super().start()
        real = self._domains["mcp-normalization"]

        def run(case_input: Any) -> Any:
            server = case_input.get("server")
            if server == "hanzo-test-loop":
                while True:
                    pass
            if server == "hanzo-test-abort":
                os.abort()
            if server == "hanzo-test-abort-once":
                marker = os.environ["HANZO_TEST_ABORT_ONCE"]
                if not os.path.exists(marker):
                    open(marker, "w").close()
                    os.abort()
            output = real(case_input)
            if server == "hanzo-test-surrogate":
                output = {"name": output["name"] + "\ud800"}
            return output

        self._domains["mcp-normalization"] = run
        return implementation


def create() -> BrokenPython:
    return BrokenPython()
