"""lsp-positions JSON layer: document ops, framing, encoding negotiation (LSP-7..9)."""

from __future__ import annotations

from typing import Any

from impl_python.lsp_positions import (
    MessageReader,
    Position,
    Range,
    TextDocument,
    accept_position_encoding,
    check_encoding,
    negotiate_position_encoding,
)


def _whole(value: Any) -> int:
    # LSP-5: a whole number written as 3.0 is the integer 3 (the schema allows only whole ones).
    return int(value)


def _position(raw: dict[str, Any]) -> Position:
    return Position(_whole(raw["line"]), _whole(raw["character"]))


def _document(case_input: dict[str, Any]) -> dict[str, Any]:
    document = TextDocument(case_input["text"], case_input.get("encoding", "utf-16"))
    unit = check_encoding(case_input["offset_unit"])  # LSP-1: before any op runs
    results: list[Any] = []
    for op in case_input["ops"]:
        kind = op["op"]
        if kind == "offset_at":
            results.append(document.offset_at(_position(op), unit))
        elif kind == "position_at":
            position = document.position_at(_whole(op["offset"]), unit)
            results.append({"line": position.line, "character": position.character})
        elif kind == "lines":
            results.append([{"text": line.text, "end": line.end} for line in document.lines()])
        else:  # "change"
            raw = op.get("range")
            if raw is None:
                document.apply_change(op["text"])
            else:
                ends = Range(_position(raw["start"]), _position(raw["end"]))
                document.apply_change(op["text"], ends)
            results.append(document.text)
    return {"results": results}


def _frames(chunks: list[str]) -> dict[str, Any]:
    reader = MessageReader()
    messages: list[str] = []
    for chunk in chunks:
        messages.extend(reader.feed(chunk.encode("latin-1")))  # one code point per byte (LSP-8)
    return {"messages": messages, "buffered": reader.buffered}


def run(case_input: dict[str, Any]) -> dict[str, Any]:
    """Run one case: a document and its ops, byte chunks to frame, or a negotiation."""
    if "chunks" in case_input:
        return _frames(case_input["chunks"])
    if "negotiate" in case_input:
        spec = case_input["negotiate"]
        offers, supports = spec.get("client_offers"), spec["server_supports"]
        return {"encoding": negotiate_position_encoding(offers, supports)}
    if "accept" in case_input:
        spec = case_input["accept"]
        offers, answer = spec.get("client_offers"), spec.get("server_answer")
        return {"encoding": accept_position_encoding(offers, answer)}
    return _document(case_input)
