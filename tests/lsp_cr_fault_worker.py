"""A protocol worker (docs/protocol.md) for lsp-positions with one planted fault: a lone
``\\r`` does not end a line (as in line-index 0.1.2, which splits at ``\\n`` only).

Everything else is the Python reference; tests/test_generate_lsp_positions.py checks
that ``generate`` finds the fault and shrinks it.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from impl_python import lsp_positions
from impl_python.conformance import lsp_positions as layer
from impl_python.errors import HanzoError

_NOT_CR = re.compile(r"\r\n|\n")  # the fault: no lone "\r"


def _set_text(self: lsp_positions.TextDocument, text: str) -> None:
    spans = []
    start = 0
    for match in _NOT_CR.finditer(text):
        spans.append((start, match.start(), match.end()))
        start = match.end()
    spans.append((start, len(text), len(text)))
    self._text = text
    self._spans = spans
    self._unit_starts = {}


lsp_positions.TextDocument._set_text = _set_text  # type: ignore[method-assign]


def answer(request: dict[str, object]) -> dict[str, object]:
    if request.get("cmd") == "start":
        return {
            "ok": True,
            "implementation": {
                "name": "lsp-cr-fault",
                "version": "0",
                "language": "python",
                "domains": ["lsp-positions"],
            },
        }
    try:
        return {"id": request["id"], "output": layer.run(request["input"])}  # type: ignore[arg-type]
    except HanzoError as e:
        return {"id": request["id"], "error": {"code": e.code, "message": str(e)}}


for line in sys.stdin:
    request = json.loads(line)
    if request.get("cmd") == "stop":
        break
    sys.stdout.write(json.dumps(answer(request)) + "\n")
    sys.stdout.flush()
