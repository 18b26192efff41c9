"""Differential search: Hypothesis draws inputs, every platform runs them, disagreements shrink.

One Hypothesis example is a *batch* of inputs (``st.lists(domain inputs)``), sent to
each platform in one ``Adapter.run`` call, so a worker or extension pays its
per-call cost once per batch. When any input of a batch disagrees, Hypothesis
shrinks the whole example: the list shrinks to the one input that matters and that
input shrinks to a minimal one. Properties (``strategies.Property``) run the same
way, each probe's requests batched together, on every platform including the
reference.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import marshal
import queue
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, cast

import hypothesis
import orjson
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from hypothesis.reporting import with_reporter

import strategies
from adapters._json import canonical_text, compact_text
from adapters.protocol import KnownInputText, Request
from strategies import Property

from .. import _gc
from ..judge.compare import diff, rules_for
from ..run.batches import StartedPlatform, run_batch_in_order
from ..vectors.schemas import domain_schema
from .backend import NAME as BACKEND
from .backend import Steering, backend, current_example, rewind, steered
from .known import Cause, answer_causes, input_key

REFERENCE = "python"

VALIDATE_ALL, VALIDATE_EVERY = 50, 1_000
MEMO_LIMIT = 100_000
# Inputs kept by record: a few KB each; the records redrawn are mostly recent ones.
DECODED_LIMIT = 20_000
PIPELINE_CHUNK = 64
# At most this many requests of chunks waiting on a lane are run as one call.
LANE_MERGE = 4 * PIPELINE_CHUNK
# Judge a batch while the next is drawn (see Search.search); off only to measure.
JUDGE_LATE = True
# How often (seconds) a running thread lets another have the GIL during a search.
# Python's default (5 ms) leaves a platform's I/O threads waiting behind the drawing
# and judging for milliseconds per chunk; much shorter, they take turns.
SWITCH_INTERVAL = 0.0005

# A platform's response, read as plain JSON (output, error or crash).
Answer = dict[str, Any]
# An input some platform got wrong: the input, the reference's answer, platform -> why.
Failure = tuple[Any, Answer, dict[str, str]]


@dataclass(frozen=True)
class Finding:
    """A minimal input some platform got wrong (or a property it broke)."""

    domain: str
    kind: str  # "disagreement" or "property"
    name: str  # "differential" or the property's name
    input: Any  # the case input a vector would hold (None if the property has none)
    probe: Any  # what Hypothesis drew (for a disagreement, the input itself)
    reasons: Mapping[str, str]  # platform -> what it did wrong
    reference: Answer | None  # the reference's response to ``input``
    examples: int  # Hypothesis examples run before the first failure

    @property
    def platforms(self) -> tuple[str, ...]:
        return tuple(self.reasons)

    def to_json(self) -> dict[str, Any]:
        return {
            "domain": self.domain,
            "kind": self.kind,
            "name": self.name,
            "input": self.input,
            "probe": self.probe,
            "platforms": list(self.platforms),
            "reasons": dict(self.reasons),
            "examples_to_find": self.examples,
        }


@dataclass
class Stats:
    """What a search did: cases compared, examples drawn, clauses the passing inputs touched."""

    cases: int = 0  # differential cases, each a distinct input (property requests are not counted)
    drawn: int = 0  # inputs drawn while generating, repeats included (see first_time)
    examples: int = 0
    seconds: float = 0.0  # in the differential search
    property_seconds: float = 0.0
    clause_hits: Counter[str] = field(default_factory=Counter)
    known: int = 0  # answers that diverged only in a ledger's recorded causes (--expectations)
    known_cases: int = 0  # answers to the input of a corpus case a ledger names
    skipped: Counter[str] = field(default_factory=Counter)  # per platform: answered `skip`
    # per platform: property probes it answered `skip` (not checked against the property)
    property_skipped: Counter[str] = field(default_factory=Counter)

    @property
    def cases_per_second(self) -> float:
        return self.cases / self.seconds if self.seconds else 0.0


class _Found(Exception):
    """Raised inside the Hypothesis test so that Hypothesis shrinks the example."""


# A decoded input with its JSON text (made once per record, or by the module's decode).
EncodedInput = strategies.Encoded


# orjson writes these as JSON, or refuses them (then marshal keys them), rather than
# writing a dataclass as an object, a datetime as a string, or a str subclass as a str.
_ORJSON_STRICT = (
    orjson.OPT_PASSTHROUGH_DATACLASS
    | orjson.OPT_PASSTHROUGH_DATETIME
    | orjson.OPT_PASSTHROUGH_SUBCLASS
)
_MARSHALLED = b"\x00"  # starts a marshal key, as no JSON text does


def _exact(value: Any) -> bytes:
    """A key equal for two outputs exactly when they are the same JSON, keys in the same order.

    Most often orjson's compact text (three to four times quicker than marshal):
    unlike ``==`` it tells true from 1 and 1.0 from 1. It writes NaN and the
    infinities as null, as it writes None, so a text with a null, and any value
    orjson refuses (a lone surrogate, an integer past 64 bits, a tuple subclass...),
    is keyed by marshal instead: its version 2 has no back-references, so equal
    values give equal bytes, and it tells True from 1 too.
    """
    try:
        text = orjson.dumps(value, option=_ORJSON_STRICT)
    except TypeError:
        return _MARSHALLED + marshal.dumps(value, 2)
    if b"null" in text:
        return _MARSHALLED + marshal.dumps(value, 2)
    return text


def _may_hold_a_boolean(key: bytes) -> bool:
    """Whether the value keyed ``key`` may hold a boolean (False: it holds none)."""
    if key.startswith(_MARSHALLED):  # marshal writes True and False as T and F
        return b"T" in key or b"F" in key
    return b"true" in key or b"false" in key


class _Keys:
    """The reference output's comparison keys for one input, made when first needed."""

    __slots__ = ("_exact", "_sorted", "output")

    def __init__(self, output: Any) -> None:
        self.output = output
        self._exact: bytes | None = None
        self._sorted: str | None = None

    def exact(self) -> bytes:
        if self._exact is None:
            self._exact = _exact(self.output)
        return self._exact

    def same(self, other: Any) -> bool:
        """Whether ``other`` is the same JSON as the output (keys in any order).

        Equal exact keys are the same values, types and key order: the usual case,
        decided without comparing the values. Otherwise ``==`` decides up to its
        conflations: it says 1 == True == 1.0; the JSON numbers 1 and 1.0 are the same
        (``adapters._json.same_json``), a boolean is not a number. When neither key can hold a
        boolean (``_may_hold_a_boolean``: a string may spell true too, and then goes
        the slow way), ``==`` is right.
        """
        mine = _exact(other)
        theirs = self.exact()
        return mine == theirs or (
            not _may_hold_a_boolean(mine)
            and not _may_hold_a_boolean(theirs)
            and self.output == other
        )

    def sorted(self) -> str:
        if self._sorted is None:
            self._sorted = canonical_text(self.output)
        return self._sorted


def _short(value: Any, limit: int = 160) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


class _Lane:
    """An out-of-process platform's own thread: runs the chunks sent to it, in order.

    Every call to the platform's adapter goes through its lane, so the adapter is
    never called concurrently with itself. A chunk is sent with a ticket (one per
    batch); ``take(ticket)`` returns the next answers sent with it, dropping answers
    to earlier tickets nobody waits for any more (a batch abandoned at its first
    failure, or one Hypothesis discarded while drawing it).
    """

    def __init__(self, name: str, run: Callable[[list[Request]], list[Answer]]) -> None:
        self._run = run
        self._todo: queue.SimpleQueue[tuple[int, list[Request]] | None] = queue.SimpleQueue()
        self._done: queue.SimpleQueue[tuple[int, list[Answer] | BaseException]] = (
            queue.SimpleQueue()
        )
        self._thread = threading.Thread(target=self._serve, name=f"lane-{name}", daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        todo = self._todo
        closing = False
        while not closing and (item := todo.get()) is not None:
            # Chunks sent while the platform ran the last are run as one call (up to
            # LANE_MERGE requests): a worker then waits for the harness once, not once
            # per chunk. Their requests' ids differ (Search._requests numbers them
            # through the search).
            items = [item]
            size = len(item[1])
            while size < LANE_MERGE:
                try:
                    more = todo.get_nowait()
                except queue.Empty:
                    break
                if more is None:
                    closing = True
                    break
                items.append(more)
                size += len(more[1])
            requests = item[1] if len(items) == 1 else [r for _, chunk in items for r in chunk]
            try:
                answers: list[Answer] | BaseException = self._run(requests)
            except BaseException as e:  # passed on, so that the judging side never waits
                answers = e
            at = 0
            for ticket, chunk in items:
                if isinstance(answers, BaseException) or len(items) == 1:
                    self._done.put((ticket, answers))
                else:
                    self._done.put((ticket, answers[at : at + len(chunk)]))
                    at += len(chunk)

    def send(self, ticket: int, requests: list[Request]) -> None:
        self._todo.put((ticket, requests))

    def take(self, ticket: int) -> list[Answer]:
        while True:
            got, answers = self._done.get()
            if got < ticket:
                continue
            if isinstance(answers, BaseException):
                raise answers
            return answers

    def close(self) -> None:
        self._todo.put(None)
        self._thread.join()


class _Sent(list[Any]):
    """A batch whose chunks went to the platforms while it was being drawn."""

    __slots__ = ("chunks", "records", "ticket")

    def __init__(
        self,
        inputs: list[Any],
        ticket: int,
        chunks: list[tuple[list[Any], list[Request]]],
        records: list[bytes],
    ) -> None:
        super().__init__(inputs)
        self.ticket = ticket
        self.chunks = chunks  # (inputs, their requests) per chunk, as sent
        self.records = records  # the record each input was decoded from (for Steering)


class Prefetch(Protocol):
    """Where a batch strategy sends chunks as it draws them (``Search`` is one)."""

    def open_batch(self) -> int | None:
        """A ticket for a new batch, or None to draw without sending."""

    def send(self, ticket: int, inputs: list[Any]) -> list[Request]:
        """Start running ``inputs`` on the out-of-process platforms; their requests."""

    def first_time(self, case_input: Any) -> bool:
        """False for an input this search has already sent (it need not run again)."""


@st.composite
def _batches(draw: st.DrawFn, elements: st.SearchStrategy[Any], size: int) -> list[Any]:
    # At least `floor` elements, then continue unless a 0 in 0..63 is drawn. st.lists
    # averages a handful of elements, and a stop draw alone averages about 50 (Hypothesis
    # draws 0 more often than 1 in 64); the floor makes a batch about size/2 + 50 long.
    # The shrinker lowers the floor to 1 in one step, then deletes (continue, element)
    # pairs or stops early, down to the one input that fails.
    floor = draw(st.integers(1, size))
    out = [draw(elements)]
    while len(out) < size and (len(out) < floor or draw(st.integers(0, 63)) != 0):
        out.append(draw(elements))
    return out


def batches(elements: st.SearchStrategy[Any], size: int) -> st.SearchStrategy[list[Any]]:
    """Lists of up to ``size`` elements, most of them long, that shrink to one element."""
    return _batches(elements, size)


# Hypothesis overruns an example whose choices exceed about 8 KB: one batch's records
# stay below that, so domains with long records get fewer inputs per batch.
MAX_BATCH_BYTES = 7_000
GROUP_BYTES = 160


@functools.cache
def _blob(size: int) -> st.SearchStrategy[bytes]:
    # Made once per size: st.binary's own cache costs argument checks on every call,
    # and a batch draws dozens of byte strings.
    return st.binary(min_size=size, max_size=size)


@st.composite
def _record_batches(
    draw: st.DrawFn,
    record: int,
    decode: Callable[[bytes], Any],
    size: int,
    prefetch: Prefetch | None,
) -> list[Any]:
    # `count` records, drawn GROUP_BYTES at a time as byte strings (per-choice cost is
    # what limits drawing; a long byte string is slow to shrink, a short one costs a
    # choice per record), then a window of them is decoded. Drawing `skip` = 0 puts the
    # window on the last record and `extra` = 0 makes it one record long, so the
    # shrinker narrows the window to the record that fails (lowering `skip` moves its
    # start right, which keeps a failing record inside until the start reaches it),
    # then lowers that record's bytes (the others no longer matter: see Search.search).
    # Three times in four `whole` is drawn nonzero: the batch is all `count` records.
    count = max(1, min(size, MAX_BATCH_BYTES // record))
    whole = draw(st.integers(0, 3))
    skip = draw(st.integers(0, count - 1))
    extra = draw(st.integers(0, count - 1))
    start, stop = 0, count
    if not whole:
        start = count - 1 - skip
        stop = min(count, start + 1 + extra)
    #
    # With ``prefetch``, every PIPELINE_CHUNK inputs decoded go to the platforms at
    # once: the platforms' processes run them while the rest is drawn (drawing is
    # the harness's alone, and would otherwise leave them idle).
    group = max(1, GROUP_BYTES // record)
    ticket = prefetch.open_batch() if prefetch is not None else None
    inputs: list[Any] = []
    records: list[bytes] = []
    chunks: list[tuple[list[Any], list[Request]]] = []
    drawn = sent = 0
    while drawn < stop:
        n = min(group, stop - drawn)
        blob = draw(_blob(n * record))
        cut = [blob[i * record : (i + 1) * record] for i in range(max(0, start - drawn), n)]
        # While generating, an input the search ran before is not run again: a seed's
        # first batch is all zero records, steering redraws records with small changes,
        # and on the plain hypothesis backend mutations and target() redraw mostly the
        # same records (7 in 8 inputs of a 60-example search); a repeat tells nothing new.
        if ticket is None:
            inputs += [decode(r) for r in cut]
        else:
            assert prefetch is not None
            for r in cut:
                made = decode(r)
                if prefetch.first_time(made):
                    inputs.append(made)
                    records.append(r)
        drawn += n
        while ticket is not None and (
            len(inputs) - sent >= PIPELINE_CHUNK or (drawn >= stop and sent < len(inputs))
        ):
            chunk = inputs[sent : sent + PIPELINE_CHUNK]
            assert prefetch is not None
            chunks.append((chunk, prefetch.send(ticket, chunk)))
            sent += len(chunk)
    return inputs if ticket is None else _Sent(inputs, ticket, chunks, records)


def record_batches(
    record: int, decode: Callable[[bytes], Any], size: int, prefetch: Prefetch | None = None
) -> st.SearchStrategy[list[Any]]:
    """Batches of up to ``size`` inputs decoded from ``record``-byte records of one byte string."""
    return _record_batches(record, decode, size, prefetch)


def input_batches(
    module: Any, size: int, prefetch: Prefetch | None = None
) -> st.SearchStrategy[list[Any]]:
    """The domain's batches: from byte records when the module decodes them, else lists."""
    decode = getattr(module, "decode", None)
    if decode is not None:
        return record_batches(module.RECORD, _remembering(decode), size, prefetch)
    return batches(module.inputs(), size)


def _remembering(decode: Callable[[bytes], Any]) -> Callable[[bytes], Any]:
    """``decode``, giving a record it has decoded before the same input again, an
    ``EncodedInput`` when the input is a JSON object.

    Hypothesis's mutations and its ``target()`` hill climbing redraw mostly the same
    records (a 60-example compaction search decodes about four records for every
    distinct one): each is decoded and encoded once. Decoding is pure, and no one
    changes an input once made.
    """
    memo: dict[bytes, Any] = {}

    def decode_once(record: bytes) -> Any:
        try:
            return memo[record]
        except KeyError:
            if len(memo) >= DECODED_LIMIT:
                memo.clear()
            made = decode(record)
            if type(made) is dict:
                # Not JSON (TypeError, ValueError): left plain, encode_request says why.
                with contextlib.suppress(TypeError, ValueError):
                    made = EncodedInput(made, compact_text(made))
            memo[record] = made
            return made

    return decode_once


def _settings(max_examples: int) -> settings:
    return settings(
        max_examples=max_examples,
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        report_multiple_bugs=False,
        # No explain phase: it reruns the failure under a tracer, which is slow.
        phases=(Phase.generate, Phase.target, Phase.shrink),
        print_blob=False,
        # Each example's bytes drawn afresh in one call (see runners.generate.backend).
        backend=backend(),
    )


@contextlib.contextmanager
def _switching(interval: float) -> Iterator[None]:
    before = sys.getswitchinterval()
    sys.setswitchinterval(interval)
    try:
        yield
    finally:
        sys.setswitchinterval(before)


def _drive(
    strategy: st.SearchStrategy[Any],
    test: Callable[[Any], None],
    max_examples: int,
    seed: int,
    steering: Steering | None = None,
) -> bool:
    """Run Hypothesis; True when ``test`` raised _Found (its last call saw the minimal example)."""
    wrapped = hypothesis.seed(seed)(_settings(max_examples)(given(strategy)(test)))
    try:
        with (
            with_reporter(lambda _message: None),
            _switching(SWITCH_INTERVAL),
            _gc.seldom(),
            steered(steering),
        ):
            wrapped()
    except _Found:
        return True
    return False


class Search:
    """Differential and property search for one domain over started platforms."""

    def __init__(
        self,
        domain: str,
        reference: StartedPlatform,
        others: Sequence[StartedPlatform],
        rules: Sequence[Mapping[str, Any]] = (),
        known: Mapping[str, frozenset[Cause]] | None = None,
        known_inputs: Mapping[str, Mapping[str, str]] | None = None,
    ) -> None:
        module = strategies.load(domain)
        if module is None:
            raise ValueError(
                f"no strategies for {domain}: add strategies/{domain.replace('-', '_')}.py"
            )
        self.domain = domain
        self.module = module
        self.reference = reference
        self.others = list(others)
        self.rules = list(rules)
        # Per platform, the divergences its ledger records (runners.generate.known).
        self.known = dict(known or {})
        # Per platform, the inputs of the corpus cases its ledger names (input key -> id).
        self.known_inputs = dict(known_inputs or {})
        schema = domain_schema(domain)
        self.output_schema = schema.output if schema else None
        self.stats = Stats()
        self._valid_outputs: set[str] = set()
        self._seen_outputs = 0
        self._tickets = itertools.count(1)
        self._next_id = 0  # the next request's id (_requests)
        self._prefetching = False  # on while search() generates (not while it shrinks)
        self._sent: set[str] = set()  # inputs sent while generating (first_time)
        # target() for the search's backend: each batch's rarest record, varied.
        self.steering = Steering()
        # Out-of-process platforms run on lanes (their own threads); in-process ones run
        # on this thread: on another they would only contend for the GIL.
        self._lanes = {
            p.name: _Lane(p.name, self._runner(p))
            for p in [reference, *self.others]
            if p.adapter is not None and not p.adapter.in_process
        }

    # -- running -----------------------------------------------------------------

    def _requests(self, inputs: Sequence[Any]) -> list[Request]:
        """One request per input, its JSON text made once for every platform.

        Ids are numbered through the search, so chunks a lane runs together
        (``_Lane``) never share one."""
        encode = compact_text
        domain = self.domain
        requests: list[Request] = []
        first = self._next_id
        self._next_id = first + len(inputs)
        for i, case_input in enumerate(inputs, first):
            if type(case_input) is EncodedInput:  # decoded with its text
                text = case_input.json
            else:
                try:
                    text = encode(case_input)
                except (TypeError, ValueError):  # not JSON: encode_request says why
                    requests.append({"id": str(i), "domain": domain, "input": case_input})
                    continue
            requests.append(cast(Request, KnownInputText(str(i), domain, case_input, text)))
        return requests

    def _runner(self, platform: StartedPlatform) -> Callable[[list[Request]], list[Answer]]:
        def run(requests: list[Request]) -> list[Answer]:
            return self._run_requests(platform, requests)

        return run

    def _run(self, platform: StartedPlatform, inputs: Sequence[Any]) -> list[Answer]:
        requests = self._requests(inputs)
        lane = self._lanes.get(platform.name)
        if lane is None:
            return self._run_requests(platform, requests)
        ticket = next(self._tickets)
        lane.send(ticket, requests)
        return lane.take(ticket)

    def open_batch(self) -> int | None:
        return next(self._tickets) if self._prefetching else None

    def first_time(self, case_input: Any) -> bool:
        self.stats.drawn += 1
        key = case_input.json if type(case_input) is EncodedInput else repr(case_input)
        if key in self._sent:
            return False
        if len(self._sent) >= MEMO_LIMIT:
            self._sent.clear()
        self._sent.add(key)
        return True

    def send(self, ticket: int, inputs: list[Any]) -> list[Request]:
        requests = self._requests(inputs)
        for lane in self._lanes.values():
            lane.send(ticket, requests)
        return requests

    def _run_requests(self, platform: StartedPlatform, requests: list[Request]) -> list[Answer]:
        assert platform.adapter is not None
        return cast(list[Answer], run_batch_in_order(platform.adapter, platform.name, requests))

    def _schema_problem(self, output: Any) -> str | None:
        if self.output_schema is None:
            return None
        for error in self.output_schema.iter_errors(output):
            where = "".join(f"/{p}" for p in error.absolute_path)
            return f"breaks the output schema at {where or '/'}: {error.message}"
        return None

    def _reference_schema_problem(self, output: Any) -> str | None:
        # Validating costs more than running the input on all three platforms (a few
        # milliseconds for a compaction result). The first VALIDATE_ALL distinct
        # reference outputs are validated, then one output in VALIDATE_EVERY: the
        # reference breaking its own schema is not what the search is after (the corpus
        # checks that, and a candidate's expectation is validated when written).
        self._seen_outputs += 1
        if len(self._valid_outputs) >= VALIDATE_ALL:
            if self._seen_outputs % VALIDATE_EVERY:
                return None
            return self._schema_problem(output)
        key = repr(output)
        if key in self._valid_outputs:
            return None
        problem = self._schema_problem(output)
        if problem is None:
            self._valid_outputs.add(key)
        return problem

    def _judge(self, case_input: Any, expected: Answer, actual: Answer, keys: _Keys) -> str | None:
        """Why ``actual`` (another platform) is wrong given the reference's ``expected``.

        ``keys`` are the reference output's comparison keys (one per input, shared by
        the platforms judged against it).
        """
        if "skip" in actual:
            return None  # the platform declined this input (protocol skip): nothing to compare
        if "crash" in actual:
            return f"crashed: {actual['crash'].get('message', '')}"
        if "error" in expected:
            code = expected["error"].get("code")
            if "error" in actual:
                got = actual["error"].get("code")
                return None if got == code else f"error {got!r}, reference error {code!r}"
            return f"output {_short(actual.get('output'))}, reference error {code!r}"
        if "error" in actual:
            return f"error {actual['error'].get('code')!r} where the reference has an output"
        want, got = expected.get("output"), actual.get("output")
        if keys.same(got):
            return None  # the same JSON: schema validity is then the reference's
        if canonical_text(got) == keys.sorted():
            return None  # the same JSON (keys in another order, booleans where they were)
        differences = diff(want, got, rules_for(self.rules, case_input))
        if not differences:
            return None  # equal up to key order (or 1.0 vs 1): valid if the reference is
        problem = self._schema_problem(got)
        if problem:
            return problem
        first = differences[0]
        return (
            f"differs at {first.pointer or '/'}: {_short(first.actual)}, "
            f"reference {_short(first.expected)}"
            + (f" (and {len(differences) - 1} more)" if len(differences) > 1 else "")
        )

    def disagreements(self, inputs: Sequence[Any]) -> tuple[list[Answer], list[dict[str, str]]]:
        """Reference responses, and per input the platforms that disagree (with why)."""
        expected: list[Answer] = []
        verdicts: list[dict[str, str]] = []
        for _, chunk_expected, chunk_verdicts in self.judged_chunks(inputs):
            expected += chunk_expected
            verdicts += chunk_verdicts
        return expected, verdicts

    def judged_chunks(
        self, inputs: Sequence[Any]
    ) -> Iterator[tuple[Sequence[Any], list[Answer], list[dict[str, str]]]]:
        """Per chunk of PIPELINE_CHUNK inputs: the inputs, the reference's answers, verdicts.

        Every chunk goes to each out-of-process platform's lane at once (or went while
        the batch was drawn: ``_Sent``), so this thread judges a chunk while the
        platforms run the next: on two cores the harness's comparison and clause
        attribution overlap the platforms' work. The caller may stop early: answers
        to the chunks left are dropped by the lanes' tickets.
        """
        if isinstance(inputs, _Sent):
            ticket, chunks = inputs.ticket, inputs.chunks
        else:
            ticket = next(self._tickets)
            chunks = [
                (chunk, self.send(ticket, chunk))
                for chunk in (
                    list(inputs[i : i + PIPELINE_CHUNK])
                    for i in range(0, len(inputs), PIPELINE_CHUNK)
                )
            ]
        platforms = [self.reference, *self.others]
        for chunk, requests in chunks:
            answers = {
                p.name: self._lanes[p.name].take(ticket)
                if p.name in self._lanes
                else self._run_requests(p, requests)
                for p in platforms
            }
            expected = answers.pop(self.reference.name)
            yield chunk, expected, self._verdicts(chunk, expected, answers)

    def _verdicts(
        self, inputs: Sequence[Any], expected: list[Answer], answers: Mapping[str, list[Answer]]
    ) -> list[dict[str, str]]:
        verdicts: list[dict[str, str]] = []
        for i, case_input in enumerate(inputs):
            reasons: dict[str, str] = {}
            ref = expected[i]
            if "crash" in ref:
                reasons[self.reference.name] = f"crashed: {ref['crash'].get('message', '')}"
            elif "output" in ref:
                problem = self._reference_schema_problem(ref["output"])
                if problem:
                    reasons[self.reference.name] = problem
            if not reasons:
                keys = _Keys(ref.get("output"))
                for name, responses in answers.items():
                    if "skip" in responses[i]:  # declined (protocol skip): not compared
                        self.stats.skipped[name] += 1
                        continue
                    why = self._judge(case_input, ref, responses[i], keys)
                    if why and self.known:
                        why = self._past_known(name, case_input, ref, responses[i], why)
                    if why:
                        reasons[name] = why
            verdicts.append(reasons)
        return verdicts

    def _past_known(
        self, platform: str, case_input: Any, expected: Answer, actual: Answer, why: str
    ) -> str | None:
        """``why``, naming the causes the platform's ledger does not record; None if it
        records them all (a known divergence: not a finding)."""
        known = self.known.get(platform)
        if known is None:
            return why
        ledgered = self.known_inputs.get(platform)
        if ledgered and input_key(case_input) in ledgered:
            self.stats.known_cases += 1
            return None
        causes = answer_causes(self.domain, case_input, expected, actual, self.rules)
        new = causes - known
        if new and known:  # a recorded missing or extra element may shift the rest
            for pairs_first in (True, False):
                aligned = answer_causes(
                    self.domain, case_input, expected, actual, self.rules, True, pairs_first
                )
                if aligned and not aligned - known:
                    new = set()
                    break
        if causes and not new:
            self.stats.known += 1
            return None
        shown = ", ".join(f"{pattern or '(whole output)'}: {kind}" for pattern, kind in sorted(new))
        return f"{why}; not in its ledger: {shown}" if shown else why

    # -- searching ---------------------------------------------------------------

    def _rarity(self, touched: set[str]) -> float:
        """Higher for inputs touching clauses the search has rarely touched (for target())."""
        return sum(1.0 / (1 + self.stats.clause_hits[c]) for c in touched)

    def search(self, max_examples: int, seed: int, batch: int) -> Finding | None:
        """Look for an input a platform gets wrong; shrink it; None if none was found."""
        seen: list[Failure] = []
        first_failure: list[int] = []
        started = time.perf_counter()

        # Once something failed, Hypothesis shrinks: each try changes a little of the
        # batch, so most of its inputs were judged before. Inputs are then remembered by
        # their text and only new ones run (a batch with a known failing input fails
        # at once), which keeps shrinking cheap where a case costs processes and trees.
        failing: dict[str, Failure] = {}
        passed: set[str] = set()

        # While generating with platforms on lanes, a batch is judged one example
        # late: Hypothesis draws batch k + 1 (and sends its chunks) while the platforms
        # still run batch k's last chunks, and batch k is judged when they are done.
        # Judged at once, the harness would wait at every batch's end for its last
        # chunk, and the platforms at every batch's start for its first. A failure
        # found late is drawn again (Steering.replay: the next example makes batch k's
        # choices again), fails at once there, and Hypothesis shrinks it as usual.
        # The last two examples are judged at once, so that a replay still fits.
        deferring = JUDGE_LATE and bool(self._lanes) and backend() == BACKEND
        # A batch judged late, the example that drew it, its choices and the engine's
        # Random after drawing it.
        late: list[tuple[_Sent, int, tuple[Any, ...], Any]] = []

        examples = itertools.count(1)  # this search's, where stats.examples counts all

        def test(inputs: list[Any]) -> None:
            self.stats.examples += 1
            example = next(examples)
            offer()  # the batch before this one's (judged at once)
            if first_failure:
                failure = judge_new(inputs)
            elif isinstance(inputs, _Sent) and deferring and example > 1:
                # Not the first: Hypothesis draws it with its own provider (the simplest
                # choices) and records it, so a replay that failed where it had passed
                # would be a FlakyFailure; the search backend's draws are not recorded.
                failure = judge_late(inputs, example)
            else:
                failure, _, best, best_at = judge(inputs)
                if failure is None:
                    settle(inputs, best, best_at)
            if failure is not None:
                found(failure, example)
                raise _Found  # the one place: Hypothesis tells failures apart by where

        def found(failure: Failure, example: int) -> None:
            seen.append(failure)
            if not first_failure:
                first_failure.append(example)
                failing[repr(failure[0])] = failure
                self._prefetching = False  # shrinking: only inputs not judged before run

        def judge_late(inputs: _Sent, example: int) -> Failure | None:
            """Judge the batch before this one; this one now or, mostly, next time."""
            best = 0.0
            if late:
                before, drawn_at, its_choices, its_random = late.pop()
                failure, _, best, best_at = judge(before)
                if failure is not None:
                    found(failure, drawn_at)
                    self.steering.replay(its_choices)
                    rewind(its_random)  # as if this example had not drawn
                    return None  # this batch passes; the next example is the replay
                settle(before, best, best_at, target=False)
                offer()  # the batch before this one's (judged late)
            drawn = current_example()
            if drawn is None or example >= max_examples - 1:
                failure, _, now, best_at = judge(inputs)
                if failure is None:
                    settle(inputs, now, best_at, target=False)
                best = max(best, now)
            else:
                late.append((inputs, example, *drawn))
                failure = None
            hypothesis.target(best, label="rarely touched clauses")
            return failure

        # A batch's rarest record is offered to steering as the example after it runs
        # (judged at once or late, the next batch is drawn before it is offered), so
        # that a seed draws the same batches either way.
        offers: list[tuple[bytes, float]] = []

        def settle(inputs: list[Any], best: float, best_at: int, target: bool = True) -> None:
            # Climbed by Hypothesis on its own backend; on the search's (which skips the
            # target phase) the same score steers the draws (runners.generate.backend).
            if target:
                hypothesis.target(best, label="rarely touched clauses")
            if isinstance(inputs, _Sent) and inputs.records and best > 0:
                offers.append((inputs.records[best_at], best))

        def offer() -> None:
            for record, score in offers:
                self.steering.offer(record, score)
            offers.clear()

        def judge_new(inputs: list[Any]) -> Failure | None:
            keys = [repr(case_input) for case_input in inputs]
            for key in keys:
                if key in failing:
                    return failing[key]
            fresh = [(k, i) for k, i in zip(keys, inputs, strict=True) if k not in passed]
            if not fresh:
                return None
            failure, judged, _, _ = judge([i for _, i in fresh])
            if len(passed) > MEMO_LIMIT:
                passed.clear()
            passed.update(k for k, _ in fresh[:judged])
            if failure is not None:
                failing[fresh[judged][0]] = failure
            return failure

        def judge(inputs: list[Any]) -> tuple[Failure | None, int, float, int]:
            """The first input some platform gets wrong, how many passed before it, and
            the passing inputs' best rarity and where it is."""
            best, best_at, at = 0.0, 0, 0
            for chunk, expected, verdicts in self.judged_chunks(inputs):
                self.stats.cases += len(chunk)
                for case_input, ref, reasons in zip(chunk, expected, verdicts, strict=True):
                    if reasons:
                        return (case_input, ref, reasons), at, best, best_at
                    touched = self.module.clauses(case_input, ref)
                    rarity = self._rarity(touched)
                    if rarity > best:
                        best, best_at = rarity, at
                    self.stats.clause_hits.update(touched)
                    at += 1
            return None, len(inputs), best, best_at

        strategy = input_batches(self.module, batch, self)
        self._prefetching = True
        try:
            found_one = _drive(strategy, test, max_examples, seed, self.steering)
        finally:
            self._prefetching = False
        self.stats.seconds += time.perf_counter() - started
        if not found_one and not seen:
            return None
        # Not found_one but seen: a failure judged late whose replay Hypothesis never
        # ran (it stopped first): reported as found, unshrunk.
        case_input, ref, reasons = seen[-1]
        return Finding(
            self.domain,
            "disagreement",
            "differential",
            case_input,
            case_input,
            reasons,
            ref,
            first_failure[0],
        )

    def check_property(
        self, prop: Property, max_examples: int, seed: int, batch: int
    ) -> Finding | None:
        """Look for probes on which a platform breaks ``prop``; shrink; None if it holds."""
        platforms = [self.reference, *self.others]
        seen: list[tuple[Any, dict[str, str]]] = []
        first_failure: list[int] = []
        started = time.perf_counter()

        # As in search(): once a probe failed, only probes not judged before run.
        failing: dict[str, tuple[Any, dict[str, str]]] = {}
        passed: set[str] = set()

        def test(probes: list[Any]) -> None:
            self.stats.examples += 1
            if first_failure:
                keys = [repr(probe) for probe in probes]
                known = next((failing[k] for k in keys if k in failing), None)
                fresh = [(k, p) for k, p in zip(keys, probes, strict=True) if k not in passed]
                failure = known
                if failure is None and fresh:
                    failure = judge([p for _, p in fresh], [k for k, _ in fresh])
            else:
                failure = judge(probes, None)
            if failure is not None:
                seen.append(failure)
                if not first_failure:
                    first_failure.append(self.stats.examples)
                raise _Found  # the one place: Hypothesis tells failures apart by where

        def judge(probes: list[Any], keys: list[str] | None) -> tuple[Any, dict[str, str]] | None:
            plans = [prop.requests(probe) for probe in probes]
            flat = [case_input for plan in plans for case_input in plan]
            ticket = next(self._tickets)
            requests = self.send(ticket, flat)
            answers = {
                p.name: self._lanes[p.name].take(ticket)
                if p.name in self._lanes
                else self._run_requests(p, requests)
                for p in platforms
            }
            at = 0
            for i, (probe, plan) in enumerate(zip(probes, plans, strict=True)):
                reasons = {}
                for name, responses in answers.items():
                    mine = responses[at : at + len(plan)]
                    if any("skip" in r for r in mine):  # declined: the property is not its
                        self.stats.property_skipped[name] += 1
                        continue
                    why = prop.check(probe, mine)
                    if why:
                        reasons[name] = why
                at += len(plan)
                key = keys[i] if keys is not None else repr(probe)
                if reasons:
                    failing[key] = (probe, reasons)
                    return probe, reasons
                if keys is not None and len(passed) < MEMO_LIMIT:
                    passed.add(key)
            self.stats.clause_hits.update(prop.clauses * len(probes))
            return None

        strategy = (
            record_batches(prop.record, prop.decode, batch)
            if prop.decode is not None
            else batches(prop.probes, batch)
        )
        found = _drive(strategy, test, max_examples, seed)
        self.stats.property_seconds += time.perf_counter() - started
        if not found:
            return None
        probe, reasons = seen[-1]
        case_input = prop.candidate(probe) if prop.candidate else None
        reference = None
        if case_input is not None and self.reference.name not in reasons:
            reference = self._run(self.reference, [case_input])[0]
        return Finding(
            self.domain,
            "property",
            prop.name,
            case_input,
            probe,
            reasons,
            reference,
            first_failure[0],
        )

    def close(self) -> None:
        for lane in self._lanes.values():
            lane.close()

    def properties(self) -> tuple[Property, ...]:
        found: tuple[Property, ...] = getattr(self.module, "PROPERTIES", ())
        return found
