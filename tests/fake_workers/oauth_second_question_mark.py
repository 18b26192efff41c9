"""A planted fault for `generate --domain oauth-authorize` (tests/test_generate_oauth_authorize.py).

The reference's oauth-authorize JSON layer, except that the authorize URL is built as
``f"{endpoint}?{parameters}"`` whatever the endpoint holds: a second `?` after an
endpoint that has a query already (AUTH-3), as `mcp`'s client does
(`f"{auth_endpoint}?{urlencode(auth_params)}"`). It speaks docs/protocol.md on
stdin/stdout, self-contained like the example workers.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from impl_python.conformance import oauth_authorize
from impl_python.errors import HanzoError


def faulty(case_input: dict[str, Any]) -> dict[str, Any]:
    output = oauth_authorize.run(case_input)
    if case_input["op"] == "authorize-url":
        endpoint = case_input["authorization_endpoint"]
        added = output["url"][len(endpoint) :].lstrip("?&")
        output = {"url": f"{endpoint}?{added}"}
    return output


def answer(request: dict[str, Any]) -> dict[str, Any]:
    if request.get("cmd") == "start":
        info = {"name": "second-question-mark", "version": "0", "language": "python"}
        return {"ok": True, "implementation": {**info, "domains": ["oauth-authorize"]}}
    try:
        return {"id": request["id"], "output": faulty(request["input"])}
    except HanzoError as e:
        return {"id": request["id"], "error": {"code": e.code, "message": str(e)}}


def main() -> None:
    for line in sys.stdin:
        request = json.loads(line)
        if request.get("cmd") == "stop":
            break
        sys.stdout.write(json.dumps(answer(request)) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
