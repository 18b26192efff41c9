"""A docs/protocol.md worker for token-estimation that counts the wrong unit.

The planted faults of tests/test_generate_token_estimation.py: the Python
reference's JSON layer with its UTF-8 length replaced by the number of code points
(``len``, what hanzoai 8.5.914's estimator counts) or, with ``--utf-16``, of UTF-16
code units (JS's ``.length``); TOK-1 rejects both.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from impl_python import tokens
from impl_python.conformance import token_estimation
from impl_python.errors import HanzoError


def utf16_length(text: str) -> int:
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


wrong_length = utf16_length if "--utf-16" in sys.argv[1:] else len
tokens.utf8_length = wrong_length
token_estimation.utf8_length = wrong_length  # type: ignore[attr-defined]


def answer(request: dict) -> dict:
    try:
        return {"id": request["id"], "output": token_estimation.run(request["input"])}
    except HanzoError as e:
        return {"id": request["id"], "error": {"code": e.code, "message": str(e)}}


for line in sys.stdin:
    message = json.loads(line)
    if message.get("cmd") == "start":
        reply: dict = {
            "ok": True,
            "implementation": {
                "name": "token-utf-16-units" if "--utf-16" in sys.argv[1:] else "token-code-points",
                "version": "0",
                "language": "python",
                "domains": ["token-estimation"],
            },
        }
    elif message.get("cmd") == "run":
        reply = answer(message)
    else:
        break
    sys.stdout.write(json.dumps(reply, ensure_ascii=False) + "\n")
    sys.stdout.flush()
