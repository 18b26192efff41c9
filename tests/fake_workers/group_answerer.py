"""A worker that takes both extensions and answers ``=`` to every ``run`` line that
carried ``expect``, and the line given as its argument to every other one (``{id}``
there is the request's id as a JSON string), all the answers to what one read brought
in one write: the harness's reader then hands over mixed groups of lines at once, as
it does from the served children (tests/test_group_acknowledged.py).
"""

from __future__ import annotations

import json
import os
import sys

DOMAIN = "oauth-pkce"
answer = sys.argv[1]
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
            info = {"name": "group", "version": "0", "language": "python", "domains": [DOMAIN]}
            answers.append(json.dumps({"ok": True, "implementation": info}))
        elif command == "extensions":
            answers.append(json.dumps({"extensions": message["use"]}))
        elif "expect" in message:
            answers.append("=")
        else:
            answers.append(answer.replace("{id}", json.dumps(message["id"])))
    out.write("".join(f"{a}\n" for a in answers).encode())
    out.flush()
