"""How a worker's answer lines are spelled: the child side of the wire (docs/protocol.md).

Used by the served child (``adapters.serve``) and by the fast paths of the adapters it
serves (``adapters.python``), so that a fast path's line and the ordinary path's line
are one spelling: the compact text (``adapters._json``) of the response, the expect
extension's ``ACK_LINE``, the expect-error extension's ``ERROR_ACK`` and message.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from ._json import compact_ascii, compact_text, encode_string
from .protocol import ACK_LINE, ERROR_ACK, RUN_PREFIX, Response, RunLines, crash

__all__ = ["answer_line", "encode", "encode_message", "one_line_at_a_time"]


def encode(response: Response) -> bytes:
    """One response line. An output that has no UTF-8 form (a lone surrogate) is sent
    with ``\\u`` escapes, so that the harness can report it against its case."""
    try:
        text = compact_text(response)
    except ValueError as exc:  # NaN or an infinity, or circular: not JSON at all
        text = json.dumps(crash(response["id"], f"output is not JSON: {exc}"))
    try:
        return text.encode("utf-8") + b"\n"
    except UnicodeEncodeError:
        return compact_ascii(response).encode("ascii") + b"\n"


def encode_message(message: str) -> bytes:
    """A JSON string and a newline (UTF-8; ``\\u`` escapes where there is no UTF-8 form)."""
    try:
        return (encode_string(message) + "\n").encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: escaped, and the harness reports it
        return json.dumps(message).encode("ascii") + b"\n"


def answer_line(response: Response, expect: Any, expect_error: Any = None) -> bytes:
    """The line for a response to a request that carried ``expect`` or ``expect_error``
    (or None): ``ACK_LINE`` when the output's text, as this child writes it, is that string;
    ``!"<message>"`` when the contract error has that code; else the answer."""
    if type(expect_error) is str and "error" in response:
        error: Any = response["error"]  # type: ignore[typeddict-item]
        if error.get("code") == expect_error and type(error.get("message")) is str:
            return ERROR_ACK + encode_message(error["message"])
    if type(expect) is str and "output" in response:
        try:
            if compact_text(response["output"]) == expect:  # type: ignore[typeddict-item]
                return ACK_LINE
        except (TypeError, ValueError):  # not JSON: encode() reports it
            pass
    return encode(response)


def one_line_at_a_time(run_line: Callable[[bytes], bytes | None]) -> RunLines:
    """``run_lines`` made of a ``run_line(line) -> bytes | None`` (None: declined),
    which is handed ``run`` lines only."""

    def one_at_a_time(
        lines: Sequence[bytes], start: int, stop: int, answer: Callable[[bytes], None]
    ) -> int:
        for index in range(start, stop):
            line = lines[index]
            # run lines, and tab-run lines (any line but a JSON message's)
            got = (
                run_line(line) if not line.startswith(b"{") or line.startswith(RUN_PREFIX) else None
            )
            if got is None:
                return index
            answer(got)
        return stop

    return one_at_a_time
