"""The python reference, writing some answers in another spelling of the same JSON.

Served (``python -m adapters.serve respelled:create``, with tests/fake_workers on
PYTHONPATH) through the served child's text hook (``run_line``), so its answer lines
are exactly what this module writes. The spelling is chosen by the case id:

* ``exact-*``: compact, the harness's own spelling (the same bytes as expected);
* ``spaced-*``: with spaces after ``,`` and ``:`` (the same JSON value);
* ``reordered-*``: ``{"output", "id"}`` instead of ``{"id", "output"}``;
* ``escaped-*``: the output's key written with a ``\\u`` escape;
* ``wrong-*`` / ``wrong-spaced-*``: the challenge with ``!`` appended (a wrong value),
  compact or spaced.
"""

from __future__ import annotations

import json
from typing import Any

from adapters.python import PythonAdapter

_COMPACT = {"separators": (",", ":"), "ensure_ascii": False}


def _spelled(case: str, response: dict[str, Any]) -> str:
    output = response.get("output")
    if case.startswith("wrong") and isinstance(output, dict):
        response = {**response, "output": {**output, "challenge": output["challenge"] + "!"}}
    if case.startswith(("spaced", "wrong-spaced")):
        return json.dumps(response)
    if case.startswith("reordered"):
        return json.dumps(dict(reversed(list(response.items()))), **_COMPACT)  # type: ignore[arg-type]
    text = json.dumps(response, **_COMPACT)  # type: ignore[arg-type]
    if case.startswith("escaped"):
        text = text.replace('"challenge"', '"\\u0063hallenge"')
    return text


class Respelled(PythonAdapter):
    name = "respelled"

    def run_line(self, line: bytes) -> bytes | None:
        request = json.loads(line)
        [response] = self.run(
            [{"id": request["id"], "domain": request["domain"], "input": request["input"]}]
        )
        case = request["id"].split("/", 1)[1]
        return (_spelled(case, dict(response)) + "\n").encode("utf-8")


def create() -> Respelled:
    return Respelled()
