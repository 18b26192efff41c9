"""The one interface every platform is driven through.

A platform is anything that can turn a batch of requests ``{id, domain, input}``
into one response each. The harness never looks further inside: an in-process
Python module, a compiled extension and a subprocess in another language are
all adapters.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypedDict, runtime_checkable

PROTOCOL_VERSION = 1

# -- the words of the worker protocol (docs/protocol.md), each spelled here only -------

EXPECT = "expect"
"""The extension that acknowledges an output whose compact text is the request's expect."""
EXPECT_ERROR = "expect-error"
"""The extension that acknowledges an expected contract error with its message only."""
TAB_RUN = "tab-run"
"""The extension that sends a case's own request as one tab-separated line."""
EXTENSIONS = (EXPECT, EXPECT_ERROR, TAB_RUN)
"""What the harness offers its own children, right after the handshake."""
ACK = b"="
"""The expect extension's answer line (without its newline): "the output's compact JSON
text is the request's expect"."""
ACK_LINE = ACK + b"\n"
ERROR_ACK = b"!"
"""How an expect-error answer line begins: ``!`` and the contract error's message as a
JSON string ("the error has the request's expect_error code")."""
TAB_EXPECT = "="
"""A tab-run line's expectation field: ``=`` and the expected output's compact text."""
TAB_EXPECT_ERROR = "!"
"""Or ``!`` and the expected error code (an empty field: no expectation)."""

# How the harness spells a ``run`` line, piece by piece: ``RUN_ID`` <id as a JSON string>
# ``RUN_DOMAIN`` <domain as a JSON string> ``RUN_INPUT`` <input's compact text>, then
# optionally ``RUN_EXPECT`` or ``RUN_EXPECT_ERROR`` and a JSON string, then ``}``.
# A line spelled otherwise is still a valid request; only this spelling takes the
# children's fast paths.
ABSENT = "absent"
"""The output fields a platform does not have, as JSON pointers (``*``: every member):
in the handshake's ``implementation`` per domain, ``{"absent": {DOMAIN: [POINTER, ...]}}``,
and on one ``output`` answer, ``{"id", "output", "absent": [POINTER, ...]}``. The harness
compares the rest of the output and reports the case ``partial``, never ``pass``
(``runners.judge.outcomes.judge_response`` owns the rule)."""

RUN_PREFIX = b'{"cmd":"run",'
"""How every ``run`` line the harness writes begins."""
RUN_ID = '{"cmd":"run","id":'
RUN_DOMAIN = ',"domain":'
RUN_INPUT = ',"input":'
RUN_EXPECT = ',"expect":'
RUN_EXPECT_ERROR = ',"expect_error":'


class PlatformUnavailable(Exception):
    """A platform could not be started (raised by ``Adapter.start``).

    ``message`` says what went wrong, ``hint`` how to make the platform
    available, ``detail`` what the platform's process wrote to stderr (if any).
    The run goes on: the platform is reported unavailable once, and each of its
    cases is an ``error`` pointing there.
    """

    def __init__(self, platform: str, message: str, hint: str = "", detail: str = "") -> None:
        self.platform = platform
        self.message = message
        self.hint = hint
        self.detail = detail
        super().__init__(message + (f" ({hint})" if hint else ""))


@dataclass(frozen=True)
class Implementation:
    """What a platform says about itself when started."""

    name: str
    version: str
    language: str
    domains: frozenset[str] = field(default_factory=frozenset)
    commit: str | None = None  # what it was built from, when it knows (reports record it)
    # Domain -> the output fields (JSON pointers) the platform does not have (``ABSENT``).
    absent: Mapping[str, tuple[str, ...]] = field(default_factory=dict, hash=False)

    @classmethod
    def from_json(cls, info: dict[str, Any]) -> Implementation:
        """From the ``implementation`` object a worker or the extension reports."""
        return cls(
            info["name"],
            info["version"],
            info["language"],
            frozenset(info["domains"]),
            info.get("commit"),
            {domain: tuple(pointers) for domain, pointers in info.get(ABSENT, {}).items()},
        )


class Request(TypedDict):
    id: str
    domain: str
    input: Any


class KnownInputText(dict[str, Any]):
    """A request (``id``, ``domain``, ``input``) whose input's JSON text is already made.

    The harness builds one per case and platform from the case's cached text
    (``runners.vectors.load.Case.input_json``): ``encode_request`` writes that text
    instead of encoding the input again. To any adapter it is a plain request.

    It may also say what output it expects: ``expected_output`` and its compact
    JSON text ``expected_output_json`` (``runners.vectors.load.Case.expected_json``).
    An adapter that receives answers as text (``WorkerAdapter``) may then answer an
    output whose text is byte for byte that text with an :class:`OutputAsExpected`
    holding ``expected_output``, without decoding it: equal JSON text is the same
    JSON value. Any other answer is decoded and returned as usual. Or it may say which
    contract error it expects (``expected_error``, its code): a worker that took the
    expect-error extension then answers that error with its message only, which the
    adapter returns as an :class:`ErrorAsExpected`.

    The harness makes one per case and shares it between platforms, so adapters may
    keep what they derive from it: ``line`` (the encoded ``run`` line),
    ``answer_line`` (the answer line meaning "the expected output", ``b""`` when there
    is none) and ``expect_line`` (the ``run`` line carrying ``expect``, for a worker
    that took the expect extension, ``b""`` when there is none), ``error_line`` (the
    same for ``expect_error``) and ``tab_line`` (the tab-run line, for a worker that
    took the tab-run extension), all None until made.
    Such a request is not changed once made.
    """

    __slots__ = (
        "answer_line",
        "error_line",
        "expect_line",
        "expected_error",
        "expected_output",
        "expected_output_json",
        "input_json",
        "line",
        "tab_line",
    )

    def __init__(
        self,
        request_id: str,
        domain: str,
        case_input: Any,
        input_json: str | None,
        expected_output_json: str | None = None,
        expected_output: Any = None,
        expected_error: str | None = None,
    ) -> None:
        self["id"] = request_id  # item by item: cheaper than dict's keyword __init__
        self["domain"] = domain
        self["input"] = case_input
        self.input_json = input_json
        self.expected_output_json = expected_output_json
        self.expected_output = expected_output
        self.expected_error = expected_error
        self.line: bytes | None = None
        self.answer_line: bytes | None = None
        self.expect_line: bytes | None = None
        self.error_line: bytes | None = None
        self.tab_line: bytes | None = None


_new_request = dict.__new__


def known_input_text(
    request_id: str,
    domain: str,
    case_input: Any,
    input_json: str,
    expected_output_json: str | None,
    expected_output: Any,
    expected_error: str | None = None,
) -> KnownInputText:
    """``KnownInputText(...)`` with these arguments, at a third of the cost (no call
    through a Python ``__init__`` of a dict subclass): the harness makes one per case."""
    request: KnownInputText = _new_request(KnownInputText)
    request["id"] = request_id
    request["domain"] = domain
    request["input"] = case_input
    request.input_json = input_json
    request.expected_output_json = expected_output_json
    request.expected_output = expected_output
    request.expected_error = expected_error
    request.line = request.answer_line = request.expect_line = request.error_line = None
    request.tab_line = None
    return request


class OutputAsExpected(dict[str, Any]):
    """An ``{id, output}`` response whose output's JSON text was exactly the request's
    ``expected_output_json``; its ``output`` is the request's ``expected_output`` object.

    To any caller it is a plain output response. One that knows the request's
    expectation (``runners.judge.outcomes.Judgement``) can tell from the type alone that
    the output is that value, and skip comparing it.
    """

    __slots__ = ()


class ErrorAsExpected(dict[str, Any]):
    """An ``{id, error: {code, message}}`` response that a worker answered with the
    expect-error extension's acknowledgement (docs/protocol.md): its ``code`` is the
    request's ``expected_error`` (the worker compared it), its ``message`` the one the
    worker wrote, already checked to be plain UTF-8 (I-JSON).

    To any caller it is a plain error response. One that knows the request's
    expectation (``runners.run.batches``) can tell from the type alone that the error passes.
    """

    __slots__ = ()


class ErrorBody(TypedDict):
    code: str
    message: str


class CrashBody(TypedDict):
    message: str
    detail: str


class SkipBody(TypedDict):
    reason: str


class OutputResponse(TypedDict):
    id: str
    output: Any


class ErrorResponse(TypedDict):
    id: str
    error: ErrorBody


class CrashResponse(TypedDict):
    id: str
    crash: CrashBody


class SkipResponse(TypedDict):
    """The implementation declares the case not applicable to it (e.g. a partial library)."""

    id: str
    skip: SkipBody


Response = OutputResponse | ErrorResponse | CrashResponse | SkipResponse


PASS: None = None
"""The pass mark: ``run_expected``'s answer for a case whose output is the one its
request expects, made without any object for the case."""


@runtime_checkable
class Adapter(Protocol):
    """start() once, run() or run_expected() any number of batches, stop() once.

    The members beyond those four say what the adapter offers the harness, so no
    caller asks an adapter what it is: :class:`BaseAdapter` gives every member
    its plain default, and a class built on it overrides what it has.
    """

    name: str

    @property
    def in_process(self) -> bool:
        """True when the adapter runs cases on the caller's thread (a caller with many
        platforms runs out-of-process ones on threads of their own)."""
        ...

    @property
    def problems(self) -> Sequence[dict[str, str]]:
        """Platform-level protocol problems that were no case's fault (a worker's)."""
        ...

    @property
    def broken(self) -> str | None:
        """The message every later case gets once the platform is declared broken."""
        ...

    @property
    def run_line_extensions(self) -> Sequence[str]:
        """The protocol extensions ``run_lines`` speaks (adapters/serve.py takes only these)."""
        ...

    def start(self) -> Implementation: ...

    def run(self, requests: Sequence[Request]) -> list[Response]:
        """Exactly one response per request, in the same order, ids echoed.

        Must not raise for anything the implementation does: a crash, hang or
        protocol violation becomes a ``crash`` response for the case it hit.
        """
        ...

    def run_expected(self, requests: Sequence[Request]) -> list[Response | None]:
        """``run``, except that an answer may be :data:`PASS` for a request that says
        what output it expects (a :class:`KnownInputText`) when the output is that one."""
        ...

    def run_lines(
        self, lines: Sequence[bytes], start: int, stop: int, answer: Callable[[bytes], None]
    ) -> int:
        """The served child's fast path over wire lines (``RunLines``): hand ``answer``
        the answer line of each of ``lines[start:stop]`` in turn and return the index of
        the first line not taken; that line goes the ordinary way (decode, ``run``)."""
        ...

    def stop(self) -> None: ...


class BaseAdapter:
    """The plain default of every :class:`Adapter` member beyond start, run and stop
    (an adapter class derives from it and overrides what it has): runs on the caller's
    thread, has no platform-level problems, is never broken, marks
    no passes (``run_expected`` is ``run``), and its fast path takes no line (each goes
    the ordinary way, which speaks every extension)."""

    name: str
    in_process = True
    problems: Sequence[dict[str, str]] = ()
    broken: str | None = None
    run_line_extensions: Sequence[str] = (EXPECT, EXPECT_ERROR, TAB_RUN)

    def run(self, requests: Sequence[Request]) -> list[Response]:
        raise NotImplementedError

    def run_expected(self, requests: Sequence[Request]) -> list[Response | None]:
        return list(self.run(requests))

    def run_lines(
        self, lines: Sequence[bytes], start: int, stop: int, answer: Callable[[bytes], None]
    ) -> int:
        return start


RunLines = Callable[[Sequence[bytes], int, int, Callable[[bytes], None]], int]
"""``run_lines(lines, start, stop, answer)``: a served adapter's fast path. It hands
``answer`` the answer line of each of ``lines[start:stop]`` in turn, as soon as it has
it, and returns the index of the first line it does not take (``stop`` if it took them
all); that line goes the ordinary way."""


def crash(request_id: str, message: str, detail: str = "") -> CrashResponse:
    return {"id": request_id, "crash": {"message": message, "detail": detail}}
