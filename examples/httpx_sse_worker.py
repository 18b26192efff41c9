"""A docs/protocol.md worker around a published package: httpx-sse 0.4.3 for sse-frames.

    pip install httpx-sse==0.4.3
    hanzo-conformance generate --domain sse-frames --platform python \\
        --worker httpx-sse='python examples/httpx_sse_worker.py'

httpx-sse's ``SSELineDecoder`` + ``SSEDecoder`` are driven as ``EventSource.iter_sse``
drives them (each text chunk through the line decoder, then ``flush`` at the end),
and each ``ServerSentEvent`` becomes a frame. httpx-sse reports an unset event type
as ``"message"``; the contract's frame has ``null`` there, so ``"message"`` maps to
null (losing ``event: message``, which httpx-sse cannot tell apart), and an empty
last event id to null. The differences ``generate`` then finds are httpx-sse's own
(docs/domains/sse-frames.md, "Known differences from reference libraries").
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import sys
import traceback
import types
from importlib.metadata import version
from typing import Any


def _decoders() -> types.ModuleType:
    """``httpx_sse._decoders`` without ``httpx_sse/__init__.py``, which needs httpx itself."""
    spec = importlib.util.find_spec("httpx_sse")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("httpx-sse is not installed: pip install httpx-sse==0.4.3")
    package = types.ModuleType("httpx_sse")
    package.__path__ = list(spec.submodule_search_locations)
    sys.modules.setdefault("httpx_sse", package)
    return importlib.import_module("httpx_sse._decoders")


_DECODERS = _decoders()
SSEDecoder, SSELineDecoder = _DECODERS.SSEDecoder, _DECODERS.SSELineDecoder


def frames(chunks: list[str]) -> list[dict[str, Any]]:
    lines, decoder, out = SSELineDecoder(), SSEDecoder(), []
    for chunk in chunks:
        for line in lines.decode(chunk) if chunk else []:
            out.append(decoder.decode(line))
    for line in lines.flush():
        out.append(decoder.decode(line))
    return [
        {
            "event": None if sse.event == "message" else sse.event,
            "data": sse.data,
            "id": sse.id or None,
            "retry": sse.retry,
        }
        for sse in out
        if sse is not None
    ]


def answer(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main() -> None:
    started = False
    for line in sys.stdin:
        request = json.loads(line)
        if not started:
            if request.get("cmd") != "start" or request.get("version") != 1:
                error = {"code": "unsupported_version", "message": "protocol 1 only"}
                answer({"ok": False, "error": error, "versions": [1]})
                continue
            started = True
            implementation = {
                "name": "httpx-sse",
                "version": version("httpx-sse"),
                "language": "python",
                "domains": ["sse-frames"],
            }
            answer({"ok": True, "implementation": implementation})
            continue
        if request.get("cmd") == "stop":
            break
        try:
            output = {"frames": frames(request["input"]["chunks"])}
            answer({"id": request["id"], "output": output})
        except Exception as e:  # reported as a crash of this request, the worker goes on
            crash = {"message": f"{type(e).__name__}: {e}", "detail": traceback.format_exc()}
            answer({"id": request["id"], "crash": crash})


if __name__ == "__main__":
    main()
