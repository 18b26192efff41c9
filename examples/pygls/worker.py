"""A conformance worker for pygls 2.1.1 on the lsp-positions domain.

    python -m venv examples/pygls/.venv
    examples/pygls/.venv/bin/pip install -r examples/pygls/requirements.txt
    hanzo-conformance run --platform pygls --domain lsp-positions \
        --worker pygls='examples/pygls/.venv/bin/python examples/pygls/worker.py' \
        --expectations examples/pygls/expectations.json

It speaks docs/protocol.md on stdin/stdout. Each case goes through what a pygls server
uses: ``pygls.workspace.TextDocument`` with a ``PositionCodec`` of the case's encoding
(``offset_at_position``, ``client_position_at_offset``, ``lines``, ``apply_change``),
``pygls.io_.run``'s header loop for framing, and
``ServerCapabilitiesBuilder.choose_position_encoding`` for negotiation. Nothing is
corrected; the ledger beside this file records where pygls differs, and README.md why.

What pygls has no operation for is answered ``skip`` with the reason:

- ``position_at`` with an offset unit other than utf-32: pygls offsets are code point
  indices into ``source``; turning a utf-8 or utf-16 offset into one needs the very
  snapping rule under test (LSP-4b). ``offset_at`` results are code point indices,
  converted exactly to the case's unit (the length of the prefix in that unit).
- negotiation with a server list other than pygls's own (utf-8, utf-16, utf-32): the
  list is fixed in pygls; and the client-side check (LSP-9b): pygls does not check the
  answer of a server.
- framing errors are never raised by pygls (it ignores what it cannot read), so a
  vector expecting a header error fails rather than skips.
"""

from __future__ import annotations

import io
import json
import sys
import threading
import traceback
from importlib import metadata
from typing import Any

try:
    from lsprotocol import types
    from pygls import io_
    from pygls.capabilities import ServerCapabilitiesBuilder
    from pygls.workspace import TextDocument
    from pygls.workspace.position_codec import PositionCodec
except ImportError:
    raise SystemExit(
        "pygls is not installed: pip install -r examples/pygls/requirements.txt"
    ) from None

PYGLS_ENCODINGS = {"utf-8", "utf-16", "utf-32"}


class Skip(Exception):
    """The case needs an operation pygls does not have."""


def _units(text: str, unit: str) -> int:
    if unit == "utf-32":
        return len(text)
    if unit == "utf-16":
        return len(text.encode("utf-16-le")) // 2
    return len(text.encode("utf-8"))


def _position(raw: dict[str, Any]) -> types.Position:
    return types.Position(line=int(raw["line"]), character=int(raw["character"]))


def _line(line: str) -> dict[str, str]:
    # pygls's lines are source.splitlines(True): each keeps the break it was split at.
    content = line.splitlines()[0] if line else ""
    return {"text": content, "end": line[len(content) :]}


def document(case_input: dict[str, Any]) -> dict[str, Any]:
    encoding = case_input.get("encoding", "utf-16")
    unit = case_input["offset_unit"]
    if encoding not in PYGLS_ENCODINGS or unit not in PYGLS_ENCODINGS:
        # PositionCodec falls back to utf-16 for a name it does not know (no error).
        raise Skip("pygls has no unknown-encoding error: PositionCodec falls back to utf-16")
    ops = case_input["ops"]
    if unit != "utf-32" and any(op["op"] == "position_at" for op in ops):
        raise Skip("pygls offsets are code point indices; a utf-8/utf-16 offset has no pygls call")
    doc = TextDocument(
        "file:///case.txt", source=case_input["text"], position_codec=PositionCodec(encoding)
    )
    results: list[Any] = []
    for op in ops:
        if op["op"] == "offset_at":
            index = doc.offset_at_position(_position(op))
            results.append(_units(doc.source[:index], unit))
        elif op["op"] == "position_at":
            at = doc.client_position_at_offset(int(op["offset"]))
            results.append({"line": at.line, "character": at.character})
        elif op["op"] == "lines":
            results.append([_line(line) for line in doc.lines])
        else:
            if "range" in op:
                change_range = types.Range(
                    start=_position(op["range"]["start"]), end=_position(op["range"]["end"])
                )
                doc.apply_change(
                    types.TextDocumentContentChangePartial(range=change_range, text=op["text"])
                )
            else:
                doc.apply_change(types.TextDocumentContentChangeWholeDocument(text=op["text"]))
            results.append(doc.source)
    return {"results": results}


class _Reader:
    """pygls.io_.run's reader over the case's bytes; records each content part read."""

    def __init__(self, data: bytes) -> None:
        self.stream = io.BytesIO(data)
        self.bodies: list[bytes] = []
        self.consumed = 0  # bytes up to the end of the last content part read

    def readline(self) -> bytes:
        return self.stream.readline()

    def read(self, n: int) -> bytes:
        body = self.stream.read(n)
        self.bodies.append(body)
        self.consumed = self.stream.tell()
        return body


class _Protocol:
    def structure_message(self, data: Any) -> Any:
        return data

    def handle_message(self, message: Any) -> None:
        pass


def frames(chunks: list[str]) -> dict[str, Any]:
    data = "".join(chunks).encode("latin-1")  # one code point per byte
    reader = _Reader(data)
    io_.run(threading.Event(), reader, _Protocol(), error_handler=lambda *_: None)  # type: ignore[arg-type]
    try:
        messages = [body.decode("utf-8") for body in reader.bodies]
    except UnicodeDecodeError:
        raise ContractError("invalid_content", "content is not UTF-8") from None
    return {"messages": messages, "buffered": len(data) - reader.consumed}


class ContractError(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def negotiate(spec: dict[str, Any]) -> dict[str, Any]:
    if set(spec["server_supports"]) != PYGLS_ENCODINGS:
        raise Skip("pygls's server supports exactly utf-8, utf-16 and utf-32 (not configurable)")
    general = None
    if "client_offers" in spec:
        general = types.GeneralClientCapabilities(position_encodings=spec["client_offers"])
    capabilities = types.ClientCapabilities(general=general)
    return {"encoding": str(ServerCapabilitiesBuilder.choose_position_encoding(capabilities))}


def run(case_input: dict[str, Any]) -> dict[str, Any]:
    if "chunks" in case_input:
        return frames(case_input["chunks"])
    if "negotiate" in case_input:
        return negotiate(case_input["negotiate"])
    if "accept" in case_input:
        raise Skip("pygls does not check the positionEncoding a server answers (LSP-9b)")
    return document(case_input)


def answer(request: dict[str, Any]) -> dict[str, Any]:
    if request.get("cmd") == "start":
        return {
            "ok": True,
            "implementation": {
                "name": "pygls",
                "version": metadata.version("pygls"),
                "language": f"python {sys.version.split()[0]}",
                "domains": ["lsp-positions"],
            },
        }
    if request.get("domain") != "lsp-positions":
        return {"id": request.get("id", ""), "crash": {"message": "unknown domain", "detail": ""}}
    try:
        return {"id": request["id"], "output": run(request["input"])}
    except Skip as e:
        return {"id": request["id"], "skip": {"reason": str(e)}}
    except ContractError as e:
        return {"id": request["id"], "error": {"code": e.code, "message": str(e)}}
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
