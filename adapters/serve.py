"""``python -m adapters.serve PLATFORM``: an in-process platform behind the worker protocol.

The ``python`` and ``rust`` platforms run their implementations inside the
harness's interpreter, where an endless loop hangs the run and an abort (a
``panic = "abort"`` build, a segfault, ``os._exit``) ends it. Served from this
child process instead (``adapters/served.py``), they get what every worker gets:
a per-case timeout, crash isolation with stderr, restarts (docs/protocol.md).

PLATFORM is ``python``, ``rust`` or ``module:factory`` (any in-process
:class:`adapters.protocol.Adapter`, e.g. a test double). Requests are answered
one at a time and each answer is flushed at once, so a case that hangs or kills
the process is the one blamed; the harness pipelines whole batches, so the hop
costs a few microseconds per case (bench/README.md).
"""

from __future__ import annotations

import faulthandler
import importlib
import json
import os
import sys
from collections.abc import Callable
from typing import IO, Any

from .protocol import PROTOCOL_VERSION, Adapter, PlatformUnavailable, Response, crash

IN_PROCESS_FACTORIES = {"python": "adapters.python:create", "rust": "adapters.rust:create"}


def load_adapter(spec: str) -> Adapter:
    """The in-process adapter for ``python``, ``rust`` or ``module:factory``."""
    module, sep, attr = IN_PROCESS_FACTORIES.get(spec, spec).partition(":")
    if not sep:
        raise SystemExit(
            f"adapters.serve: unknown platform {spec!r} (python, rust or module:factory)"
        )
    factory: Callable[[], Adapter] = getattr(importlib.import_module(module), attr)
    return factory()


def encode(response: Response) -> bytes:
    """One response line. An output that has no UTF-8 form (a lone surrogate) is sent
    with ``\\u`` escapes, so that the harness can report it against its case."""
    try:
        text = json.dumps(response, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    except ValueError as exc:  # NaN or an infinity: not JSON at all
        text = json.dumps(crash(response["id"], f"output is not JSON: {exc}"))
    try:
        return text.encode("utf-8") + b"\n"
    except UnicodeEncodeError:
        return json.dumps(response, allow_nan=False, separators=(",", ":")).encode("ascii") + b"\n"


def _write(out: IO[bytes], line: bytes) -> None:
    out.write(line)
    out.flush()


def _handshake_answer(out: IO[bytes], message: dict[str, Any]) -> None:
    _write(out, json.dumps(message).encode("utf-8") + b"\n")


def serve(adapter: Adapter, stdin: IO[bytes], stdout: IO[bytes]) -> int:
    """Answer the protocol on the given streams until ``stop`` or end of file."""
    implementation = adapter.start()
    started = False
    for line in stdin:
        try:
            request = json.loads(line)
        except ValueError as exc:
            _write(stdout, encode(crash("", f"request is not JSON: {exc}")))
            continue
        command = request.get("cmd") if isinstance(request, dict) else None
        if command == "stop":
            break
        if not started:
            if command != "start" or request.get("version") != PROTOCOL_VERSION:
                code = "unsupported_version" if command == "start" else "bad_request"
                error = {
                    "code": code,
                    "message": f"this worker speaks protocol {PROTOCOL_VERSION} only",
                }
                _handshake_answer(
                    stdout, {"ok": False, "error": error, "versions": [PROTOCOL_VERSION]}
                )
                continue
            started = True
            info = {
                "name": implementation.name,
                "version": implementation.version,
                "language": implementation.language,
                "domains": sorted(implementation.domains),
            }
            _handshake_answer(stdout, {"ok": True, "implementation": info})
            continue
        if command != "run":
            _write(
                stdout, encode(crash(str(request.get("id", "")), f"unknown command {command!r}"))
            )
            continue
        [response] = adapter.run(
            [{"id": request["id"], "domain": request["domain"], "input": request["input"]}]
        )
        _write(stdout, encode(response))
    adapter.stop()
    return 0


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m adapters.serve python|rust|module:factory", file=sys.stderr)
        return 2
    # An abort or a segfault (in an extension, say) leaves a Python traceback on stderr,
    # which the harness attaches to the case that caused it.
    faulthandler.enable()
    # The protocol owns file descriptor 1; anything the implementation prints goes to stderr.
    protocol_out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    adapter = load_adapter(args[0])
    try:
        return serve(adapter, sys.stdin.buffer, protocol_out)
    except PlatformUnavailable as exc:
        print(str(exc), file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
