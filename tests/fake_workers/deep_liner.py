"""A worker that answers a case whose input says ``deep`` with one line nested 100,000
arrays deep (more than any JSON decoder here follows), one whose input says ``long``
with a line a MiB longer than the harness keeps (adapters/process.py LINE_LIMIT), and
every other case with ``{"frames": []}``."""

from __future__ import annotations

import json
import sys

DEPTH = 100_000
LONG = 65 * 1024 * 1024


def main() -> None:
    for line in sys.stdin:
        request = json.loads(line)
        if request["cmd"] == "start":
            implementation = {
                "name": "deep",
                "version": "1",
                "language": "python",
                "domains": ["sse-frames"],
            }
            out = json.dumps({"ok": True, "implementation": implementation})
        elif request["cmd"] != "run":
            break
        elif "deep" in json.dumps(request["input"]):
            out = (
                '{"id": '
                + json.dumps(request["id"])
                + ', "output": '
                + "[" * DEPTH
                + "]" * DEPTH
                + "}"
            )
        elif "long" in json.dumps(request["input"]):
            out = '{"id": ' + json.dumps(request["id"]) + ', "output": "' + "x" * LONG + '"}'
        else:
            out = json.dumps({"id": request["id"], "output": {"frames": []}})
        sys.stdout.write(out + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
