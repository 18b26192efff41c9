"""Run vector cases on platforms and judge each one: the matrix behind the CLI and pytest plugin."""

from __future__ import annotations

import json
import traceback
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, cast

from adapters.protocol import (
    Adapter,
    ErrorAsExpected,
    Implementation,
    KnownInputText,
    OutputAsExpected,
    PlatformUnavailable,
    Request,
    Response,
    crash,
)

from .. import _gc
from ..judge.outcomes import Item, Judgement, Outcome, Outcomes, expected_error, unjudged
from ..vectors.load import Case, VectorFile
from ..vectors.schemas import input_problem
from ..vectors.variants import expand

BATCH_BYTES = 4_000_000
"""A batch is sent once its requests' inputs reach this size (as JSON)."""


@dataclass
class StartedPlatform:
    """An adapter after start(): either running (implementation) or not (failure)."""

    name: str
    adapter: Adapter | None
    implementation: Implementation | None
    failure: str | None = None
    detail: str | None = None


def start_platform(
    name: str, adapter_or_factory: Adapter | Callable[[], Adapter]
) -> StartedPlatform:
    """Create (given a factory) and start one platform; a failure is recorded, never raised.

    ``PlatformUnavailable`` is the one way a platform says it cannot run: the
    failure is recorded once for the platform, with its stderr as ``detail``.
    Anything else raised is a bug in the adapter, recorded with its traceback.
    """
    try:
        adapter = (
            adapter_or_factory if isinstance(adapter_or_factory, Adapter) else adapter_or_factory()
        )
        return StartedPlatform(name, adapter, adapter.start())
    except PlatformUnavailable as e:
        return StartedPlatform(name, None, None, f"{name} did not start: {e}", e.detail or None)
    except Exception as e:  # an adapter bug must not lose the run either
        return StartedPlatform(
            name,
            None,
            None,
            f"{name} adapter raised {type(e).__name__} in start(): {e}",
            traceback.format_exc(),
        )


def run_cases(
    platform: StartedPlatform, vector_file: VectorFile, cases: Sequence[Case]
) -> Outcomes:
    """Run cases of one vector file, each with its variants, in few batches; judge each.

    One outcome per case, in order (``Outcomes``: a pass acknowledged as expected is
    made into its ``Outcome`` only if asked for). Interrupted (a signal), the exception
    carries ``outcomes``: a list of the cases fully answered."""
    with _gc.paused():
        return Outcomes(cases, platform.name, _run_cases(platform, vector_file, cases))


def _run_cases(
    platform: StartedPlatform, vector_file: VectorFile, cases: Sequence[Case]
) -> list[Item]:
    name = platform.name
    if platform.implementation is None or platform.adapter is None:
        return [
            # The failure and its stderr are reported once, with the platform.
            unjudged(c, name, "error", platform.failure)
            for c in cases
        ]
    if vector_file.domain not in platform.implementation.domains:
        reason = f"{vector_file.domain} is not implemented by {name}"
        return [
            Outcome(c.domain, c.id, c.content_hash(), name, "skip", message=reason) for c in cases
        ]

    # Requests go out in batches of about BATCH_BYTES of input (many small cases
    # share one batch, so a worker pipelines them); each response is judged as it
    # comes back, in request order, so a long case's chunkings are never all held.
    adapter = platform.adapter
    rules = vector_file.comparison
    # Fields the platform declared absent for the domain (docs/protocol.md, "Partial
    # answers"): no answer of it is taken as the expected output unjudged.
    absent = platform.implementation.absent.get(vector_file.domain, ())
    if not vector_file.variants:  # most files: one request per case, the case's own
        return _run_own_inputs(adapter, name, cases, rules, absent)

    judgements = [Judgement(case, name, rules, absent) for case in cases]
    # Each request of a case's own input says what output it expects, so that an answer
    # whose output is that JSON text byte for byte needs neither decoding nor comparing
    # (adapters.protocol.KnownInputText); not where a comparison rule could pass others.
    expect = not rules and not absent
    batch: list[Request] = []
    # (request id, its case's judgement, variant, the crash if it was not sent)
    pending: list[tuple[str, Judgement, str | None, Response | None]] = []
    size = 0

    def flush() -> None:
        try:
            responses = _run_batch(adapter, name, batch)
        except BaseException as exc:  # interrupted (a signal): keep the cases fully answered
            partial = {r["id"]: r for r in getattr(exc, "answered", [])}
            for request_id, judgement, variant, refused in pending:
                response = refused or partial.get(request_id)
                if response is not None:
                    judgement.add(variant, response)
                    judgement.unanswered -= 1
            exc.outcomes = [  # type: ignore[attr-defined]
                j.outcome() for j in judgements if j.unanswered == 0
            ]
            raise
        for request_id, judgement, variant, refused in pending:
            judgement.add(variant, refused or responses[request_id])
            judgement.unanswered -= 1
        batch.clear()
        pending.clear()

    variants = vector_file.variants
    for judgement in judgements:
        case = judgement.case
        # Most files have no variants: one request per case, no generator to set up.
        expanded = expand(case.input, variants) if variants else ((None, case.input),)
        for index, (variant, case_input) in enumerate(expanded):
            request: Request = (
                _own_request(case, expect)
                if variant is None
                else {
                    "id": f"{case.domain}/{case.id}#{index}",
                    "domain": case.domain,
                    "input": case_input,
                }
            )
            # The case's own input was checked when its file was loaded; a variant's here.
            problem = None if variant is None else input_problem(case.domain, case_input)
            judgement.unanswered += 1
            if problem is None:
                batch.append(request)
                pending.append((request["id"], judgement, variant, None))
                size += (
                    case.input_size
                    if variant is None
                    else len(json.dumps(case_input, ensure_ascii=False, default=repr))
                )
            else:
                message = f"not sent: the input does not match $defs.input at {problem}"
                pending.append((request["id"], judgement, variant, crash(request["id"], message)))
            if size >= BATCH_BYTES:
                flush()
                size = 0
        judgement.unanswered -= 1  # all of its requests are made
    if pending:
        flush()
    return [judgement.outcome() for judgement in judgements]


OWN_REQUEST = "_run_own_request"
"""Where a case keeps its own request saying what it expects (in its instance dict, as
cached properties do); ``OWN_PLAIN_REQUEST`` the one that does not (a file with rules)."""
OWN_PLAIN_REQUEST = "_run_own_plain_request"

_new_request = dict.__new__


def _own_request(case: Case, expect: bool) -> Request:
    """The request for a case's own input (id ``<domain>/<id>#0``), made once per case and
    shared by every platform's run: the input's text, the expected output's text (when
    ``expect``) and the line a worker adapter encodes from them are made once
    (adapters.protocol.KnownInputText). Adapters do not change the requests they get.
    """
    fields = case.__dict__
    key = OWN_REQUEST if expect else OWN_PLAIN_REQUEST
    request: Any = fields.get(key)
    if request is not None:
        return cast(Request, request)
    domain = case.domain
    input_json = case.input_json
    if input_json is None:  # not JSON: the adapter reports it
        request = {"id": f"{domain}/{case.id}#0", "domain": domain, "input": case.input}
    else:
        # known_input_text(...), written out: one per case.
        request = _new_request(KnownInputText)
        request["id"] = f"{domain}/{case.id}#0"
        request["domain"] = domain
        request["input"] = case.input
        request.input_json = input_json
        request.expected_output_json = case.expected_json if expect else None
        request.expected_output = case.expected
        request.expected_error = case.error if expect else None
        request.line = request.answer_line = request.expect_line = request.error_line = None
        request.tab_line = None
    fields[key] = request
    return cast(Request, request)


def _run_own_inputs(
    adapter: Adapter,
    name: str,
    cases: Sequence[Case],
    rules: Sequence[dict[str, Any]],
    absent: tuple[str, ...] = (),
) -> list[Item]:
    """Each case run on its own input (a file without variants), in batches of about
    BATCH_BYTES; request i is case i's, so no bookkeeping per request.

    Without comparison rules each request says what output it expects, and an answer
    that is that output (``None`` from ``run_marked_in_order``: its text was the
    expected text, compared by the adapter or by the harness's own child) is a pass
    with nothing judged, held as ``None`` (``Outcomes``); the expected error is a pass
    too (judged by its code, as ``Judgement`` judges it), held as its body; any other
    answer goes through a ``Judgement``. With fields declared ``absent`` every output
    answer is judged (it is a partial answer, never the expected output).
    """
    expect = not rules and not absent
    outcomes: list[Item] = []
    start = size = 0
    last = len(cases)
    for end, case in enumerate(cases, 1):
        size += case.input_size
        if size < BATCH_BYTES and end != last:
            continue
        part = cases[start:end]
        start, size = end, 0
        batch = [_own_request(c, expect) for c in part]
        try:
            responses = run_marked_in_order(adapter, name, batch)
        except BaseException as exc:  # interrupted (a signal): keep the answered cases
            answered = {r["id"]: r for r in getattr(exc, "answered", [])}
            for c, request in zip(part, batch, strict=True):
                response = answered.get(request["id"])
                if response is not None:
                    outcomes.append(_judged(c, name, rules, response, absent))
            exc.outcomes = list(  # type: ignore[attr-defined]
                Outcomes(cases[: len(outcomes)], name, outcomes)
            )
            raise
        if expect and set(map(type, responses)) <= _MARKS:
            # All acknowledged (the usual batch): passes held as their marks (Outcomes).
            outcomes += cast("list[Item]", responses)
            continue
        append = outcomes.append
        for c, response in zip(part, responses, strict=True):
            if type(response) is ErrorAsExpected:
                # The expect-error extension: the worker answered the request's expected
                # error code (it carried c.error), its message checked plain UTF-8.
                append(response)
            elif response is None or (
                # Another adapter's way to say the same (the request's expected output).
                type(response) is OutputAsExpected and expect and response["output"] is c.expected
            ):
                append(None)
            elif (
                # The expected error, every field plain UTF-8: what Judgement.add passes
                # without a difference (an error is judged by its code alone).
                c.error is not None
                and "error" in response
                and "output" not in response
                and "skip" not in response
                and "crash" not in response
                and expected_error(c.error, response["error"])
            ):
                append(cast("dict[str, Any]", response["error"]))  # passed (Outcomes. Item)
            else:
                append(_judged(c, name, rules, response, absent))
    return outcomes


def _judged(
    case: Case,
    name: str,
    rules: Sequence[dict[str, Any]],
    response: Response,
    absent: tuple[str, ...] = (),
) -> Outcome:
    judgement = Judgement(case, name, rules, absent)
    judgement.add(None, response)
    return judgement.outcome()


def _run_batch(adapter: Adapter, name: str, batch: list[Request]) -> dict[str, Response]:
    """Responses by request id; anything missing or malformed becomes a crash for that request."""
    return {
        request["id"]: response
        for request, response in zip(batch, run_batch_in_order(adapter, name, batch), strict=True)
    }


def run_batch_in_order(adapter: Adapter, name: str, batch: list[Request]) -> list[Response]:
    """One response per request, in order; anything missing or malformed becomes a crash
    for that request. Requests made by ``_own_request`` (or any
    ``adapters.protocol.KnownInputText`` saying what output it expects) may be answered
    with an ``adapters.protocol.OutputAsExpected``: that output, not decoded again."""
    try:
        responses = adapter.run(batch)
        error = None
    except Exception as e:  # an adapter must not raise; if it does, no case is lost
        responses, error = [], _raised(name, e)
    return _in_order(name, batch, responses, error)


def run_marked_in_order(adapter: Adapter, name: str, batch: list[Request]) -> list[Response | None]:
    """``run_batch_in_order``, except that an answer that is the output its request
    expects may be the pass mark ``None`` (``Adapter.run_expected``) or an
    ``OutputAsExpected``; an expected error acknowledged (the expect-error extension) is
    an ``ErrorAsExpected``."""
    try:
        responses: Any = adapter.run_expected(batch)
        error = None
    except Exception as e:  # as run_batch_in_order
        responses, error = [], _raised(name, e)
    if type(responses) is list and len(responses) == len(batch):
        # The worker made each None and ErrorAsExpected in its request's turn
        # (run_expected's contract): only the other answers are checked.
        if set(map(type, responses)) <= _MARKS:  # the usual batch: no Python step per answer
            return cast("list[Response | None]", responses)
        others = [r for r in responses if r is not None and type(r) is not ErrorAsExpected]
        if not others:
            return responses
        if len(others) < len(responses):
            requests = [
                q
                for q, r in zip(batch, responses, strict=True)
                if r is not None and type(r) is not ErrorAsExpected
            ]
            answers = iter(_in_order(name, requests, others, None))
            return cast(
                "list[Response | None]",
                [
                    r if r is None or type(r) is ErrorAsExpected else next(answers)
                    for r in responses
                ],
            )
    return cast("list[Response | None]", _in_order(name, batch, responses, error))


_MARKS = frozenset((type(None), ErrorAsExpected))
"""The types of ``run_marked_in_order``'s acknowledged answers (see ``Outcomes``' items)."""


def _raised(name: str, e: Exception) -> tuple[str, str]:
    return f"{name} adapter raised {type(e).__name__}: {e}", traceback.format_exc()


def _in_order(
    name: str, batch: list[Request], responses: Any, error: tuple[str, str] | None
) -> list[Response]:
    """``responses`` as one per request of ``batch``, in order (see run_batch_in_order)."""
    if type(responses) is list and len(responses) == len(batch):
        # The adapter kept its contract (in order, ids echoed, well-formed): the usual case.
        for request, response in zip(batch, responses, strict=True):
            if type(response) is OutputAsExpected:  # an output, by its type
                if response["id"] != request["id"]:
                    break
            elif not (
                isinstance(response, dict)
                and response.get("id") == request["id"]
                and (
                    "output" in response
                    or "error" in response
                    or "crash" in response
                    or "skip" in response
                )
            ):
                break
        else:
            return cast("list[Response]", responses)
    by_id: dict[str, Response] = {}
    for response in responses:
        if isinstance(response, dict) and isinstance(response.get("id"), str):
            by_id.setdefault(response["id"], cast(Response, response))
    for request in batch:
        got = by_id.get(request["id"])
        if got is None:
            message, detail = error or (f"{name} returned no response for {request['id']}", "")
            by_id[request["id"]] = {
                "id": request["id"],
                "crash": {"message": message, "detail": detail},
            }
        elif (
            "output" not in got and "error" not in got and "crash" not in got and "skip" not in got
        ):
            bad = got
            by_id[request["id"]] = {
                "id": request["id"],
                "crash": {
                    "message": f"{name} returned a malformed response: {bad!r}"[:500],
                    "detail": "",
                },
            }
    return [by_id[request["id"]] for request in batch]


def iter_matrix(
    files: Sequence[VectorFile], platforms: Sequence[StartedPlatform]
) -> Iterator[Outcome]:
    """Every case of every file on every platform, one batch (file x platform) at a time."""
    for platform in platforms:
        for vector_file in files:
            yield from run_cases(platform, vector_file, vector_file.cases)


def in_matrix_order(
    outcomes: Iterable[Outcome], files: Sequence[VectorFile], platforms: Sequence[StartedPlatform]
) -> list[Outcome]:
    """File order, then platform order (a stable sort: cases keep their file order)."""
    order = {p.name: i for i, p in enumerate(platforms)}
    file_order = {vf.domain: i for i, vf in enumerate(files)}
    return sorted(outcomes, key=lambda o: (file_order.get(o.domain, 0), order[o.platform]))


def run_matrix(files: Iterable[VectorFile], platforms: Sequence[StartedPlatform]) -> list[Outcome]:
    """Every case of every file on every platform, in file order then platform order."""
    files = list(files)
    return in_matrix_order(iter_matrix(files, platforms), files, platforms)
