"""A worker that takes the expect extension and answers every ``run`` line with ``=``
("my output is what you expect"), whether or not the line carried ``expect``: it lies
to the harness's fast paths (tests/test_marked_passes.py).

Each ``=`` is written and flushed on its own, or, with ``--together``, all the answers
to what one read brought in one write (so the harness's reader hands over many ``=``
lines at once, as it does from the served children).
"""

from __future__ import annotations

import json
import os
import sys

together = "--together" in sys.argv[1:]
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
            info = {"name": "ack", "version": "0", "language": "python", "domains": ["oauth-pkce"]}
            answers.append(json.dumps({"ok": True, "implementation": info}).encode() + b"\n")
        elif command == "extensions":
            answers.append(json.dumps({"extensions": ["expect"]}).encode() + b"\n")
        else:
            answers.append(b"=\n")
        if not together:
            out.write(b"".join(answers))
            out.flush()
            answers = []
    out.write(b"".join(answers))
    out.flush()
