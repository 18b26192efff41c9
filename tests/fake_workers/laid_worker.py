"""A worker that asks the harness to lay out its OS cases and answers them with the
reference's ``run_laid`` (the JSON layers' code past the layout), so it has no layout
of its own: ``laid_worker.py LOG ANNOUNCE [DOMAIN...]``.

``ANNOUNCE`` is the handshake's ``harness_lays_out`` as JSON (``'"all"'``, ``'["hooks"]'``,
or ``null`` to announce nothing). For each case it appends to ``LOG`` one JSON line:
the id, the input it was sent, the case root its input names (``path``: the layout's
temporary directory, null when no string names it) and whether that root was a directory
when the worker was called (``exists``).
"""

from __future__ import annotations

import importlib
import json
import os
import re
import sys
import traceback
from typing import Any

from impl_python.errors import HanzoError

DOMAINS = ["config-merge", "hooks", "sandbox-paths", "tool-call-pipeline"]


CASE_ROOT = re.compile(r"/[^\"']*?/hanzo-(?:cfg|hooks|sandbox|pipeline)-[A-Za-z0-9_]+")


def _case_root(case_input: dict[str, Any]) -> str | None:
    """The case root the input names (the layout's temporary directory), if any."""
    found = CASE_ROOT.search(json.dumps(case_input))
    return None if found is None else found[0]


def main() -> None:
    log_path, announce = sys.argv[1], json.loads(sys.argv[2])
    domains = sys.argv[3:] or DOMAINS
    for line in sys.stdin:
        message = json.loads(line)
        command = message.get("cmd")
        if command == "stop":
            break
        if command == "start":
            info = {"name": "laid", "version": "0", "language": "python", "domains": domains}
            answer: dict[str, Any] = {"ok": True, "implementation": info}
            if announce is not None:
                answer["harness_lays_out"] = announce
        else:
            domain, case_input = message["domain"], message["input"]
            path = _case_root(case_input)
            with open(log_path, "a", encoding="utf-8") as log:
                record = {"id": message["id"], "domain": domain, "input": case_input}
                record["path"] = path
                record["exists"] = isinstance(path, str) and os.path.isdir(path)
                log.write(json.dumps(record) + "\n")
            layer = importlib.import_module("impl_python.conformance." + domain.replace("-", "_"))
            try:
                answer = {"id": message["id"], "output": layer.run_laid(case_input)}
            except HanzoError as e:
                answer = {"id": message["id"], "error": {"code": e.code, "message": str(e)}}
            except Exception as e:
                detail = traceback.format_exc()
                answer = {"id": message["id"], "crash": {"message": repr(e), "detail": detail}}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
