"""A conformance worker for httpx-sse 0.4.3, a published SSE parser, on the sse-frames domain.

    pip install httpx-sse==0.4.3
    hanzo-conformance run --worker httpx-sse='python examples/httpx-sse/worker.py' \
        --platform httpx-sse --domain sse-frames --expectations examples/httpx-sse/expectations.json

It speaks docs/protocol.md on stdin/stdout: answer ``start``, then one answer per
``run``, flushed. The JSON layer drives httpx-sse exactly as its
``EventSource.iter_sse`` does (``SSELineDecoder`` over each text chunk, then
``flush``, each line through one ``SSEDecoder``) and maps each
``ServerSentEvent`` to a frame field for field, without correcting anything: the
differences are httpx-sse's, and the ledger next to this file records them.
"""

from __future__ import annotations

import codecs
import importlib
import importlib.util
import json
import sys
import traceback
import types
from importlib import metadata
from typing import Any


def _decoders() -> types.ModuleType:
    """``httpx_sse._decoders`` without ``httpx_sse/__init__.py``, which imports httpx."""
    spec = importlib.util.find_spec("httpx_sse")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("httpx-sse is not installed: pip install httpx-sse==0.4.3")
    if "httpx_sse" not in sys.modules:
        package = types.ModuleType("httpx_sse")
        package.__path__ = list(spec.submodule_search_locations)
        sys.modules["httpx_sse"] = package
    return importlib.import_module("httpx_sse._decoders")


DECODERS = _decoders()


def _texts(case_input: dict[str, Any]) -> list[str]:
    """The text chunks httpx would hand to the decoder (bytes cases go through UTF-8 first)."""
    chunks: list[str] = case_input["chunks"]
    if case_input.get("encoding") != "bytes":
        return chunks
    # One code point = one byte (docs/domains/sse-frames.md); httpx decodes with an
    # incremental UTF-8 decoder that replaces invalid bytes.
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    texts = [decoder.decode(chunk.encode("latin-1")) for chunk in chunks]
    texts.append(decoder.decode(b"", final=True))
    return [t for t in texts if t]


def sse_frames(case_input: dict[str, Any]) -> dict[str, Any]:
    lines = DECODERS.SSELineDecoder()
    decoder = DECODERS.SSEDecoder()
    frames = []

    def decode(line: str) -> None:
        event = decoder.decode(line.rstrip("\n"))
        if event is not None:
            frames.append(
                {"event": event.event, "data": event.data, "id": event.id, "retry": event.retry}
            )

    for text in _texts(case_input):
        for line in lines.decode(text):
            decode(line)
    for line in lines.flush():
        decode(line)
    return {"frames": frames}


DOMAINS = {"sse-frames": sse_frames}


def answer(request: dict[str, Any]) -> dict[str, Any]:
    if request.get("cmd") == "start":
        return {
            "ok": True,
            "implementation": {
                "name": "httpx-sse",
                "version": metadata.version("httpx-sse"),
                "language": f"python {sys.version.split()[0]}",
                "domains": sorted(DOMAINS),
            },
        }
    run = DOMAINS.get(request.get("domain", ""))
    if run is None:
        return {"id": request.get("id", ""), "crash": {"message": "unknown domain", "detail": ""}}
    try:
        return {"id": request["id"], "output": run(request["input"])}
    except Exception as e:  # a crash answers this case; the worker goes on
        return {
            "id": request["id"],
            "crash": {"message": repr(e), "detail": traceback.format_exc()},
        }


def main() -> None:
    for line in sys.stdin:
        request = json.loads(line)
        if request.get("cmd") == "stop":
            break
        sys.stdout.write(json.dumps(answer(request)) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
