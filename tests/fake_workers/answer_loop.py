"""The protocol loop the small answering workers share (acknowledger, line_answerer,
group_answerer): ``start`` and ``extensions`` answered, every ``run`` line (or tab-run
line, read as the ``run`` message it stands for) answered by
the worker's own function, and all the answers to what one read brought written at
once (the harness's reader then hands over groups of lines, as it does from the served
children), or each on its own with ``one_write_per_answer``."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from typing import Any

DOMAIN = "oauth-pkce"


def serve(
    name: str,
    answer_run: Callable[[dict[str, Any]], str],
    extensions: Callable[[list[str]], list[str]] = lambda offered: offered,
    one_write_per_answer: bool = False,
) -> None:
    out = sys.stdout.buffer
    partial = b""
    while chunk := os.read(0, 1 << 16):
        *lines, partial = (partial + chunk).split(b"\n")
        answers = []
        for line in lines:
            message = json.loads(line) if line.startswith(b"{") else _tab_run(line)
            command = message.get("cmd")
            if command == "stop":
                sys.exit(0)
            if command == "start":
                info = {"name": name, "version": "0", "language": "python", "domains": [DOMAIN]}
                answers.append(json.dumps({"ok": True, "implementation": info}))
            elif command == "extensions":
                answers.append(json.dumps({"extensions": extensions(message["use"])}))
            else:
                answers.append(answer_run(message))
            if one_write_per_answer:
                _write(out, answers)
                answers = []
        _write(out, answers)


def _tab_run(line: bytes) -> dict[str, Any]:
    """The ``run`` message a tab-run line stands for (docs/protocol.md)."""
    request_id, domain, expectation, case_input = line.decode("utf-8").split("\t")
    message = {"cmd": "run", "id": request_id, "domain": domain, "input": json.loads(case_input)}
    if expectation[:1] == "=":
        message["expect"] = expectation[1:]
    elif expectation[:1] == "!":
        message["expect_error"] = expectation[1:]
    return message


def _write(out: Any, answers: list[str]) -> None:
    out.write("".join(f"{a}\n" for a in answers).encode("utf-8", "surrogatepass"))
    out.flush()
