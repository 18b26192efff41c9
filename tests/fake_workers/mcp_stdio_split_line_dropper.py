"""A foreign worker (docs/protocol.md) with a planted mcp-stdio fault: the Python
reference, except that its decoder drops every line whose bytes arrived in more than
one chunk (a reader that parses each chunk's complete lines and loses the carried
part). tests/test_mcp_stdio_generate.py checks that ``generate`` finds and shrinks it.
"""

from __future__ import annotations

import json
import sys
import traceback
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import impl_python.conformance.mcp_stdio as layer
import impl_python.mcp_stdio as library
from impl_python.errors import HanzoError


class DropsSplitLines(library.StdioMessageDecoder):
    def __init__(self, max_line_bytes: int = library.DEFAULT_MAX_LINE_BYTES) -> None:
        super().__init__(max_line_bytes)
        self._carried = False

    def feed(self, chunk: bytes) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        start = 0
        while (end := chunk.find(b"\n", start)) >= 0:
            self._hold(chunk[start:end])
            message = self._end_line()
            if message is not None and not self._carried:
                out.append(message)  # the fault: a carried line is lost
            self._carried = False
            start = end + 1
        self._hold(chunk[start:])
        self._carried = self._carried or start < len(chunk)
        return out


layer.StdioMessageDecoder = DropsSplitLines  # type: ignore[misc]
library.StdioMessageDecoder = DropsSplitLines  # type: ignore[misc]


def answer(request: dict[str, Any]) -> dict[str, Any]:
    if request.get("cmd") == "start":
        implementation = {"name": "split-line-dropper", "version": "0", "language": "python"}
        return {"ok": True, "implementation": {**implementation, "domains": ["mcp-stdio"]}}
    try:
        return {"id": request["id"], "output": layer.run(request["input"])}
    except HanzoError as e:
        return {"id": request["id"], "error": {"code": e.code, "message": str(e)}}
    except Exception as e:  # a crash answers this case; the worker goes on
        crash = {"message": repr(e), "detail": traceback.format_exc()}
        return {"id": request["id"], "crash": crash}


def main() -> None:
    for line in sys.stdin:
        request = json.loads(line)
        if request.get("cmd") == "stop":
            break
        sys.stdout.write(json.dumps(answer(request)) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
