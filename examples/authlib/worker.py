"""A conformance worker for Authlib 1.9.6's PKCE (RFC 7636), on the oauth-pkce domain.

    pip install authlib==1.9.6
    hanzo-conformance run --worker authlib='python examples/authlib/worker.py' \
        --platform authlib --domain oauth-pkce --expectations examples/authlib/expectations.json

It speaks docs/protocol.md on stdin/stdout: answer ``start``, then one answer per
``run``, flushed. The JSON layer does what an Authlib authorization server does with
a token request's ``code_verifier`` (``CodeChallenge.validate_code_verifier``): the
verifier must match ``CODE_VERIFIER_PATTERN``, else the request is refused
(``invalid_verifier`` here); the challenge is ``create_s256_code_challenge``.
Authlib has no PKCE ``generate()`` (its client documentation makes a verifier with
``generate_token(48)``: 48 alphanumerics, a valid verifier but not PKCE-5's 43
base64url characters from 32 random bytes), so a ``generate`` request is answered
``skip``, never compared as if it were one. Nothing is corrected: the ledger next to
this file records where Authlib differs. Like every example worker it is
self-contained (its protocol loop is the httpx-sse worker's), so that it can be copied
into the repository of whoever gates on it.
"""

from __future__ import annotations

import json
import sys
import traceback
from importlib import metadata
from typing import Any

try:
    from authlib.oauth2.rfc7636 import challenge as rfc7636
except ImportError:
    raise SystemExit("authlib is not installed: pip install authlib==1.9.6") from None


NO_GENERATE = "Authlib has no PKCE generate() (PKCE-5); its docs use generate_token(48)"


def oauth_pkce(case_input: dict[str, Any]) -> dict[str, Any]:
    verifier = case_input["verifier"]
    if not isinstance(verifier, str) or not rfc7636.CODE_VERIFIER_PATTERN.match(verifier):
        raise InvalidVerifier
    return {"challenge": rfc7636.create_s256_code_challenge(verifier)}


class InvalidVerifier(Exception):
    """Authlib's server answers such a token request with invalid_request."""


DOMAINS = {"oauth-pkce": oauth_pkce}


def answer(request: dict[str, Any]) -> dict[str, Any]:
    if request.get("cmd") == "start":
        return {
            "ok": True,
            "implementation": {
                "name": "authlib",
                "version": metadata.version("authlib"),
                "language": f"python {sys.version.split()[0]}",
                "domains": sorted(DOMAINS),
            },
        }
    run = DOMAINS.get(request.get("domain", ""))
    if run is None:
        return {"id": request.get("id", ""), "crash": {"message": "unknown domain", "detail": ""}}
    if "generate" in request["input"]:
        return {"id": request["id"], "skip": {"reason": NO_GENERATE}}
    try:
        return {"id": request["id"], "output": run(request["input"])}
    except InvalidVerifier:
        error = {"code": "invalid_verifier", "message": "does not match CODE_VERIFIER_PATTERN"}
        return {"id": request["id"], "error": error}
    except Exception as e:  # a crash answers this case; the worker goes on
        return {
            "id": request["id"],
            "crash": {"message": repr(e), "detail": traceback.format_exc()},
        }


def main() -> None:
    for line in sys.stdin:
        request = json.loads(line)
        if request.get("cmd") == "stop":
            break
        sys.stdout.write(json.dumps(answer(request)) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
