"""A worker that takes the extensions it is offered and answers every ``run`` line with
the line given as its argument (``{id}`` there is the request's id as a JSON string):
it says whatever the harness's tests need it to say (tests/test_expect_error.py).

``--take expect,expect-error`` names the extensions it takes (default: all offered).
"""

from __future__ import annotations

import json
import os
import sys

args = sys.argv[1:]
take = None
if args[:1] == ["--take"]:
    take = [name for name in args[1].split(",") if name]
    args = args[2:]
answer = args[0]
out = sys.stdout.buffer
partial = b""
while chunk := os.read(0, 1 << 16):
    *lines, partial = (partial + chunk).split(b"\n")
    answers = []
    for line in lines:
        message = json.loads(line)
        command = message.get("cmd")
        if command == "stop":
            sys.exit(0)
        if command == "start":
            info = {
                "name": "lines",
                "version": "0",
                "language": "python",
                "domains": ["oauth-pkce"],
            }
            answers.append(json.dumps({"ok": True, "implementation": info}))
        elif command == "extensions":
            taken = message["use"] if take is None else take
            answers.append(json.dumps({"extensions": taken}))
        else:
            answers.append(answer.replace("{id}", json.dumps(message["id"])))
    out.write("".join(f"{a}\n" for a in answers).encode("utf-8", "surrogatepass"))
    out.flush()
