"""The worker protocol's messages, checked once against schemas/protocol/*.json.

Every message that crosses a worker's pipes is checked here and nowhere else:
the harness's own ``start``/``stop`` lines when this module is imported, each
``run`` request as it is encoded, and each line a worker writes as it is read.
Validators are compiled once per process. Plainly valid ``run`` requests and
responses (the shapes the harness and healthy workers send) take a fast path
that accepts only what the schema accepts; the rest is judged by the schema.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Callable
from functools import cache
from typing import Any

from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from ._json import compact_ascii, compact_text, encode_string
from ._resources import project_dir
from .protocol import (
    EXTENSIONS,
    PROTOCOL_VERSION,
    RUN_DOMAIN,
    RUN_EXPECT,
    RUN_EXPECT_ERROR,
    RUN_ID,
    RUN_INPUT,
    TAB_EXPECT,
    TAB_EXPECT_ERROR,
    KnownInputText,
    Request,
)

__all__ = [
    "START_LINE",
    "STOP_LINE",
    "BadRequest",
    "KnownInputText",
    "encode_request",
    "expect_error_line",
    "expect_line",
    "expected_answer",
    "plainly_valid_response",
    "problem",
    "tab_line",
]

SCHEMA_DIR = project_dir("schemas") / "protocol"
MESSAGES = ("start", "started", "run", "response", "stop")

_CODE = re.compile(r"[a-z][a-z0-9_]*")
_DOMAIN = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")


@cache
def validator(message: str) -> Draft202012Validator:
    """The compiled validator for schemas/protocol/<message>.json."""
    if message not in MESSAGES:
        raise KeyError(message)
    schema = json.loads((SCHEMA_DIR / f"{message}.json").read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema, registry=_registry())


@cache
def _registry() -> Registry:
    """The protocol's schemas by ``$id``: ``started.json`` takes the ``absent`` word's
    schema from ``response.json`` (one definition), with nothing fetched."""
    resources = []
    for name in MESSAGES:
        schema = json.loads((SCHEMA_DIR / f"{name}.json").read_text(encoding="utf-8"))
        resources.append((schema["$id"], Resource.from_contents(schema)))
    return Registry().with_resources(resources)


def plainly_valid_response(answer: Any) -> bool:
    """A fast check that implies validity against response.json (jsonschema costs ~60 us).

    It accepts only what the schema accepts; anything it rejects is judged by the schema.
    """
    if type(answer) is not dict or len(answer) != 2 or type(answer.get("id")) is not str:
        return False
    if "output" in answer:
        return True
    error = answer.get("error")
    if error is not None:
        return (
            type(error) is dict
            and len(error) == 2
            and type(error.get("code")) is str
            and _CODE.fullmatch(error["code"]) is not None
            and type(error.get("message")) is str
        )
    skip = answer.get("skip")
    if skip is not None:
        reason = skip.get("reason") if type(skip) is dict and len(skip) == 1 else None
        return type(reason) is str and reason != ""
    body = answer.get("crash")
    return (
        type(body) is dict
        and len(body) == 2
        and type(body.get("message")) is str
        and type(body.get("detail")) is str
    )


def _plainly_valid_run(message: Any) -> bool:
    return (
        type(message) is dict
        and len(message) == 4
        and message.get("cmd") == "run"
        and type(message.get("id")) is str
        and message["id"] != ""
        and type(message.get("domain")) is str
        and _kebab(message["domain"])
        and "input" in message
    )


@cache
def _kebab(domain: str) -> bool:  # a run has few domains and many requests
    return _DOMAIN.fullmatch(domain) is not None


def problem(message: str, instance: Any) -> str | None:
    """None if ``instance`` is a valid ``message`` (start, started, run, response, stop).

    Otherwise the schema's most specific complaint, with the JSON pointer it is about.
    """
    if message == "response" and plainly_valid_response(instance):
        return None
    if message == "run" and _plainly_valid_run(instance):
        return None
    check = validator(message)
    if check.is_valid(instance):
        return None
    errors = sorted(check.iter_errors(instance), key=lambda e: len(e.absolute_path))
    best = errors[0]
    where = "/" + "/".join(str(p) for p in best.absolute_path)
    return f"{best.message} (at {where})"


def _line(message: str, value: dict[str, Any]) -> bytes:
    trouble = problem(message, value)
    if trouble is not None:  # a harness bug: fail loudly at import
        raise AssertionError(f"the harness's own {message} message is invalid: {trouble}")
    return json.dumps(value).encode("ascii") + b"\n"


START_LINE = _line("start", {"cmd": "start", "version": PROTOCOL_VERSION})
STOP_LINE = _line("stop", {"cmd": "stop"})
EXTENSIONS_LINE = json.dumps({"cmd": "extensions", "use": list(EXTENSIONS)}).encode("ascii") + b"\n"
"""Offers the extensions, right after the handshake (only to the harness's children)."""


class BadRequest(ValueError):
    """The harness built a request the protocol does not allow (a harness bug)."""


def _spliceable(request_id: Any, domain: Any, input_json: str | None) -> bool:
    """A ``run`` line can be spliced from these (``_spliced_run``): the input has its
    text, the id is a non-empty string and the domain kebab-case (what
    ``_plainly_valid_run`` checks, without building the message)."""
    return (
        input_json is not None
        and type(request_id) is str
        and request_id != ""
        and type(domain) is str
        and _kebab(domain)
    )


def _spliced_run(request_id: Any, domain: Any, input_json: str | None, more: str) -> str | None:
    """A ``run`` line's text with the input's JSON text spliced in and ``more`` (further
    members, each with its leading comma) after it; None unless the request is plainly
    valid (what _plainly_valid_run checks, without building the message). The same bytes
    as encoding the message (key order, separators); the domain is kebab-case, so it
    needs no escaping.
    """
    if not _spliceable(request_id, domain, input_json):
        return None
    return (
        f'{RUN_ID}{encode_string(request_id)}{RUN_DOMAIN}"{domain}"'
        f"{RUN_INPUT}{input_json}{more}}}\n"
    )


def encode_request(request: Request) -> bytes:
    """One ``run`` line, UTF-8; checked against run.json.

    A lone surrogate has no UTF-8 form: the line then uses ``\\uXXXX`` escapes,
    which carry it to the worker faithfully.
    """
    input_json = getattr(request, "input_json", None)
    if input_json is not None:
        line: bytes | None = request.line  # type: ignore[attr-defined]
        if line is not None:  # made for another platform's run of the same request
            return line
    request_id, domain = request["id"], request["domain"]
    text = _spliced_run(request_id, domain, input_json, "")
    if text is not None:
        with contextlib.suppress(UnicodeEncodeError):  # a lone surrogate: the slow way below
            line = request.line = text.encode("utf-8")  # type: ignore[attr-defined]
            return line
    message: dict[str, Any] = {
        "cmd": "run",
        "id": request_id,
        "domain": domain,
        "input": request["input"],
    }
    trouble = problem("run", message)
    if trouble is not None:
        raise BadRequest(f"request {request_id!r} does not match run.json: {trouble}")
    try:
        text = compact_text(message)
    except ValueError as exc:
        raise BadRequest(f"request {request_id!r} is not JSON: {exc}") from None
    try:
        return text.encode("utf-8") + b"\n"
    except UnicodeEncodeError:
        return compact_ascii(message).encode("ascii") + b"\n"


def expected_answer(request: Request) -> bytes | None:
    """The response line that means "the output the request expects", if it says
    (``adapters.protocol.KnownInputText``): ``{"id":<id>,"output":<text>}``, compact,
    UTF-8 (without the newline that ends it), as ``adapters/serve.py``,
    ``impl_js/conformance/worker.mjs`` and the Rust extension write it. Kept on the
    request (``answer_line``).

    Seeing exactly these bytes means the answer is ``{id, output}`` with that output
    (a valid response). A worker that spells it differently (other key order,
    spacing, escapes or number forms) still answers correctly; its line is just
    decoded and judged the ordinary way.
    """
    output_json = getattr(request, "expected_output_json", None)
    if output_json is None:
        return None
    line: bytes | None = request.answer_line  # type: ignore[attr-defined]
    if line is None:
        text = f'{{"id":{encode_string(request["id"])},"output":{output_json}}}'
        try:
            line = text.encode("utf-8")
        except UnicodeEncodeError:  # no UTF-8 form: no worker writes it so
            line = b""
        request.answer_line = line  # type: ignore[attr-defined]
    return line or None


def expect_line(request: Request) -> bytes | None:
    """The ``run`` line with the expect extension's ``"expect": <the expected output's
    JSON text, as a JSON string>`` after the input, if the request says what it expects
    (``adapters.protocol.KnownInputText``) and its line takes the harness's plain
    spelling (``encode_request``); None otherwise (then the plain line goes, and the
    answer is judged as usual). Kept on the request (``expect_line``).
    """
    line: bytes | None = getattr(request, "expect_line", b"")  # b"": a plain request
    if line is None:
        line = request.expect_line = _expect_line(request)  # type: ignore[attr-defined]
    return line or None


def _expect_line(request: Any) -> bytes:
    """``expect_line`` made (``b""``: none): ``_spliced_run``'s spelling with one more
    key, written out in one f-string (once per case, for the first platform that takes
    the extension; tests/test_request_text.py checks it against the encoder)."""
    output_json = request.expected_output_json
    request_id, domain, input_json = request["id"], request["domain"], request.input_json
    if (  # _spliceable, written out: this runs once per case
        output_json is None
        or input_json is None
        or type(request_id) is not str
        or request_id == ""
        or type(domain) is not str
        or not _kebab(domain)
    ):
        return b""
    try:  # no UTF-8 form (a lone surrogate): no expect
        return (
            f'{RUN_ID}{encode_string(request_id)}{RUN_DOMAIN}"{domain}"'
            f"{RUN_INPUT}{input_json}{RUN_EXPECT}{encode_string(output_json)}}}\n"
        ).encode()
    except UnicodeEncodeError:
        return b""


def expect_error_line(request: Request) -> bytes | None:
    """The ``run`` line with the expect-error extension's ``"expect_error": <the expected
    error code>`` after the input, if the request says which contract error it expects
    (``adapters.protocol.KnownInputText.expected_error``) and its line takes the
    harness's plain spelling; None otherwise. Kept on the request (``error_line``).
    """
    line: bytes | None = getattr(request, "error_line", b"")  # b"": a plain request
    if line is None:
        line = request.error_line = _error_line(request)  # type: ignore[attr-defined]
    return line or None


def _error_line(request: Any) -> bytes:
    """``expect_error_line`` made (``b""``: none), as ``_expect_line`` is."""
    code = request.expected_error
    request_id, domain, input_json = request["id"], request["domain"], request.input_json
    if type(code) is not str or not _spliceable(request_id, domain, input_json):
        return b""
    try:
        return (
            f'{RUN_ID}{encode_string(request_id)}{RUN_DOMAIN}"{domain}"'
            f"{RUN_INPUT}{input_json}{RUN_EXPECT_ERROR}{encode_string(code)}}}\n"
        ).encode()
    except UnicodeEncodeError:
        return b""


def tab_line(request: Request) -> bytes | None:
    """The tab-run line of a request (docs/protocol.md, "The tab-run extension"):
    ``<id> TAB <domain> TAB <expectation> TAB <input JSON>``, the expectation ``=`` and
    the expected output's text, ``!`` and the expected error code, or empty; None when
    the request has no input text (``adapters.protocol.KnownInputText``) or a field would
    hold a tab, a CR or a LF. Kept on the request (``tab_line``)."""
    line: bytes | None = getattr(request, "tab_line", b"")  # b"": a plain request
    if line is None:
        line = request.tab_line = _tab_line(request)  # type: ignore[attr-defined]
    return line or None


def _tab_line(request: Any) -> bytes:
    """``tab_line`` made (``b""``: none). No escaping: the checks below are what keeps
    the four fields apart (compact JSON text never holds a raw tab, CR or LF)."""
    request_id, domain, input_json = request["id"], request["domain"], request.input_json
    if not _spliceable(request_id, domain, input_json) or request_id[0] == "{":
        return b""
    output_json, code = request.expected_output_json, request.expected_error
    if output_json is not None:
        expectation = TAB_EXPECT + output_json
    elif type(code) is str:
        expectation = TAB_EXPECT_ERROR + code
    else:
        expectation = ""
    text = f"{request_id}\t{domain}\t{expectation}\t{input_json}\n"
    if text.count("\t") != 3 or text.count("\n") != 1 or "\r" in text:
        return b""
    try:
        return text.encode()
    except UnicodeEncodeError:  # a lone surrogate: the JSON line escapes it
        return b""


_scan_string: Callable[[str, int, bool], tuple[str, int]] = json.decoder.scanstring  # type: ignore[attr-defined]


def error_acknowledged(line: bytes) -> str | None:
    """The message an expect-error answer line (``!"<message>"``) carries, or None if the
    line is not exactly ``!`` and one JSON string (then it is judged as any other line)."""
    try:
        text = line.decode("utf-8")
        if text[1:2] != '"':
            return None
        message, end = _scan_string(text, 2, True)
    except ValueError:  # not UTF-8, or not a JSON string
        return None
    return message if end == len(text) else None
