"""Platform ``python``: impl_python, driven in-process.

Each domain's JSON layer is the module ``impl_python.conformance.<domain_snake>``
with ``run(case_input) -> output``; a domain is implemented when its module exists.
"""

from __future__ import annotations

import importlib
import json
import json.scanner
import pkgutil
import platform
import traceback
from collections.abc import Callable, Sequence
from typing import Any

import orjson

from impl_python import conformance
from impl_python.errors import HanzoError

from ._json import compact_text, encode_string
from .answers import encode, encode_message, one_line_at_a_time
from .protocol import (
    ACK_LINE,
    ERROR_ACK,
    RUN_DOMAIN,
    RUN_EXPECT,
    RUN_EXPECT_ERROR,
    RUN_ID,
    RUN_INPUT,
    TAB_EXPECT,
    TAB_EXPECT_ERROR,
    Adapter,
    BaseAdapter,
    Implementation,
    Request,
    Response,
    RunLines,
    crash,
)

# The run line's pieces (adapters.protocol), each with the quote that opens the string
# after it: the id and the domain are read from just inside their quotes.
_RUN_ID = RUN_ID + '"'
_DOMAIN = RUN_DOMAIN + '"'
_TAB_EXPECT = TAB_EXPECT.encode()
_TAB_EXPECT_ERROR = TAB_EXPECT_ERROR.encode()
# A JSON string's value and end, from just after its opening quote (the decoder's own
# scanner; typeshed does not declare it).
_scan_string: Callable[[str, int], tuple[str, int]] = json.decoder.scanstring  # type: ignore[attr-defined]
# One JSON value and its end (the decoder's C scanner, as adapters.serve decodes a request
# with; StopIteration where there is none).
_scan_value: Callable[[str, int], tuple[Any, int]] = json.scanner.make_scanner(
    json.JSONDecoder()  # type: ignore[arg-type]  # typeshed: a decoder is its context
)

RunFn = Callable[[Any], Any]

# orjson writes an output's text at a fraction of json's cost; what json would write
# otherwise or refuse goes to its ``default`` (None: TypeError) with these options, and
# _is_expected catches the rest (NaN, enums, UUIDs).
_dumps = orjson.dumps
_loads = orjson.loads
_PASSTHROUGH = (
    orjson.OPT_PASSTHROUGH_DATACLASS
    | orjson.OPT_PASSTHROUGH_DATETIME
    | orjson.OPT_PASSTHROUGH_SUBCLASS
)


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


class PythonAdapter(BaseAdapter):
    name = "python"

    def __init__(self) -> None:
        self._domains: dict[str, RunFn] = {}
        # The domain key of the last run line as spelled (from the id's closing quote to
        # the input) and that domain's run (None: not implemented).
        # ("\n" never matches: the id's closing quote is where the key is looked for.)
        self._last_domain: tuple[str, str, RunFn | None] = ("\n", "", None)
        # A subclass that overrides run (a test double) is served the ordinary way; one
        # that overrides run_line, through its run_line.
        self._overridden = type(self).run is not PythonAdapter.run
        self._own_run_line: RunLines | None = (
            one_line_at_a_time(self.run_line)
            if type(self).run_line is not PythonAdapter.run_line
            else None
        )

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
        """The answer line to one ``run`` line (``run_lines`` on that line alone), or
        None when the fast path declines it."""
        answers: list[bytes] = []
        return answers[0] if self.run_lines([line], 0, 1, answers.append) else None

    def run_lines(
        self, lines: Sequence[bytes], start: int, stop: int, answer: Callable[[bytes], None]
    ) -> int:
        """Answer ``lines[start:stop]``, each a ``run`` line spelled as the harness spells
        it (the served child's fast path, adapters/serve.py), handing each answer line
        to ``answer`` as soon as it is made; return the index of the first line that is
        not (``stop`` if none). That line goes the ordinary way (decode, ``run``), as
        every line does for a subclass that overrides ``run`` (a test double, say).
        One call for many lines: the per-line work is this loop's body alone.

        The id is read with the JSON string scanner, the domain is compared as spelled
        (the last one seen: a run is mostly one domain after another), and only the
        input is decoded, with no message object in between. A line that ends with
        ``"expect":"<text>"`` (the expect extension) is answered ``ACK_LINE`` when the
        output, encoded as this child writes outputs, is that text: the line's expect
        is compared as it is spelled, with the output's text spelled as a JSON string
        by the encoder the harness spells it with (``encode_basestring``), so the
        expect is never decoded. ``"expect_error":"<code>"`` likewise (``_error``).
        """
        if self._own_run_line is not None:
            return self._own_run_line(lines, start, stop, answer)
        if self._overridden:
            return start
        index = start
        while index < stop:  # runs of JSON lines and of tab-run lines, each by its loop
            run_kind = self._run_json_lines if lines[index][:1] == b"{" else self._run_tab_lines
            taken = run_kind(lines, index, stop, answer)
            if taken == index:
                return index  # declined
            index = taken
        return stop

    def _run_json_lines(
        self, lines: Sequence[bytes], start: int, stop: int, answer: Callable[[bytes], None]
    ) -> int:
        """``run_lines`` on ``run`` lines (JSON), up to the first line it declines."""
        domain_key, domain, run = self._last_domain
        for index in range(start, stop):
            try:
                text = lines[index].decode("utf-8")
                if not text.startswith(_RUN_ID):
                    return index
                request_id, end = _scan_string(text, len(_RUN_ID))
                # end is just after the id's closing quote; the domain key has it first.
                if not text.startswith(domain_key, end - 1):
                    found = self._read_domain(text, end)
                    if found is None:
                        return index
                    domain_key, domain, run = found
                case_input, end = _scan_value(text, end - 1 + len(domain_key))
            except (ValueError, StopIteration):  # not UTF-8, or not JSON where JSON belongs
                return index
            # What follows the input: nothing, or one extension's key and string (the
            # string itself is checked against the output, or the error's code, below).
            expect_at = error_at = 0
            if text.startswith(RUN_EXPECT, end):
                expect_at = end + len(RUN_EXPECT)
                if text.endswith('"}', expect_at + 1):
                    end = len(text) - 1
            elif text.startswith(RUN_EXPECT_ERROR, end):
                error_at = end + len(RUN_EXPECT_ERROR)
                if text.endswith('"}', error_at + 1):
                    end = len(text) - 1
            if len(text) != end + 1 or text[end] != "}":
                return index  # more keys, or anything else: not the harness's spelling
            if run is None:
                answer(encode(crash(request_id, f"python does not implement {domain}")))
                continue
            try:
                output = run(case_input)
            except HanzoError as e:
                answer(_error(request_id, e, text, error_at, end))
                continue
            except Exception as e:  # an implementation bug: reported, never raised
                answer(
                    encode(crash(request_id, f"{type(e).__name__}: {e}", traceback.format_exc()))
                )
                continue
            if expect_at:
                try:
                    # The expect string is the rest of the line but its closing brace:
                    # the output's text as a JSON string, exactly, is that string.
                    spelled = encode_string(compact_text(output))
                except (TypeError, ValueError):  # not JSON: encode() reports it
                    pass
                else:
                    if len(spelled) == end - expect_at and text.startswith(spelled, expect_at):
                        answer(ACK_LINE)
                        continue
            answer(encode({"id": request_id, "output": output}))
        return stop

    def _run_tab_lines(
        self, lines: Sequence[bytes], start: int, stop: int, answer: Callable[[bytes], None]
    ) -> int:
        """``run_lines`` on tab-run lines (``<id> TAB <domain> TAB <expectation> TAB
        <input>``, docs/protocol.md), up to the first line that is not one or is not
        taken apart (the ordinary path reports it). Only the input is decoded; the id
        only for an answer that is not an acknowledgement."""
        last_domain, run = b"", None
        for index in range(start, stop):
            line = lines[index]
            fields = line.split(b"\t")
            if len(fields) != 4 or line[:1] == b"{":
                return index
            request_id, domain, expectation, input_bytes = fields
            try:
                if domain != last_domain:
                    last_domain, run = domain, self._domains.get(domain.decode("utf-8"))
                input_text = input_bytes.decode("utf-8")
                case_input, end = _scan_value(input_text, 0)
            except (ValueError, StopIteration):  # not UTF-8, or the input is not JSON
                return index
            if end != len(input_text) or run is None:
                return index  # the ordinary path says what is wrong
            try:
                output = run(case_input)
            except HanzoError as e:
                code = e.code
                if type(code) is str and expectation == _TAB_EXPECT_ERROR + code.encode(
                    "utf-8", "surrogatepass"
                ):
                    answer(ERROR_ACK + encode_message(str(e)))
                else:
                    answer(
                        encode(
                            {
                                "id": request_id.decode("utf-8", "replace"),
                                "error": {"code": code, "message": str(e)},
                            }
                        )
                    )
                continue
            except Exception as e:  # an implementation bug: reported, never raised
                answer(
                    encode(
                        crash(
                            request_id.decode("utf-8", "replace"),
                            f"{type(e).__name__}: {e}",
                            traceback.format_exc(),
                        )
                    )
                )
                continue
            if expectation[:1] == _TAB_EXPECT and _is_expected(output, expectation):
                answer(ACK_LINE)
            else:
                answer(encode({"id": request_id.decode("utf-8", "replace"), "output": output}))
        return stop

    def _read_domain(self, text: str, id_end: int) -> tuple[str, str, RunFn | None] | None:
        """The domain key as spelled just before ``id_end`` on (the id's closing quote,
        then ``,"domain":"<domain>","input":``), the domain and its ``run`` (None: not
        implemented), kept as the last domain; None when the line is not spelled so.
        Raises ValueError (not a JSON string)."""
        if not text.startswith(_DOMAIN, id_end):
            return None
        domain, end = _scan_string(text, id_end + len(_DOMAIN))
        if not text.startswith(RUN_INPUT, end):
            return None
        key = text[id_end - 1 : end + len(RUN_INPUT)]
        self._last_domain = key, domain, self._domains.get(domain)
        return self._last_domain

    def stop(self) -> None:
        self._domains = {}
        self._last_domain = ("\n", "", None)


def _is_expected(output: Any, expectation: bytes) -> bool:
    """Whether ``output``'s text as this child writes outputs (``compact_text``) is the
    expectation's text (``=`` and that text, UTF-8). orjson's text is tried first: where
    it is that text and reads back as ``output`` itself, json's text is the same (a value
    orjson writes as json would not, NaN as ``null`` or an enum as its value, does not
    read back equal; a float spelled otherwise is not that text and goes to json)."""
    try:
        quick = _dumps(output, None, _PASSTHROUGH)
    except TypeError:  # not JSON to orjson (a big integer, a lone surrogate, a subclass)
        pass
    else:
        if (
            len(quick) + 1 == len(expectation)
            and expectation.endswith(quick)
            and _loads(quick) == output
        ):
            return True
    try:
        return expectation[1:] == compact_text(output).encode("utf-8")
    except (TypeError, ValueError):  # not JSON (encode() reports it), or no UTF-8 form
        return False


def _error(request_id: str, e: HanzoError, text: str, error_at: int, end: int) -> bytes:
    """The answer to a contract error: ``!"<message>"`` when the line's expect_error (from
    ``error_at`` to ``end``, 0: none) is its code, compared as spelled (like the expect:
    the expect-error extension, docs/protocol.md); else the whole error."""
    if error_at and type(e.code) is str:
        spelled = encode_string(e.code)
        if len(spelled) == end - error_at and text.startswith(spelled, error_at):
            return ERROR_ACK + encode_message(str(e))
    return encode({"id": request_id, "error": {"code": e.code, "message": str(e)}})


def create() -> Adapter:
    return PythonAdapter()
