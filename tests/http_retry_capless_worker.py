"""A planted-fault platform for http-retry, speaking docs/protocol.md: the Python
reference with the cap of RETRY-7 raised to anthropic-py 2.15.0's sleep limit
(4 294 967 s), so a Retry-After above 60 s is honoured instead of refused.

tests/test_http_retry_generate.py runs it as ``--worker capless='python THIS'`` and
checks that ``generate`` finds the fault and shrinks it.
"""

from __future__ import annotations

import json
import sys
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import impl_python.retry as retry
from impl_python.conformance.http_retry import run
from impl_python.errors import HanzoError

retry.RETRY_AFTER_CAP_MS = 4_294_967_000  # the fault: decide() reads the module's cap


def answer(request: dict[str, object]) -> dict[str, object]:
    if request.get("cmd") == "start":
        implementation = {"name": "capless", "version": "0", "language": "python"}
        return {"ok": True, "implementation": {**implementation, "domains": ["http-retry"]}}
    rid = request.get("id", "")
    if request.get("domain") != "http-retry":
        return {"id": rid, "crash": {"message": "unknown domain", "detail": ""}}
    try:
        return {"id": rid, "output": run(request["input"])}  # type: ignore[arg-type]
    except HanzoError as e:
        return {"id": rid, "error": {"code": e.code, "message": str(e)}}
    except Exception as e:  # a crash answers this case; the worker goes on
        return {"id": rid, "crash": {"message": repr(e), "detail": traceback.format_exc()}}


def main() -> None:
    for line in sys.stdin:
        request = json.loads(line)
        if request.get("cmd") == "stop":
            break
        sys.stdout.write(json.dumps(answer(request)) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
