"""The CLI's run: the platforms work side by side on bounded chunks of cases, and each
chunk's results are judged by the gate, counted and written before the next (issue 13).

Each platform has a thread that runs ``run_cases`` on one chunk after another (python
and rust are served children, js a Node worker: while one thread waits on its child,
the others' children work and the harness judges). The main thread hands out the
chunks a few ahead, and takes the chunks back in order: every result goes through the
ledgers, into the counts, the clusters and the text report's blocks, and out to the
results file; then it is dropped. Nothing kept grows with the number of cases beyond
counters and a bounded number of examples.

A signal (SIGINT, SIGTERM) stops the run: the platform threads are stopped where they
are (their cut chunk keeps the cases fully answered, as ``run_cases`` hands them over
when interrupted), the platforms are stopped, and every case not finished is written
``not_run``.
"""

from __future__ import annotations

import contextlib
import ctypes
import itertools
import queue
import threading
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from typing import Any, NamedTuple, Protocol, TypeVar, cast

from adapters._json import encode_string, results_text
from adapters.protocol import ErrorAsExpected

from .. import _gc
from ..gate.ledger import LedgerGate
from ..gate.triage import triage
from ..gate.verdict import in_shard
from ..judge.clusters import ClusterTally, annotate_result
from ..judge.compare import MISSING
from ..judge.keys import case_key, divergences
from ..judge.marks import ClauseMarks, MarkTally
from ..judge.outcomes import Item, Outcome, Outcomes, unjudged
from ..reports.meta import VectorsDigest, digest_lines
from ..reports.results_file import ResultsWriter
from ..reports.text import Problems, Tally
from ..vectors.load import Case, VectorFile
from .batches import StartedPlatform, run_cases, start_platform

CHUNK_CASES = 2000
"""Cases a platform is given at once: large enough to batch well, small enough that the
chunks in flight stay small and an interrupted run loses little."""

AHEAD = 3
"""Chunks handed to the platforms beyond the one being written (so they never wait)."""

TRIAGE_KEPT = 1000
"""Triage suspects kept in the summary; the rest are counted (``triage_omitted``)."""

_JOIN_S = 5.0


class StopRun(BaseException):
    """Raised inside a platform thread to stop it (asynchronously, at a signal)."""


class _PlatformThread:
    """Runs one platform's chunks in order; hands back each chunk's outcomes."""

    def __init__(self, platform: StartedPlatform) -> None:
        self.platform = platform
        self.jobs: queue.Queue[tuple[VectorFile, tuple[Case, ...]] | None] = queue.Queue()
        self.done: queue.Queue[tuple[tuple[Case, ...], Sequence[Outcome], bool]] = queue.Queue()
        self.in_run = False
        self.thread = threading.Thread(target=self._loop, name=platform.name, daemon=True)
        self.thread.start()

    def _loop(self) -> None:
        try:
            while (job := self.jobs.get()) is not None:
                vf, cases = job
                self.in_run = True
                try:
                    outcomes = run_cases(self.platform, vf, cases)
                except StopRun as stop:
                    self.in_run = False
                    # The cut chunk's cases fully answered (run_cases's interrupted path).
                    self.done.put((cases, list(getattr(stop, "outcomes", [])), True))
                    return
                self.in_run = False
                self.done.put((cases, outcomes, False))
                # Hold nothing of the file while waiting: it may be the last chunk of it.
                job = vf = cases = outcomes = None  # type: ignore[assignment]
        except StopRun:
            return

    def stop(self, at_once: bool = True) -> None:
        """Stop the thread at once if it is running a chunk, else when it next wakes."""
        if at_once and self.in_run and self.thread.is_alive() and self.thread.ident is not None:
            ctypes.pythonapi.PyThreadState_SetAsyncExc(
                ctypes.c_ulong(self.thread.ident), ctypes.py_object(StopRun)
            )
        self.jobs.put(None)


class _Prefetched:
    """The files, each loaded on a thread of its own while the previous one runs.

    At most ``held`` files are held (two: one loads while the other runs): the loader
    starts on a file only once the file ``held`` before it is done (``done``), whatever
    the number of files.
    """

    def __init__(self, files: Iterator[VectorFile], held: int = 2) -> None:
        self._box: queue.Queue[tuple[VectorFile | None, BaseException | None]] = queue.Queue()
        self._held = held
        self._room = threading.Semaphore(held)
        self._over = False
        threading.Thread(target=self._load, args=(files,), name="load", daemon=True).start()

    def _load(self, files: Iterator[VectorFile]) -> None:
        try:
            while True:
                self._room.acquire()
                vf = next(files, None)
                if vf is None:
                    break
                _warm(vf)
                self._box.put((vf, None))
                vf = None  # not held here while the next one loads
        except BaseException as e:  # VectorFileError: raised where the run takes the file
            self._box.put((None, e))
            return
        self._box.put((None, None))

    def ready(self) -> bool:
        """Whether ``take`` would return at once."""
        return self._over or not self._box.empty()

    def take(self, state: RunState | None = None) -> VectorFile | None:
        """The next file; None after the last; the loader's error where it stopped.
        With ``state``, a signal noted there ends the wait (``Interrupt``), taking nothing."""
        if self._over:
            return None
        vf, error = _get(self._box, state)
        if vf is None:
            self._over = True
        if error is not None:
            raise error
        return vf

    def done(self) -> None:
        """A file taken is finished with (its last chunk written): the next may load."""
        self._room.release()

    def rest(self) -> Iterator[VectorFile]:
        """The files not taken yet, after an interruption. A file taken when the signal
        came was never marked done: its room is given back here, or the loader would
        wait for it forever (at most ``held`` such files)."""
        self._room.release(self._held)
        while (vf := self.take()) is not None:
            yield vf
            self.done()


_T = TypeVar("_T")
_SIGNAL_CHECK_S = 0.05
"""How long a wait of ``run`` goes without looking at ``RunState.signum``."""


def _get(q: queue.Queue[_T], state: RunState | None) -> _T:
    """``q.get()``, ended by a signal noted in ``state`` (``Interrupt``). The handler
    never raises into this wait: an exception landing in ``queue.get`` after it took
    the item and before it returned would lose the item (a file, a chunk's outcomes)."""
    if state is None:
        return q.get()
    while True:
        try:
            return q.get(timeout=_SIGNAL_CHECK_S)
        except queue.Empty:
            if state.signum is not None:
                raise Interrupt from None


def _warm(vf: VectorFile) -> None:
    """Compute each case's cached values (request JSON, size, hash) here, on the loading
    thread: Python 3.11's ``cached_property`` takes one lock per class on every first
    use, and three platform threads meeting on it queued behind each other (measured:
    its ``__get__`` was the costliest function of a three-platform run)."""
    for case in vf.cases:
        case.input_size  # noqa: B018 - computes input_json too
        case.expected_is_typeless  # noqa: B018
        case.expected_json  # noqa: B018
        case.content_hash()


class Chunk(NamedTuple):
    """A chunk's outcomes made ready for a ``Sink``: what a harness job sends its parent.

    Passing results of cases that pass everywhere (nearly all of a healthy run) are
    already their results lines; every other result (``odd``) is its record, judged by
    the sink (ledgers, counts, clusters, report) and written in its place (``None``
    in ``lines``).
    """

    domain: str
    platforms: list[tuple[str, int, list[str | None], list[tuple[int, dict[str, Any]]]]]
    """(platform, passes made lines, lines, [(index in lines, record)]); the lines of a
    platform whose every result passed are one string, joined as the writer joins them."""
    infos: dict[str, dict[str, Any]]
    """Description, clauses and input of each case with a result other than pass."""
    case_lines: list[str]
    """The cases' lines, joined as the writer joins them (one string)."""
    failed: int
    """Results fail or error (before the ledgers): for the progress line."""


def encode_chunk(
    cases: Sequence[Case],
    outcomes: Sequence[Sequence[Outcome]],
    named: Callable[[str, str], bool],
    lines_wanted: bool,
) -> Chunk:
    """One chunk's outcomes (a list per platform, in platform order) as a ``Chunk``.

    A case with a result other than pass, or one a ledger names, keeps every platform's
    record (the gate, clusters, report and triage look at all of them); the rest are
    written from pieces (see ``_pass_line``).
    """
    odd = {o.case for per_platform in outcomes for o in _made(per_platform) if o.status != "pass"}
    by_case: dict[str, Case] | None = None  # made when a pass held as an Outcome needs it
    heads: dict[str, str] = {}
    platforms = []
    failed = 0
    for per_platform in outcomes:
        lines: list[str | None] = []
        records: list[tuple[int, dict[str, Any]]] = []
        passes = 0
        if type(per_platform) is Outcomes:
            name = per_platform.platform
            items: Sequence[Item] = per_platform.items
            item_cases: Sequence[Case] = per_platform.cases
        else:
            name = per_platform[0].platform if per_platform else ""
            items, item_cases = per_platform, ()
        # What a pass line (_pass_line) of a case passed as expected has after its
        # case's hash: written here from the case, with no outcome made for it.
        tail = f',"platform":{_STRING(name)},"status":"pass","actual":'
        domain = head = ""
        for index, item in enumerate(items):
            if type(item) is not Outcome:  # passed, held as the case's (Outcomes' Item)
                case = item_cases[index]
                case_id = case.id
                if case_id not in odd and not named(case.domain, case_id):
                    passes += 1
                    if lines_wanted:
                        if case.domain != domain:
                            domain = case.domain
                            head = f'{{"domain":{_STRING(domain)},"case":'
                        if item is None:  # the expected output
                            wanted = case.expected_json
                            actual = _ENCODE(case.expected) if wanted is None else wanted
                        else:  # the expected error (its body, or the worker's answer)
                            body = item["error"] if type(item) is ErrorAsExpected else item
                            actual = _error_text(cast("dict[str, Any]", body))
                        # The hash is a hex digest: a JSON string as it is.
                        lines.append(
                            f'{head}{_STRING(case_id)},"case_hash":"{case.content_hash()}"{tail}'
                            f'{actual},"diff":[]}}'
                        )
                    continue
                o = per_platform[index]
            else:
                o = item
            if o.status == "pass" and o.case not in odd and not named(o.domain, o.case):
                passes += 1
                if lines_wanted:
                    if by_case is None:
                        by_case = {c.id: c for c in cases}
                    lines.append(_pass_line(o, heads, by_case.get(o.case)))
                continue
            failed += o.status == "fail" or o.status == "error"
            records.append((len(lines), o.to_json()))
            lines.append(None)
        if lines and not records:  # one string (the writer joins lines the same way)
            lines = [",\n".join(cast("list[str]", lines))]
        platforms.append((name, passes, lines, records))
    infos = {c.id: _case_info(c) for c in cases if c.id in odd}
    case_lines = [",\n".join(_case_line(c) for c in cases)] if lines_wanted and cases else []
    domain = cases[0].domain if cases else ""
    return Chunk(domain, platforms, infos, case_lines, failed)


def records_chunk(
    cases: Sequence[Case],
    records: Sequence[tuple[str, Sequence[dict[str, Any]]]],
    named: Callable[[str, str], bool],
    lines_wanted: bool,
) -> Chunk:
    """``encode_chunk`` of results judged before and saved: each platform's records of
    ``cases`` (in their order, as before the ledgers; ``merge`` puts the shards' results
    through a ``Sink`` again). The same split: a case with a result other than pass, or
    one a ledger names, keeps every platform's record; the other passes are their lines."""
    odd = {r["case"] for _, per_platform in records for r in per_platform if r["status"] != "pass"}
    platforms = []
    failed = 0
    for name, per_platform in records:
        lines: list[str | None] = []
        kept: list[tuple[int, dict[str, Any]]] = []
        passes = 0
        for r in per_platform:
            status = r["status"]
            if status == "pass" and r["case"] not in odd and not named(r["domain"], r["case"]):
                passes += 1
                if lines_wanted:
                    lines.append(_ENCODE(r))
                continue
            failed += status == "fail" or status == "error"
            kept.append((len(lines), r))
            lines.append(None)
        if lines and not kept:  # one string, as encode_chunk makes it
            lines = [",\n".join(cast("list[str]", lines))]
        platforms.append((name, passes, lines, kept))
    infos = {c.id: _case_info(c) for c in cases if c.id in odd}
    case_lines = [",\n".join(_case_line(c) for c in cases)] if lines_wanted and cases else []
    domain = cases[0].domain if cases else ""
    return Chunk(domain, platforms, infos, case_lines, failed)


class Consumer(Protocol):
    """What ``run`` hands each file and chunk to: a ``Sink``, or a harness job's spool."""

    def seen(self, vf: VectorFile) -> None: ...

    def chunk(self, cases: Sequence[Case], outcomes: Sequence[Sequence[Outcome]]) -> None: ...


class Sink:
    """Where judged results go: the ledger gate, the counts, clusters, report and file."""

    def __init__(
        self,
        gate: LedgerGate,
        problems: Problems,
        writer: ResultsWriter | None,
        on_results: Callable[[int, int], None] | None = None,
    ) -> None:
        self.gate = gate
        self.problems = problems
        self.writer = writer
        self.on_results = on_results
        self.tally = Tally()
        self.clusters = ClusterTally(keep=3)
        self.marks = MarkTally(ClauseMarks.from_contracts())
        self.domains: set[str] = set()  # of the files seen: their marked clauses go in the summary
        self.digest = VectorsDigest()
        self.triage: list[dict[str, Any]] = []
        self.triage_omitted = 0

    def seen(self, vf: VectorFile) -> None:
        """A loaded file (run or not): its cases exist, for the ledgers and the version."""
        self.digest.add(vf)
        self.domains.add(vf.domain)
        see = self.gate.see_case
        for case in vf.cases:
            see(case_key(vf.domain, case.id), case.content_hash())

    def seen_file(self, seen: SeenFile) -> None:
        """``seen`` of a file a harness job loaded (``SeenFile``)."""
        self.digest.add_lines(seen.domain, seen.version, seen.cases, seen.digest_lines)
        self.domains.add(seen.domain)
        for key, content_hash in seen.named.items():
            self.gate.see_case(key, content_hash)

    def chunk(self, cases: Sequence[Case], outcomes: Sequence[Sequence[Outcome]]) -> None:
        """One chunk's outcomes, a list per platform (in platform order)."""
        self.take(encode_chunk(cases, outcomes, self.gate.names, self.writer is not None))

    def take(self, chunk: Chunk) -> None:
        """A chunk's results through the gate, into the counts, the report and the file."""
        writer = self.writer
        infos = chunk.infos
        records: list[dict[str, Any]] = []  # of cases with a result other than pass: triage
        lines: list[str] = []
        done = 0
        for platform, passes, platform_lines, odd in chunk.platforms:
            done += passes + len(odd)
            if passes:
                self.tally.add("pass", chunk.domain, platform, passes)
            for index, r in odd:
                self._judged(r, infos.get(r["case"]))
                if r["case"] in infos:
                    records.append(r)
                if writer is not None:
                    platform_lines[index] = _ENCODE(r)
            lines.extend(cast("list[str]", platform_lines))  # every None filled above
        if records and len(chunk.platforms) > 2:
            for suspect in triage(records):
                if len(self.triage) < TRIAGE_KEPT:
                    self.triage.append(suspect)
                else:
                    self.triage_omitted += 1
        if writer is not None:
            writer.lines(lines)
            writer.case_lines(chunk.case_lines)
        if self.on_results is not None:
            self.on_results(done, chunk.failed)

    def _judged(self, r: dict[str, Any], info: dict[str, Any] | None) -> None:
        """A result's record, through the ledgers, counted, clustered and reported; a
        failing one's divergences are found once, for all of them."""
        found = tuple(divergences(r)) if r["status"] in ("fail", "error") else ()
        self.gate.judge(r, found)
        status = r["status"]
        self.tally.add(status, r["domain"], r["platform"])
        self.tally.note(r)
        if status in ("fail", "error", "xfail"):
            annotate_result(r, found)
            clauses = info["clauses"] if info is not None else ()
            self.clusters.add(r, clauses, info, found)
            self.marks.add(r, clauses)
            self.problems.add(r, info)


class SeenFile(NamedTuple):
    """What a ``Sink`` is told of a file a harness job loaded (``Sink.seen`` of its parent)."""

    domain: str
    version: int
    cases: int
    digest_lines: bytes
    named: dict[str, str]
    """``domain::id`` -> content hash of the cases a ledger names."""
    ids: list[str]


def seen_file(vf: VectorFile, named: Callable[[str, str], bool]) -> SeenFile:
    hashes = {
        case_key(vf.domain, c.id): c.content_hash() for c in vf.cases if named(vf.domain, c.id)
    }
    lines = digest_lines(vf)
    return SeenFile(vf.domain, vf.version, len(vf.cases), lines, hashes, [c.id for c in vf.cases])


_ENCODE = results_text
_STRING = encode_string


def _head(case_id: str, domain: str, case_hash: str, heads: dict[str, str]) -> str:
    """A pass line's part before the platform's name, made once per case (every
    platform's line of the case begins with it)."""
    head = heads.get(case_id)
    if head is None:
        head = heads[case_id] = (
            f'{{"domain":{_STRING(domain)},"case":{_STRING(case_id)},'
            f'"case_hash":{_STRING(case_hash)},"platform":'
        )
    return head


def _pass_line(o: Outcome, heads: dict[str, str], case: Case | None = None) -> str:
    """``json(o.to_json())`` of a passing outcome, the case's part made once for every platform.

    An output that is the case's expected value (``_is_expected``) is written as that
    value's text.
    """
    head = _head(o.case, o.domain, o.case_hash, heads)
    value = o.actual
    if value is MISSING:
        actual = ""
    elif case is not None and case.expected_json is not None and _is_expected(value, case):
        actual = f',"actual":{case.expected_json}'
    else:
        actual = f',"actual":{_ENCODE(value)}'
    return f'{head}{_STRING(o.platform)},"status":"pass"{actual},"diff":[]}}'


def _error_text(body: dict[str, Any]) -> str:
    """``{"error": <body>}`` as ``_ENCODE`` writes it; the usual body (``code`` then
    ``message``, both strings) spelled directly, the same bytes without the encoder."""
    if len(body) == 2:
        code, message = body.get("code"), body.get("message")
        if type(code) is str and type(message) is str and next(iter(body)) == "code":
            return f'{{"error":{{"code":{_STRING(code)},"message":{_STRING(message)}}}}}'
    return f'{{"error":{_ENCODE(body)}}}'


def _made(outcomes: Sequence[Outcome]) -> Iterator[Outcome]:
    """The outcomes already made (not the passes ``Outcomes`` holds as None)."""
    if type(outcomes) is Outcomes:
        return (o for o in outcomes.items if type(o) is Outcome)
    return iter(outcomes)


def _is_expected(value: Any, case: Case) -> bool:
    """The output is the case's expected JSON value: the very object, or (a decoded
    output, e.g. its members in another order) one ``==`` to it where ``==`` cannot
    take a number for a boolean (``Case.expected_is_typeless``). Its line then carries
    the expected value's text: the same JSON value, not encoded again."""
    expected = case.expected
    return value is expected or (case.expected_is_typeless and value == expected)


def _case_info(case: Case) -> dict[str, Any]:
    """What the report and the clusters' reproducers show of a case that did not pass."""
    info = {"description": case.description, "clauses": list(case.clauses), "input": case.input}
    if case.expects_error:
        info["error"] = case.error
    else:
        info["expected"] = case.expected
    return info


def _case_line(c: Case) -> str:
    """``"domain::id":{record}`` of the document's ``cases``, as ``case_records`` has it;
    the input's JSON is the text its requests carried (same encoder settings)."""
    encode, string = _ENCODE, _STRING
    given = c.input_json
    if c.error is not None:
        last = f'"error":{string(c.error)}'
    else:
        wanted = c.expected_json  # made at load (same text but for NaN, which is not I-JSON)
        last = f'"expected":{wanted if wanted is not None else encode(c.expected)}'
    return (
        f"{string(case_key(c.domain, c.id))}:{{"
        f'"description":{string(c.description)},"clauses":{encode(c.clauses)},'
        f'"tags":{encode(c.tags)},"input":{given if given is not None else encode(c.input)},'
        f"{last}}}"
    )


def _chunks(cases: tuple[Case, ...]) -> Iterator[tuple[Case, ...]]:
    for start in range(0, len(cases), CHUNK_CASES):
        yield cases[start : start + CHUNK_CASES]


def _not_run(cases: Sequence[Case], platform: str, done: Sequence[Outcome]) -> list[Outcome]:
    """The chunk's outcomes on a platform: those finished, then ``not_run`` for the rest."""
    finished = {o.case: o for o in done}
    return [
        finished.get(c.id) or unjudged(c, platform, "not_run", "the run was interrupted")
        for c in cases
    ]


class RunState:
    """What the signal handler needs: whether the main thread may be interrupted now."""

    def __init__(self) -> None:
        self.signum: int | None = None
        self.waiting = False


def run(
    files: Iterator[VectorFile],
    runs: Callable[[VectorFile], bool],
    shard: tuple[int, int] | None,
    platforms: Sequence[StartedPlatform],
    sink: Consumer,
    state: RunState,
    on_stop: Callable[[], None],
    held: int = 2,
) -> int | None:
    """Run every chunk of every file the run covers; the signal number if interrupted.

    The caller's signal handler notes the signal in ``state.signum``; ``run`` never
    sets ``state.waiting``, so the handler raises nothing here (no chunk half written,
    no file or outcomes lost in a handover) and the waits look at ``state.signum``
    every ``_SIGNAL_CHECK_S``; ``on_stop`` stops the platforms. After a signal, every
    case not finished is written ``not_run``. At most ``held`` files are loaded at once.
    """
    threads = [_PlatformThread(p) for p in platforms]
    # Chunks handed out and not yet written, each with the outcomes taken back so far
    # and whether it is its file's last.
    in_flight: deque[tuple[tuple[Case, ...], list[Sequence[Outcome]], bool]] = deque()
    source = _Prefetched(files, held)
    current: Iterator[tuple[tuple[Case, ...], bool]] = iter(())
    current_file: VectorFile | None = None
    unstarted: list[VectorFile] = []  # taken as the signal came: written not_run below

    def write_first() -> None:
        cases, taken, last = in_flight[0]
        for t in threads[len(taken) :]:
            got, outcomes, _ = _get(t.done, state)
            assert got is cases
            taken.append(outcomes)
        in_flight.popleft()
        sink.chunk(cases, taken)
        if last:
            source.done()
        if state.signum is not None:
            raise Interrupt

    def covered(vf: VectorFile) -> tuple[Case, ...]:
        if shard is None:
            return vf.cases
        return tuple(c for c in vf.cases if in_shard(vf.domain, c.id, shard))

    try:
        while True:
            step = next(current, None)
            if step is None:
                # Nothing of the file just handed out is held here any more (the chunks in
                # flight hold what they need), so that it can go while the next loads.
                current_file = vf = None
                chunks = []
                # The loader may be waiting for a file in flight to be done: write them.
                while in_flight and not source.ready():
                    write_first()
                vf = source.take(state)
                if state.signum is not None:
                    unstarted += [vf] if vf is not None else []
                    raise Interrupt
                if vf is None:
                    break
                sink.seen(vf)
                _gc.freeze_alive()  # the file's cases live until its chunks are written
                chunks = list(_chunks(covered(vf))) if runs(vf) else []
                if not chunks:
                    source.done()
                current = ((c, i == len(chunks) - 1) for i, c in enumerate(chunks))
                current_file = vf
                continue
            chunk, last = step
            assert current_file is not None
            for t in threads:
                t.jobs.put((current_file, chunk))
            in_flight.append((chunk, [], last))
            while len(in_flight) > AHEAD:
                write_first()
        while in_flight:
            write_first()
    except (Interrupt, KeyboardInterrupt):
        pass
    except BaseException:
        # Not a signal (an invalid vector file reached late): nothing of the run is kept,
        # so the threads just end after their chunk, on platforms stopped under them.
        for t in threads:
            t.stop(at_once=False)
        on_stop()
        raise
    else:
        for t in threads:
            t.jobs.put(None)
        return None
    finally:
        _gc.thaw()
    # Interrupted: stop the threads where they are, then the platforms (which wakes any
    # thread waiting on its child), then write every case not finished as not_run.
    for t in threads:
        t.stop()
    on_stop()
    for t in threads:
        t.thread.join(_JOIN_S)
    for cases, taken, last in in_flight:
        per_platform = []
        for index, t in enumerate(threads):
            outcomes: Sequence[Outcome] = []
            if index < len(taken):
                outcomes = taken[index]
            else:
                with contextlib.suppress(queue.Empty):
                    _, outcomes, _ = t.done.get_nowait()
            per_platform.append(_not_run(cases, t.platform.name, outcomes))
        sink.chunk(cases, per_platform)
        if last:
            source.done()
    names = [p.name for p in platforms]
    for chunk, last in current:
        sink.chunk(chunk, [_not_run(chunk, name, []) for name in names])
        if last:
            source.done()
    try:
        for vf in itertools.chain(unstarted, source.rest()):
            sink.seen(vf)
            if runs(vf):
                for chunk in _chunks(covered(vf)):
                    sink.chunk(chunk, [_not_run(chunk, name, []) for name in names])
    except Exception:
        pass
    return state.signum


def interrupt_handler(state: RunState) -> Callable[[int, Any], None]:
    """A signal handler for ``run``: note the signal; break a wait, never a write."""

    def handle(signum: int, _frame: Any) -> None:
        state.signum = signum
        if state.waiting:
            raise Interrupt

    return handle


class Interrupt(BaseException):
    """A signal arrived; raised in the main thread between chunks or while it waits."""


def start_platforms(
    chosen: Sequence[tuple[str, Callable[[], Any]]], state: RunState
) -> list[StartedPlatform]:
    """Each platform started in turn; a signal while one starts ends the starting (the
    run then records every case ``not_run``), never an adapter's start half done. The
    platforms not started then are listed as such, so that their columns still show
    every case not run."""
    platforms: list[StartedPlatform] = []
    with contextlib.suppress(Interrupt):
        for name, factory in chosen:
            state.waiting = True
            try:
                platforms.append(start_platform(name, factory))
            finally:
                state.waiting = False
    started = {p.name for p in platforms}
    platforms += [
        StartedPlatform(name, None, None, f"{name} was not started: the run was interrupted")
        for name, _ in chosen
        if name not in started
    ]
    return platforms
