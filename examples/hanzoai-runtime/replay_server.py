"""The replay MCP server of examples/hanzoai-runtime's mcp-stdio cases: writes a case's
stdout bytes (argv[1], a JSON file of byte chunks as latin-1 strings), chunk by chunk,
then closes its stdout, and reads its stdin until the client closes it (argv[2] receives
those lines; the worker records the client's writes itself, on the client's side)."""

import json
import os
import sys
import threading

with open(sys.argv[1], encoding="utf-8") as source:
    chunks = [c.encode("latin-1") for c in json.load(source)]
record = open(sys.argv[2], "ab", buffering=0)  # noqa: SIM115 (open for the process's life)


def recorder() -> None:
    for line in sys.stdin.buffer:
        record.write(line)


threading.Thread(target=recorder, daemon=True).start()
out = sys.stdout.buffer
for chunk in chunks:
    if chunk:
        out.write(chunk)
        out.flush()
out.flush()
os.close(1)  # sys.stdout does not own fd 1: closing it would not end the stream
for line in sys.stdin.buffer:  # keep recording until the client closes stdin
    record.write(line)
