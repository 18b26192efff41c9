"""Run vector cases on platforms and judge each one: the matrix behind the CLI and pytest plugin."""

from __future__ import annotations

import json
import traceback
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import cast

from adapters.protocol import (
    Adapter,
    Implementation,
    KnownInputText,
    PlatformUnavailable,
    Request,
    Response,
    crash,
)

from ._outcomes import Judgement, Outcome
from ._schemas import input_problem
from ._variants import expand
from ._vectors import Case, VectorFile

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
) -> list[Outcome]:
    """Run cases of one vector file, each with its variants, in few batches; judge each."""
    name = platform.name
    if platform.implementation is None or platform.adapter is None:
        return [
            # The failure and its stderr are reported once, with the platform.
            Outcome(
                c.domain,
                c.id,
                c.content_hash(),
                name,
                "error",
                message=platform.failure,
                input=c.input,
            )
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
    judgements = [Judgement(case, name, vector_file.comparison) for case in cases]
    batch: list[Request] = []
    # (request id, its case's judgement, variant, the crash if it was not sent)
    pending: list[tuple[str, Judgement, str | None, Response | None]] = []
    size = 0
    # Per judgement: requests made (known once its variants are all expanded), and answered.
    made: dict[int, int] = {}
    answered: dict[int, int] = {}

    def flush() -> None:
        try:
            responses = _run_batch(adapter, name, batch)
        except BaseException as exc:  # interrupted (a signal): keep the cases fully answered
            partial = {r["id"]: r for r in getattr(exc, "answered", [])}
            for request_id, judgement, variant, refused in pending:
                response = refused or partial.get(request_id)
                if response is not None:
                    judgement.add(variant, response)
                    answered[id(judgement)] = answered.get(id(judgement), 0) + 1
            exc.outcomes = [  # type: ignore[attr-defined]
                j.outcome() for j in judgements if made.get(id(j)) == answered.get(id(j), 0)
            ]
            raise
        for request_id, judgement, variant, refused in pending:
            judgement.add(variant, refused or responses[request_id])
            answered[id(judgement)] = answered.get(id(judgement), 0) + 1
        batch.clear()
        pending.clear()

    variants = vector_file.variants
    for judgement in judgements:
        case = judgement.case
        # Most files have no variants: one request per case, no generator to set up.
        expanded = expand(case.input, variants) if variants else ((None, case.input),)
        for index, (variant, case_input) in enumerate(expanded):
            request_id = f"{case.domain}/{case.id}#{index}"
            input_json = case.input_json if variant is None else None
            request: Request = (
                # The case's input text, made once, serves every platform's request line.
                cast(Request, KnownInputText(request_id, case.domain, case_input, input_json))
                if input_json is not None
                else {"id": request_id, "domain": case.domain, "input": case_input}
            )
            # The case's own input was checked when its file was loaded; a variant's here.
            problem = None if variant is None else input_problem(case.domain, case_input)
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
        made[id(judgement)] = index + 1
    if pending:
        flush()
    return [judgement.outcome() for judgement in judgements]


def _run_batch(adapter: Adapter, name: str, batch: list[Request]) -> dict[str, Response]:
    """Responses by request id; anything missing or malformed becomes a crash for that request."""
    try:
        responses = adapter.run(batch)
        error = None
    except Exception as e:  # an adapter must not raise; if it does, no case is lost
        responses, error = (
            [],
            (f"{name} adapter raised {type(e).__name__}: {e}", traceback.format_exc()),
        )
    by_id: dict[str, Response] = {}
    for response in responses:
        if isinstance(response, dict) and isinstance(response.get("id"), str):
            by_id.setdefault(response["id"], response)
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
    return by_id


def iter_matrix(
    files: Sequence[VectorFile], platforms: Sequence[StartedPlatform]
) -> Iterator[Outcome]:
    """Every case of every file on every platform, one batch (file x platform) at a time."""
    for platform in platforms:
        for vector_file in files:
            yield from run_cases(platform, vector_file, vector_file.cases)


def not_run(
    files: Sequence[VectorFile], platforms: Sequence[StartedPlatform], done: Iterable[Outcome]
) -> list[Outcome]:
    """An outcome ``not_run`` for every (case, platform) of the matrix missing from ``done``."""
    seen = {(o.domain, o.case, o.platform) for o in done}
    return [
        Outcome(
            c.domain,
            c.id,
            c.content_hash(),
            p.name,
            "not_run",
            message="the run was interrupted",
            input=c.input,
        )
        for p in platforms
        for vf in files
        for c in vf.cases
        if (c.domain, c.id, p.name) not in seen
    ]


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
