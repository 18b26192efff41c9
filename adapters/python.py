"""Platform ``python``: impl_python, driven in-process.

Each domain's JSON layer is the module ``impl_python.conformance.<domain_snake>``
with ``run(case_input) -> output``; a domain is implemented when its module exists.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
import platform
import traceback
from collections.abc import Callable, Sequence
from typing import Any

from impl_python import conformance
from impl_python.errors import HanzoError

from .protocol import Adapter, Implementation, Request, Response, crash
from .serve import ACK, ERROR_ACK, encode, encode_message, output_text

# How the harness spells a run line (adapters.messages.encode_request), piece by piece.
_RUN_ID = '{"cmd":"run","id":"'
_DOMAIN = ',"domain":"'
_INPUT = ',"input":'
_EXPECT_KEY = ',"expect":'  # the expect extension's key, after the input (adapters/serve.py)
_EXPECT_ERROR_KEY = ',"expect_error":'  # the expect-error extension's, in the same place
# A JSON string's value and end, from just after its opening quote (the decoder's own
# scanner; typeshed does not declare it).
_scan_string: Callable[[str, int], tuple[str, int]] = json.decoder.scanstring  # type: ignore[attr-defined]
_raw_decode = json.JSONDecoder().raw_decode  # as adapters.serve decodes a request
# A str as a JSON string, as the harness spells the expect (adapters.messages).
_encode_string: Callable[[str], str] = json.encoder.encode_basestring

RunFn = Callable[[Any], Any]


def _domain_modules() -> dict[str, RunFn]:
    found: dict[str, RunFn] = {}
    for info in pkgutil.iter_modules(conformance.__path__):
        domain = info.name.replace("_", "-")
        try:
            found[domain] = importlib.import_module(f"{conformance.__name__}.{info.name}").run
        except Exception:  # a broken module fails its own domain's cases, not the platform
            found[domain] = _broken(traceback.format_exc())
    return found


def _broken(detail: str) -> RunFn:
    def run(case_input: Any) -> Any:
        raise ImportError(f"domain module failed to import:\n{detail}")

    return run


class PythonAdapter:
    name = "python"
    run_line_extensions = ("expect", "expect-error")  # what run_line answers (adapters/serve.py)

    def __init__(self) -> None:
        self._domains: dict[str, RunFn] = {}
        # A subclass that overrides run (a test double) is served the ordinary way.
        self._overridden = type(self).run is not PythonAdapter.run

    def start(self) -> Implementation:
        self._domains = _domain_modules()
        return Implementation(
            name="hanzo-python-reference",
            version="0.1.0",
            language=f"python {platform.python_version()}",
            domains=frozenset(self._domains),
        )

    def run(self, requests: Sequence[Request]) -> list[Response]:
        return [self._run_one(r) for r in requests]

    def _run_one(self, request: Request) -> Response:
        run = self._domains.get(request["domain"])
        if run is None:
            return crash(request["id"], f"python does not implement {request['domain']}")
        try:
            return {"id": request["id"], "output": run(request["input"])}
        except HanzoError as e:
            return {"id": request["id"], "error": {"code": e.code, "message": str(e)}}
        except Exception as e:  # an implementation bug: reported, never raised
            return crash(request["id"], f"{type(e).__name__}: {e}", traceback.format_exc())

    def run_line(self, line: bytes) -> bytes | None:
        """Answer one ``run`` line spelled as the harness spells it (the served child's
        fast path, adapters/serve.py): the id and domain are read with the JSON string
        scanner and only the input is decoded, with no message object in between.
        None for any other line: the ordinary path (decode, ``run``) takes it, as it
        takes every line for a subclass that overrides ``run`` (a test double, say).

        A line that ends with ``"expect":"<text>"`` (the expect extension) is answered
        ``ACK`` when the output, encoded as this child writes outputs, is that text: the
        line's expect is compared as it is spelled, with the output's text spelled as a
        JSON string by the encoder the harness spells it with (``encode_basestring``),
        so the expect is never decoded.
        """
        if self._overridden:
            return None
        try:
            text = line.decode("utf-8")
            if not text.startswith(_RUN_ID):
                return None
            request_id, end = _scan_string(text, len(_RUN_ID))
            if not text.startswith(_DOMAIN, end):
                return None
            domain, end = _scan_string(text, end + len(_DOMAIN))
            if not text.startswith(_INPUT, end):
                return None
            case_input, end = _raw_decode(text, end + len(_INPUT))
        except ValueError:  # not UTF-8, or not JSON where JSON belongs
            return None
        # What follows the input: nothing, or one extension's key and string (the string
        # itself is checked against the output, or the error's code, below).
        expect_at = error_at = 0
        if text.startswith(_EXPECT_KEY, end):
            expect_at = end + len(_EXPECT_KEY)
            if text.endswith('"}', expect_at + 1):
                end = len(text) - 1
        elif text.startswith(_EXPECT_ERROR_KEY, end):
            error_at = end + len(_EXPECT_ERROR_KEY)
            if text.endswith('"}', error_at + 1):
                end = len(text) - 1
        if len(text) != end + 1 or text[end] != "}":
            return None  # more keys, or anything else: not the harness's spelling
        run = self._domains.get(domain)
        if run is None:
            return encode(crash(request_id, f"python does not implement {domain}"))
        try:
            output = run(case_input)
        except HanzoError as e:
            # The expected code, compared as spelled (like the expect below): "!" and the
            # message (the expect-error extension, docs/protocol.md).
            if error_at and type(e.code) is str:
                spelled = _encode_string(e.code)
                if len(spelled) == end - error_at and text.startswith(spelled, error_at):
                    return ERROR_ACK + encode_message(str(e))
            return encode({"id": request_id, "error": {"code": e.code, "message": str(e)}})
        except Exception as e:  # an implementation bug: reported, never raised
            return encode(crash(request_id, f"{type(e).__name__}: {e}", traceback.format_exc()))
        if expect_at:
            try:
                # The expect string is the rest of the line but its closing brace: the
                # output's text as a JSON string, exactly, is that string.
                spelled = _encode_string(output_text(output))
            except (TypeError, ValueError):  # not JSON: encode() reports it
                pass
            else:
                if len(spelled) == end - expect_at and text.startswith(spelled, expect_at):
                    return ACK
        return encode({"id": request_id, "output": output})

    def stop(self) -> None:
        self._domains = {}


def create() -> Adapter:
    return PythonAdapter()
