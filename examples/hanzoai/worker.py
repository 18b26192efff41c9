"""A conformance worker for hanzoai 2.1.3, Hanzo's published Python SDK, on sse-frames.

    pip install hanzoai==2.1.3
    hanzo-conformance run --worker hanzoai='python examples/hanzoai/worker.py' \
        --platform hanzoai --domain sse-frames --expectations examples/hanzoai/expectations.json

The SDK streams every response through ``hanzoai._streaming.SSEDecoder``: its
``iter_bytes`` takes the body's byte chunks as they arrive and yields
``ServerSentEvent`` objects. This worker feeds it each case's chunks as bytes (a text
chunk as its UTF-8, a ``bytes`` case's chunk as its code points, one byte each:
docs/domains/sse-frames.md) and maps each event to a frame field for field, without
correcting anything: the differences are the SDK's, and the ledger next to this file
records them. It speaks docs/protocol.md on stdin/stdout: answer ``start``, then one
answer per ``run``, flushed. Like every example worker it is self-contained (its
protocol loop is the httpx-sse worker's), so that it can be copied into the
platform's own repository with its ledger.
"""

from __future__ import annotations

import json
import sys
import traceback
from importlib import metadata
from typing import Any

from hanzoai._streaming import SSEDecoder


def _byte_chunks(case_input: dict[str, Any]) -> list[bytes]:
    encoding = "latin-1" if case_input.get("encoding") == "bytes" else "utf-8"
    return [chunk.encode(encoding) for chunk in case_input["chunks"]]


def sse_frames(case_input: dict[str, Any]) -> dict[str, Any]:
    events = SSEDecoder().iter_bytes(iter(_byte_chunks(case_input)))
    frames = [{"event": e.event, "data": e.data, "id": e.id, "retry": e.retry} for e in events]
    return {"frames": frames}


DOMAINS = {"sse-frames": sse_frames}


def answer(request: dict[str, Any]) -> dict[str, Any]:
    if request.get("cmd") == "start":
        return {
            "ok": True,
            "implementation": {
                "name": "hanzoai",
                "version": metadata.version("hanzoai"),
                "language": "python",
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
