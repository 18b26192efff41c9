"""``run --jobs N``: the run's files split across N harness processes (issue 13).

One harness process judges every result on one core (the GIL), whatever its threads
do; at a million cases it, not the platforms' children, is the bound. With ``--jobs
N`` the files are split into N runs of consecutive files of about equal size. Each
run goes to a *job*: a process forked from this one (so it has the same platforms,
registered ones included, the same ledgers and options) that runs its files exactly
as a run of one process does (``_stream.run``, its own platforms' children), but
hands each chunk on, made ready (``_stream.Chunk``: passing results already their
lines), to a spool file of its own. This process reads the spools in job order, so
in file order, and puts every chunk through the one ``Sink``: the ledgers, counts,
clusters, report, triage and results file see what a run of one process gives them,
in the same order, and write the same document.

* A job that ends without saying so (killed, crashed) leaves its cases not written:
  they are written ``error``, each with the job's stderr, and the run goes on.
* SIGINT and SIGTERM are passed on to every job (each writes its unfinished cases
  ``not_run``, as a run of one process does); a job interrupted on its own interrupts
  the others. The exit code is 128 + the signal.
* An invalid file (or an id used twice across jobs) stops every job: exit 2, with the
  problems of every file left, and no results.

Jobs are forked (POSIX): a spawned process would not have the platforms a caller
registered in-process, nor this run's loaded vectors.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import struct
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import IO, Any

from .._textsafe import bound
from ..exceptions import Problem, VectorFileError
from ..gate.verdict import in_shard
from ..judge.outcomes import Outcome, unjudged
from ..vectors.load import Case, VectorFile
from ..vectors.stream import EarlierIds, VectorSource
from . import signals
from . import stream as _stream
from .batches import StartedPlatform
from .platforms import describe, stop_all

_FRAME = struct.Struct("<Q")
_POLL_S = 0.005
_STDERR_KEPT = 8000
_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class _JobSink:
    """A job's sink: each file seen and each chunk, made ready, to the job's spool."""

    def __init__(
        self,
        stream: IO[bytes],
        named: Callable[[str, str], bool],
        lines_wanted: bool,
        platforms: Sequence[StartedPlatform],
    ) -> None:
        self.stream = stream
        self.named = named
        self.lines_wanted = lines_wanted
        self.platforms = platforms

    def put(self, item: tuple[Any, ...]) -> None:
        data = pickle.dumps(item, protocol=pickle.HIGHEST_PROTOCOL)
        self.stream.write(_FRAME.pack(len(data)))
        self.stream.write(data)
        self.stream.flush()

    def seen(self, vf: VectorFile) -> None:
        self.put(("file", _stream.seen_file(vf, self.named)))

    def chunk(self, cases: Sequence[Case], outcomes: Sequence[Sequence[Outcome]]) -> None:
        chunk = _stream.encode_chunk(cases, outcomes, self.named, self.lines_wanted)
        # What the parent's report needs to tell a platform-wide message (``Problems``).
        shared = {p.name: (p.failure, p.adapter and p.adapter.broken) for p in self.platforms}
        self.put(("chunk", chunk, len(cases), shared))


class Job:
    """One forked harness process, its files, its spool and its stderr."""

    def __init__(self, index: int, paths: list[Path], folder: Path | None) -> None:
        self.index = index
        self.paths = paths
        spool = tempfile.NamedTemporaryFile(  # noqa: SIM115 - removed by close()
            dir=folder, prefix=".hanzo-conformance-job-", delete=False
        )
        spool.close()
        self.spool = Path(spool.name)
        self.stderr = tempfile.TemporaryFile()  # noqa: SIM115 - closed by close()
        self.pid = 0
        self.status: int | None = None  # os.waitpid's, once it ended
        self.ended = False  # its "end" frame was read
        self.interrupted: int | None = None  # the signal that interrupted it, said at its end

    def start(self, body: Callable[[Job], int]) -> None:
        """Fork; the child runs ``body`` and exits with its code (never returns here)."""
        with warnings.catch_warnings():  # Python 3.12+ warns of fork with threads alive
            warnings.simplefilter("ignore", DeprecationWarning)
            pid = os.fork()
        if pid:
            self.pid = pid
            return
        code = 70  # EX_SOFTWARE: the body raised
        try:
            _end_with_parent()
            os.dup2(self.stderr.fileno(), 2)
            with open(os.devnull, "wb") as null:
                os.dup2(null.fileno(), 1)
            # Whatever the parent's streams were (a capture, a wrapper), the job's are its files.
            sys.stdout = open(1, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
            sys.stderr = open(2, "w", encoding="utf-8", errors="backslashreplace", closefd=False)  # noqa: SIM115
            code = body(self)
        except BaseException:  # reported on the job's stderr, which the parent reads
            import traceback

            traceback.print_exc()
        finally:
            with contextlib.suppress(Exception):
                sys.stderr.flush()
            os._exit(code)

    def reap(self, block: bool = False) -> bool:
        """Whether the process has exited (reaping it)."""
        if self.status is None and self.pid:
            with contextlib.suppress(ChildProcessError):
                pid, status = os.waitpid(self.pid, 0 if block else os.WNOHANG)
                if pid:
                    self.status = status
        return self.status is not None

    def signal(self, signum: int) -> None:
        if self.pid and self.status is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signum)

    def frames(self) -> Iterator[tuple[Any, ...]]:
        """The spool's frames as the job writes them; ends at the job's exit."""
        with self.spool.open("rb") as stream:
            while True:
                head = self._read(stream, _FRAME.size)
                if head is None:
                    return
                data = self._read(stream, _FRAME.unpack(head)[0])
                if data is None:
                    return
                yield pickle.loads(data)

    def _read(self, stream: IO[bytes], size: int) -> bytes | None:
        """``size`` bytes, waiting for the job to write them; None if it exited first."""
        parts: list[bytes] = []
        wanted = size
        exited = False
        while wanted:
            data = stream.read(wanted)
            if data:
                parts.append(data)
                wanted -= len(data)
                continue
            if exited:
                return None
            exited = self.reap()  # then read once more: it may have written just before
            if not exited:
                time.sleep(_POLL_S)
        return b"".join(parts)

    def how_it_ended(self) -> str:
        status = self.status
        if status is None:
            return "did not finish"
        if os.WIFSIGNALED(status):
            number = os.WTERMSIG(status)
            with contextlib.suppress(ValueError):
                return f"was killed by {signal.Signals(number).name}"
            return f"was killed by signal {number}"
        return f"exited with code {os.waitstatus_to_exitcode(status)}"

    def stderr_text(self) -> str:
        self.stderr.seek(0)
        data = self.stderr.read()
        text = data[-_STDERR_KEPT:].decode("utf-8", "backslashreplace")
        return text

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.stderr.close()
        with contextlib.suppress(OSError):
            self.spool.unlink()


def _end_with_parent() -> None:
    """On Linux, a job is sent SIGTERM (and ends as at an interrupt) if the CLI dies
    without ending it (killed outright): no job runs on for nobody."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGTERM, 0, 0, 0)  # PR_SET_PDEATHSIG


def _job_body(
    vectors: VectorSource,
    shard: tuple[int, int] | None,
    chosen: Sequence[tuple[str, Callable[[], Any]]],
    named: Callable[[str, str], bool],
    lines_wanted: bool,
) -> Callable[[Job], int]:
    """What a job runs: its files, as ``_cli``'s run does, into its spool."""

    def body(job: Job) -> int:
        state = _stream.RunState()
        handler = _stream.interrupt_handler(state)
        signals.install(handler, _SIGNALS)  # an ignored one stays ignored, as in the parent
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _SIGNALS)
        platforms = _stream.start_platforms(chosen, state)
        with job.spool.open("wb") as stream:
            sink = _JobSink(stream, named, lines_wanted, platforms)
            try:
                interrupted = _stream.run(
                    vectors.files(job.paths),
                    vectors.runs,
                    shard,
                    platforms,
                    sink,
                    state,
                    lambda: stop_all(platforms),
                    held=1,  # the other jobs keep the cores busy while this one loads
                )
            except VectorFileError as e:
                sink.put(("invalid", e.problems))
                return 2
            finally:
                stop_all(platforms)
            sink.put(("end", {p.name: describe(p) for p in platforms}, interrupted))
        return 0

    return body


def run_jobs(
    vectors: VectorSource,
    groups: list[list[Path]],
    shard: tuple[int, int] | None,
    chosen: Sequence[tuple[str, Callable[[], Any]]],
    sink: _stream.Sink,
    folder: Path | None,
) -> tuple[int | None, dict[str, Any]]:
    """Run ``groups`` of files in a job each; (the signal if interrupted, the platforms'
    descriptions). Every result goes through ``sink`` in file order."""
    jobs = [Job(i, paths, folder) for i, paths in enumerate(groups)]
    body = _job_body(vectors, shard, chosen, sink.gate.names, sink.writer is not None)
    state = _stream.RunState()
    # What each platform told every case at once (it did not start, it was declared
    # broken), as the job writing the current chunk knows it: for the report's blocks.
    shared_now: dict[str, tuple[str | None, str | None]] = {}
    sink.problems.shared = lambda platform, message: (
        bool(message) and message in (shared_now.get(platform, (None, None)))
    )

    def forward(signum: int, _frame: Any) -> None:
        if state.signum is None:
            state.signum = signum
            for job in jobs:
                job.signal(signum)

    previous: dict[int, Any] = {}
    try:
        # Signals wait (blocked) until every job has its handler and this process its own.
        previous_mask = signal.pthread_sigmask(signal.SIG_BLOCK, _SIGNALS)
        try:
            for job in jobs:
                job.start(body)
            if _on_main_thread():
                previous = signals.install(forward, _SIGNALS)
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, previous_mask)
        platforms: dict[str, Any] = {}
        earlier: dict[str, EarlierIds] = {}
        for job in jobs:
            described = _take(job, jobs, vectors, shard, chosen, sink, earlier, shared_now)
            if job.interrupted is not None:
                forward(job.interrupted, None)  # interrupted on its own: so is the run
            if described and not platforms:
                platforms = described
        if not platforms:
            platforms = {name: {"failure": "no harness job finished"} for name, _ in chosen}
        return state.signum, platforms
    finally:
        for job in jobs:
            if not job.ended:
                job.signal(signal.SIGTERM)
            job.reap(block=True)
            job.close()
        signals.restore(previous)


def _on_main_thread() -> bool:
    import threading

    return threading.current_thread() is threading.main_thread()


def _take(
    job: Job,
    jobs: list[Job],
    vectors: VectorSource,
    shard: tuple[int, int] | None,
    chosen: Sequence[tuple[str, Callable[[], Any]]],
    sink: _stream.Sink,
    earlier: dict[str, EarlierIds],
    shared_now: dict[str, tuple[str | None, str | None]],
) -> dict[str, Any]:
    """Every frame of one job through ``sink``; the job's platform descriptions (empty if it
    crashed: its cases not written are then written ``error``)."""
    files_seen = 0
    written = 0  # cases of the current file written
    for frame in job.frames():
        kind = frame[0]
        if kind == "chunk":
            _, chunk, count, shared = frame
            shared_now.update(shared)
            sink.take(chunk)
            written += count
        elif kind == "file":
            seen: _stream.SeenFile = frame[1]
            path, domain = job.paths[files_seen], seen.domain
            ids = earlier.setdefault(domain, EarlierIds())
            message = "id already used in {} for domain " + domain
            used = [
                Problem(path, case_id, "/cases", message.format(first))
                for case_id, first in ids.add(path, seen.ids)
            ]
            if used:
                _stop_invalid(jobs, job, used, files_seen + 1)
            sink.seen_file(seen)
            files_seen += 1
            written = 0
        elif kind == "invalid":
            _stop_invalid(jobs, job, frame[1], len(job.paths))
        elif kind == "end":
            job.ended = True
            job.interrupted = frame[2]
            _pass_on_stderr(job)
            return dict(frame[1])
    job.reap(block=True)
    _crashed(job, vectors, shard, chosen, sink, files_seen, written)
    return {}


def _pass_on_stderr(job: Job) -> None:
    text = job.stderr_text()
    if text.strip():
        sys.stderr.write(text)
        sys.stderr.flush()


def _stop_invalid(jobs: list[Job], job: Job, problems: list[Problem], checked: int) -> None:
    """Stop every job and raise the problems, with those of every file not yet checked."""
    for other in jobs:
        other.signal(signal.SIGTERM)
    found = list(problems)
    rest = job.paths[checked:] + [p for later in jobs[job.index + 1 :] for p in later.paths]
    from ..vectors.load import load_vector_file

    for path in rest:
        try:
            load_vector_file(path)
        except VectorFileError as e:
            found.extend(e.problems)
    raise VectorFileError(found)


def _crashed(
    job: Job,
    vectors: VectorSource,
    shard: tuple[int, int] | None,
    chosen: Sequence[tuple[str, Callable[[], Any]]],
    sink: _stream.Sink,
    files_seen: int,
    written: int,
) -> None:
    """A job ended without its last frame: its cases not written are written ``error``."""
    first, last = job.paths[0].name, job.paths[-1].name
    files = first if first == last else f"{first} … {last}"
    message = bound(
        f"the harness job running {files} {job.how_it_ended()} before this case was judged",
        400,
    )
    detail = job.stderr_text() or None
    names = [name for name, _ in chosen]
    for index in range(max(files_seen - 1, 0), len(job.paths)):
        path = job.paths[index]
        vf = vectors.load(path)
        skip = written if index == files_seen - 1 else 0
        if index >= files_seen:
            sink.seen(vf)
        if not vectors.runs(vf):
            continue
        cases = [c for c in vf.cases if shard is None or in_shard(vf.domain, c.id, shard)][skip:]
        for start in range(0, len(cases), _stream.CHUNK_CASES):
            chunk = cases[start : start + _stream.CHUNK_CASES]
            outcomes = [
                [unjudged(c, name, "error", message, detail) for c in chunk] for name in names
            ]
            sink.chunk(chunk, outcomes)
