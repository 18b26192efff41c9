"""A platform in another process: the JSON-lines worker protocol (docs/protocol.md).

``WorkerAdapter`` drives any worker executable through stdin/stdout. It survives
the worker: a worker that exits, hangs, writes garbage or answers out of turn
costs one ``crash`` response (for the case in flight) and a restart, never the
batch; a stray or duplicate line is recorded as a problem of the platform (no
case is blamed) and costs a restart. After ``BROKEN_AFTER`` consecutive worker
failures the platform is declared broken and every case still to run gets one
shared message. A worker that cannot complete the handshake makes ``start()``
raise ``PlatformUnavailable`` carrying its stderr.

The process itself (spawning it in a session of its own, its pipes and threads, killing
its whole process group) is ``adapters.process``; this module is the protocol over it
and the policy of what to do when it fails.
"""

from __future__ import annotations

import contextlib
import json
import queue
import signal
from bisect import bisect_left
from collections.abc import Callable, Sequence
from typing import Any

from impl_python.conformance.layout import LAID_DOMAINS

from .laid import LaidBatch, laid_domains
from .messages import (
    EXTENSIONS_LINE,
    START_LINE,
    STOP_LINE,
    BadRequest,
    encode_request,
    error_acknowledged,
    expect_error_line,
    expect_line,
    expected_answer,
    problem,
    tab_line,
)
from .process import EOF as _EOF
from .process import LINE_LIMIT, LineTooLong, WorkerProcess
from .protocol import (
    ACK,
    ERROR_ACK,
    EXPECT,
    EXPECT_ERROR,
    PROTOCOL_VERSION,
    TAB_RUN,
    BaseAdapter,
    ErrorAsExpected,
    Implementation,
    OutputAsExpected,
    PlatformUnavailable,
    Request,
    Response,
    crash,
)

__all__ = ["BROKEN_AFTER", "WorkerAdapter", "WorkerStartError"]

BROKEN_AFTER = 3  # consecutive worker failures (timeouts, exits, garbage) before giving up
_LINE_EXCERPT = 200
_FLUSH_PROBE_S = 0.5  # after a timeout: how long stdin's EOF may take to shake out buffered lines


class _TimedOut:
    """No line within the case's time limit."""


_TIMED_OUT = _TimedOut()
FLUSH_HINT = (
    "the worker wrote its answer only when its stdin was closed: "
    "it must flush stdout after each line it writes"
)


class WorkerStartError(PlatformUnavailable):
    """The worker could not be started or did not complete the handshake.

    ``message`` says what went wrong; ``stderr`` (also ``detail``) is what the
    worker wrote to stderr before that (possibly empty).
    """

    def __init__(self, message: str, stderr: str = "", platform: str = "") -> None:
        super().__init__(platform, message, detail=stderr)
        self.stderr = stderr


def case_of(request_id: str) -> str:
    """The case a request id belongs to: the harness numbers variants ``<case>#<n>``."""
    head, sep, _ = request_id.rpartition("#")
    return head if sep else request_id


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


_DECODER = json.JSONDecoder(parse_constant=_reject_constant)  # one, not one per line


def _decode(line: bytes) -> Any:
    """A worker's line as JSON (as ``json.loads`` reads UTF-8 bytes); ValueError if it is
    not, or if it nests deeper than the decoder can follow (one bad line is one bad
    answer, not a RecursionError that ends the platform's run)."""
    try:
        if line.startswith(b"\xef\xbb\xbf"):  # json.loads's own handling of a BOM
            return json.loads(line, parse_constant=_reject_constant)
        return _DECODER.decode(line.decode("utf-8", "surrogatepass"))
    except RecursionError:
        raise ValueError("nested too deeply to decode") from None


def _how_it_ended(worker: WorkerProcess) -> str:
    """What the worker did when its stdout ended: "exited with code 3", "was killed by
    SIGKILL", or "closed its stdout" while still running."""
    code = worker.exit_code()
    if code is None:
        return "closed its stdout (still running)"
    if code < 0:
        try:
            return f"was killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"was killed by signal {-code}"
    return f"exited with code {code}"


def _excerpt(line: bytes) -> str:
    text = line.decode("utf-8", errors="replace").rstrip("\r\n")
    return repr(text if len(text) <= _LINE_EXCERPT else text[:_LINE_EXCERPT] + "...")


class _Failure:
    """The worker failed while case ``case_id`` was in flight: kill it; maybe blame the case."""

    def __init__(
        self,
        message: str,
        detail_head: str = "",
        *,
        blame: bool = True,
        group_lost: bool = False,
    ) -> None:
        self.message = message
        self.detail_head = detail_head
        self.blame = blame  # False: a platform-level problem, the case in flight is sent again
        # The worker exited, or was killed while it could not write: a group of answers
        # may have been lost with it, so the case in flight is not known.
        self.group_lost = group_lost


class _Sent:
    """The requests of one ``run`` that are sent (in order), each one's line, the
    answer line (without its newline) that means its expected output (or None), and
    the error code it carried as ``expect_error`` (or None); ``all_expect``: every
    request carried the expect extension's ``expect`` or ``expect_error``;
    ``error_turns``: the indexes of the requests that carried ``expect_error``, in
    order."""

    __slots__ = ("all_expect", "codes", "error_turns", "expected", "lines", "requests")

    def __init__(self) -> None:
        self.requests: list[Request] = []
        self.lines: list[bytes] = []
        self.expected: list[bytes | None] = []
        self.codes: list[str | None] = []
        self.error_turns: list[int] = []
        self.all_expect = True


def _error_answer(line: bytes, request_id: str, code: str) -> Response | None:
    """The response an expect-error answer line (``!"<message>"``) stands for: an
    :class:`ErrorAsExpected` with the expected code and the message; a plain error
    response when the message is not plain UTF-8 (a lone surrogate, which judging
    reports); None when the line is not that answer (it is then read as any line)."""
    message = error_acknowledged(line)
    if message is None:
        return None
    try:
        message.encode("utf-8")
    except UnicodeEncodeError:
        return {"id": request_id, "error": {"code": code, "message": message}}
    response = ErrorAsExpected()
    response["id"] = request_id
    response["error"] = {"code": code, "message": message}
    return response  # type: ignore[return-value]  # an ErrorResponse, by its keys


def _unmarked(requests: Sequence[Request], marked: list[Response | None]) -> list[Response]:
    """``run_expected``'s answers (for a prefix of ``requests``) with each ``None`` made
    the :class:`OutputAsExpected` holding its request's expected output."""
    if None not in marked:
        return marked  # type: ignore[return-value]
    return [
        OutputAsExpected(id=request["id"], output=request.expected_output)  # type: ignore[attr-defined,misc]
        if response is None
        else response
        for request, response in zip(requests, marked, strict=False)
    ]


def _group_acknowledged(
    got: Sequence[bytes | None], first: int, sent: _Sent
) -> list[Response | None] | None:
    """The responses for ``got``, lines in the turns of ``sent.requests[first:]`` (all of
    which carried ``expect`` or ``expect_error``), if every line is the acknowledgement
    its turn allows: ``=`` where ``expect`` went (None), ``!"<message>"`` where
    ``expect_error`` did (an :class:`ErrorAsExpected`). None otherwise (then the lines
    are taken one by one, ``WorkerAdapter._acknowledged``).

    Without a Python step per ``=``: the ``expect_error`` turns among these lines are
    found by bisection and each must hold an acknowledged error (a line that begins with
    ``!``, so not ``=``); then if ``=`` occurs as many times as there are other turns,
    each of those holds one.
    """
    turns = sent.error_turns
    end = first + len(got)
    low = bisect_left(turns, first)
    high = bisect_left(turns, end, low)
    if got.count(ACK) != len(got) - (high - low):
        return None
    group: list[Response | None] = [None] * len(got)
    codes, requests = sent.codes, sent.requests
    for turn in turns[low:high]:
        line = got[turn - first]
        if line is None or line[:1] != ERROR_ACK:
            return None
        acknowledged = _error_answer(line, requests[turn]["id"], codes[turn])  # type: ignore[arg-type]
        if acknowledged is None:
            return None
        group[turn - first] = acknowledged
    return group


class _Isolate:
    """The worker died or hung with answers unwritten: run the unanswered requests alone."""

    def __init__(self, message: str, detail: str) -> None:
        self.message = message
        self.detail = detail


class WorkerAdapter(BaseAdapter):
    """An :class:`adapters.protocol.Adapter` for a JSON-lines worker process.

    ``command`` is the worker's argv, or a function returning it, called at each
    spawn (it may raise PlatformUnavailable, e.g. when a runtime is missing).
    The worker inherits this process's working directory and environment, unless
    ``confined`` (the harness's own platforms): then it starts as
    ``adapters.isolation`` says (scrubbed environment, memory limit, a temporary
    folder of its own, PID and mount namespaces where the machine has them).
    ``timeout`` is the per-case time limit in seconds, counted from when the
    adapter starts waiting for that case's answer;
    ``start_timeout`` limits the handshake (default: ``max(timeout, 10.0)``).
    After ``broken_after`` consecutive worker failures (a timeout, an exit, a
    line out of sync) the platform is declared broken: ``broken`` holds the
    shared message every later case gets. ``problems`` lists platform-level
    protocol violations (stray or duplicate lines) as ``{kind, message, detail}``.

    ``answers_in_groups`` (N > 0) says the worker may hold up to N answers
    unwritten and write them together (``adapters/serve.py`` does), flushing them
    before it waits for input and while a case runs long, so a hang still leaves
    the hanging case first in line. When such a worker exits with several requests
    unanswered, the case it was running is not known: the unanswered requests (at
    most N + 1 of them) are run one at a time until one makes the worker exit
    again; that one is blamed, with its stderr, and the rest go back to batches.
    ``held_while_running`` says such a worker cannot write its group while a case
    runs (the JS worker has one thread): then a timeout leaves the hanging case
    unknown as well, and is isolated the same way.

    ``expect`` offers the worker the expect extension after the handshake (only for
    the harness's own children: ``adapters/serve.py``, ``impl_js/conformance/worker.mjs``;
    docs/protocol.md). When it takes it (``expecting``), a request that says what
    output it expects (``adapters.protocol.KnownInputText``) goes out with that text,
    and the one-byte answer ``=`` in its turn means "my output's text is exactly that":
    it becomes an :class:`OutputAsExpected` holding the expected object. Any other
    answer is read as usual; answers stay one line per request, in order, so timeouts,
    crashes and their attribution work as without it. The expect-error extension is
    offered with it (``expecting_errors``): a request whose case expects a contract
    error (``KnownInputText.expected_error``) then carries its code, and the answer
    ``!"<message>"`` in its turn means "that error, with this message": it becomes an
    :class:`ErrorAsExpected`. A worker that takes both and the tab-run extension too
    (``tab_run``) is sent such requests as tab-run lines (``adapters.messages.tab_line``),
    answered the same way.
    """

    in_process = False

    def __init__(
        self,
        name: str,
        command: Sequence[str] | Callable[[], Sequence[str]],
        *,
        timeout: float = 10.0,
        start_timeout: float | None = None,
        broken_after: int = BROKEN_AFTER,
        answers_in_groups: int = 0,
        held_while_running: bool = False,
        expect: bool = False,
        confined: bool = False,
    ) -> None:
        if timeout <= 0:
            raise ValueError(f"timeout must be positive, got {timeout!r}")
        self.name = name
        self.command = command if callable(command) else list(command)
        self.timeout = float(timeout)
        self.start_timeout = float(start_timeout) if start_timeout else max(self.timeout, 10.0)
        self.broken_after = broken_after
        self.answers_in_groups = answers_in_groups
        self.held_while_running = held_while_running
        self.expect = expect
        self.confined = confined
        self.expecting: bool | None = None  # did the worker take it (None: not started yet)
        # Did it take the expect-error extension too (None: not started yet).
        self.expecting_errors: bool | None = None
        self.tab_run: bool | None = None  # and the tab-run extension (None: not started yet)
        self.implementation: Implementation | None = None
        # The domains whose cases the harness lays out for this worker (its handshake's
        # harness_lays_out; adapters/laid.py), None until started.
        self.laid_out: frozenset[str] | None = None
        self.restarts = 0  # total restarts since start(), for reports and tests
        self.broken: str | None = None
        self.problems: list[dict[str, str]] = []
        self._consecutive_failures = 0
        self._resent: set[str] = set()  # cases sent again after a stray line (in this run)
        self._busy = False  # a batch is on the worker and not all of it is answered
        self._worker: WorkerProcess | None = None

    # -- lifecycle -------------------------------------------------------------

    def start(self) -> Implementation:
        """Spawn the worker and do the handshake; raise PlatformUnavailable if it fails."""
        if self._worker is not None and self._worker.alive() and self.implementation is not None:
            return self.implementation
        self.implementation = self._spawn()
        return self.implementation

    def stop(self) -> None:
        """Stop the worker (its whole group); at once if a batch was cut short (a signal)."""
        worker, self._worker = self._worker, None
        if worker is None:
            return
        if self._busy:
            worker.kill()
        else:
            worker.stop(STOP_LINE)
        self._busy = False

    def _spawn(self) -> Implementation:
        if self._worker is not None:
            self._worker.kill()
            self._worker = None
        try:
            argv = list(self.command()) if callable(self.command) else self.command
        except PlatformUnavailable as exc:
            exc.platform = exc.platform or self.name
            raise
        try:
            worker = WorkerProcess(argv, confined=self.confined)
        except OSError as exc:
            raise WorkerStartError(
                f"cannot run worker {argv!r}: {exc}", platform=self.name
            ) from exc
        try:
            implementation = self._handshake(worker, " ".join(argv))
            if self.expect:
                self._offer_expect(worker, " ".join(argv))
        except WorkerStartError:
            worker.kill()
            raise
        self._worker = worker
        return implementation

    def _start_error(
        self, message: str, worker: WorkerProcess, *, settle: bool = False
    ) -> WorkerStartError:
        return WorkerStartError(message, worker.stderr_text(settle=settle), platform=self.name)

    def _handshake(self, worker: WorkerProcess, command: str) -> Implementation:
        worker.send_now(START_LINE)
        try:
            line = worker.next_line(self.start_timeout)
        except queue.Empty:
            message = (
                f"worker {command!r} did not answer the start request within {self.start_timeout} s"
            )
            if self._answers_at_eof(worker):
                message += f"; {FLUSH_HINT}"
            raise self._start_error(message, worker) from None
        if line is _EOF:
            raise self._start_error(
                f"worker {command!r} {_how_it_ended(worker)} before completing the handshake",
                worker,
                settle=True,
            )
        try:
            answer = _decode(line)
        except ValueError as exc:
            raise self._start_error(
                f"worker {command!r} answered the start request with invalid JSON: "
                f"{exc}: {_excerpt(line)}",
                worker,
            ) from None
        trouble = problem("started", answer)
        if trouble is not None:
            raise self._start_error(
                f"worker {command!r} answered the start request with a message that does not "
                f"match schemas/protocol/started.json: {trouble}",
                worker,
            )
        if not answer["ok"]:
            error = answer["error"]
            raise self._start_error(
                f"worker {command!r} refused protocol version {PROTOCOL_VERSION} "
                f"({error['code']}: {error['message']}); it speaks {answer['versions']}",
                worker,
            )
        implementation = Implementation.from_json(answer["implementation"])
        try:
            laid_out = laid_domains(answer.get("harness_lays_out"), implementation.domains)
        except ValueError as exc:
            raise self._start_error(f"worker {command!r}: {exc}", worker) from None
        if self.laid_out is None:
            self.laid_out = laid_out
        elif self.laid_out != laid_out:
            raise self._start_error(
                f"worker {command!r} announced harness_lays_out "
                f"{sorted(laid_out)!r} after a restart, unlike before ({sorted(self.laid_out)!r})",
                worker,
            )
        return implementation

    def _offer_expect(self, worker: WorkerProcess, command: str) -> None:
        """Offer the expect extension; the first worker's answer holds for the adapter
        (the run lines of a batch are made once), so a restarted worker must agree."""
        worker.send_now(EXTENSIONS_LINE)
        try:
            line = worker.next_line(self.start_timeout)
        except queue.Empty:
            raise self._start_error(
                f"worker {command!r} did not answer the extensions offer within "
                f"{self.start_timeout} s",
                worker,
            ) from None
        if line is _EOF:
            raise self._start_error(
                f"worker {command!r} {_how_it_ended(worker)} after the handshake",
                worker,
                settle=True,
            )
        try:
            answer = _decode(line)
        except ValueError:
            answer = None
        # A worker that does not know the offer answers it as an unknown command.
        taken = answer.get("extensions") if type(answer) is dict and len(answer) == 1 else None
        expecting = type(taken) is list and EXPECT in taken
        # expect-error builds on expect: taken alone, it is not used.
        expecting_errors = expecting and type(taken) is list and EXPECT_ERROR in taken
        # tab-run builds on both: its lines carry what expect and expect_error would.
        tab_run = expecting_errors and type(taken) is list and TAB_RUN in taken
        if self.expecting is None:
            self.expecting, self.expecting_errors, self.tab_run = (
                expecting,
                expecting_errors,
                tab_run,
            )
        elif (self.expecting, self.expecting_errors, self.tab_run) != (
            expecting,
            expecting_errors,
            tab_run,
        ):
            raise self._start_error(
                f"worker {command!r} took the extensions {taken!r} after a restart, unlike before",
                worker,
            )

    @staticmethod
    def _answers_at_eof(worker: WorkerProcess) -> bool:
        """After a timeout: does closing stdin shake out a line the worker kept buffered?"""
        worker.close_stdin()
        try:
            return worker.next_line(_FLUSH_PROBE_S) is not _EOF
        except queue.Empty:
            return False

    # -- running ---------------------------------------------------------------

    def run(self, requests: Sequence[Request]) -> list[Response]:
        """One response per request, in order; never raises for what the worker does."""
        return _unmarked(requests, self.run_expected(requests))

    def run_expected(self, requests: Sequence[Request]) -> list[Response | None]:
        """``_run_expected`` (below), with the cases of the domains the worker asked the
        harness to lay out laid out before they are sent, finished and cleaned up after
        (adapters/laid.py)."""
        if self.laid_out is None and any(r["domain"] in LAID_DOMAINS for r in requests):
            # run() without start(): the handshake says whether to lay them out.
            with contextlib.suppress(PlatformUnavailable):  # the run path reports it
                self.start()
        laid = self.laid_out
        if not laid or not any(r["domain"] in laid for r in requests):
            return self._run_expected(requests)
        batch = LaidBatch(requests, laid)
        try:
            try:
                responses = self._run_expected(batch.requests)
            except BaseException as exc:
                answered = getattr(exc, "answered", None)
                if answered is not None:  # interrupted: what was answered, finished
                    done = [batch.finish(r) for r in answered]
                    exc.answered = [*batch.refused.values(), *done]  # type: ignore[attr-defined]
                raise
            by_id = {
                r["id"]: batch.finish(response)
                for r, response in zip(batch.requests, responses, strict=True)
            }
        finally:
            batch.close()
        return [
            batch.refused[r["id"]] if r["id"] in batch.refused else by_id[r["id"]] for r in requests
        ]

    def _run_expected(self, requests: Sequence[Request]) -> list[Response | None]:
        """``run``, except that an answer meaning "the output the request expects"
        (the expect extension's ``=``, or the expected answer line byte for byte) is
        ``None`` where ``run`` has an :class:`OutputAsExpected`: the harness's runner
        (``runners.run.batches``) makes nothing per such case. Interrupted (a signal), the
        exception's ``answered`` holds the responses so far (without marks: that path
        looks them up by id)."""
        # Per request sent, in order: its line, and the answer line that means "the
        # expected output" (adapters.protocol.KnownInputText), if any.
        sent = _Sent()
        refused: dict[str, Response] = {}
        expecting, expecting_errors = self.expecting, self.expecting_errors
        tab_run = self.tab_run
        add_request, add_line, add_match, add_code = (
            sent.requests.append,
            sent.lines.append,
            sent.expected.append,
            sent.codes.append,
        )
        for request in requests:
            if tab_run:
                tabbed = tab_line(request)
                if tabbed is not None:
                    code = request.expected_error  # type: ignore[attr-defined]
                    if request.expected_output_json is not None:  # type: ignore[attr-defined]
                        code = None
                        add_match(ACK)
                    elif type(code) is str:
                        sent.error_turns.append(len(sent.requests))
                        add_match(None)
                    else:
                        code = None
                        add_match(None)
                        sent.all_expect = False
                    add_request(request)
                    add_line(tabbed)
                    add_code(code)
                    continue
            if expecting:
                with_expect = expect_line(request)
                if with_expect is not None:
                    add_request(request)
                    add_line(with_expect)
                    add_match(ACK)
                    add_code(None)
                    continue
                if expecting_errors:
                    with_code = expect_error_line(request)
                    if with_code is not None:
                        sent.error_turns.append(len(sent.requests))
                        add_request(request)
                        add_line(with_code)
                        add_match(None)
                        add_code(request.expected_error)  # type: ignore[attr-defined]
                        continue
                sent.all_expect = False
            try:
                line = encode_request(request)
            except BadRequest as exc:
                refused[request["id"]] = crash(request["id"], f"harness bug: {exc}")
                continue
            add_request(request)
            add_line(line)
            add_match(expected_answer(request))
            add_code(None)
        sent.all_expect = sent.all_expect and bool(expecting)
        self._resent = set()
        responses: list[Response | None] = []
        try:
            self._run_sendable(sent, responses)
        except BaseException as exc:
            # Interrupted (a signal): hand over what was answered, so it is not lost.
            answered = _unmarked(sent.requests, responses)
            exc.answered = [*refused.values(), *answered]  # type: ignore[attr-defined]
            raise
        if not refused:
            return responses  # one per request, in order (_run_sendable's contract)
        by_id = dict(zip((r["id"] for r in sent.requests), responses, strict=False))
        return [refused[r["id"]] if r["id"] in refused else by_id[r["id"]] for r in requests]

    def _run_sendable(self, sent: _Sent, responses: list[Response | None]) -> None:
        """Append one response per request to ``responses``, in order (None: the
        output the request expects, as ``run_expected`` has it)."""
        requests = sent.requests
        failed_case: str | None = None
        alone_until = 0  # requests before this index run one at a time (after a lost group)
        lost: _Isolate | None = None
        while len(responses) < len(requests):
            if lost is not None and len(responses) >= alone_until:
                self._unexplained(lost)
                lost = None
            alone = lost is not None
            todo = requests[len(responses) : len(responses) + 1 if alone else None]
            if self.broken is not None:
                responses.extend(crash(r["id"], self.broken) for r in todo)
                break
            if failed_case is not None and case_of(todo[0]["id"]) == failed_case:
                # Another variant of the case that just hung or killed the worker: the
                # case is already an error, so it is not run again (one timeout, not one
                # per chunking).
                message = f"not run: an earlier variant of {failed_case} failed"
                responses.append(crash(todo[0]["id"], message))
                continue

            if self._worker is not None and self._worker.alive():
                self._check_idle_output(self._worker)
            if self._worker is None or not self._worker.alive():
                first = self.implementation is None  # run() without start(): not a restart
                try:
                    self.implementation = self._spawn()
                except PlatformUnavailable as exc:
                    message = (
                        exc.message if first else f"worker could not be restarted: {exc.message}"
                    )
                    self.broken = f"{self.name} is broken: {message}"
                    responses.extend(crash(r["id"], message, exc.detail) for r in todo[:1])
                    continue
                if not first:
                    self.restarts += 1
            blamed = self._run_on_worker(todo, sent, responses)
            if isinstance(blamed, _Isolate):
                lost, alone_until = blamed, len(responses) + self.answers_in_groups + 1
            elif blamed is not None:
                failed_case = case_of(blamed)
                lost = None  # found (or a new failure): back to batches
        if lost is not None and self.broken is None:
            self._unexplained(lost)

    def _unexplained(self, lost: _Isolate) -> None:
        """Every request a dead worker left unanswered ran alone, and none killed it."""
        self._problem(
            "lost-group",
            f"{lost.message}; run alone, none of the unanswered cases did it again",
            lost.detail,
        )

    def _failed(self, message: str) -> None:
        self._consecutive_failures += 1
        if self._consecutive_failures >= self.broken_after:
            self.broken = (
                f"{self.name} declared broken after {self._consecutive_failures} consecutive "
                "worker failures (timeouts, exits or protocol errors); its remaining cases were "
                f"not run. Last failure: {message}"
            )

    def _problem(self, kind: str, message: str, detail: str) -> None:
        self.problems.append({"kind": kind, "message": message, "detail": detail})

    def _check_idle_output(self, worker: WorkerProcess) -> None:
        """Lines written since the last batch was answered are stray: record, restart."""
        pending = worker.pending_lines()
        stray = [line for line in pending if line is not _EOF]
        if stray:
            self._problem(
                "stray-line",
                f"worker wrote {len(stray)} line(s) after its last answer (a duplicate or "
                "stray answer); it was restarted",
                "\n".join(_excerpt(line) for line in stray[:5]),
            )
            worker.kill()
            self._worker = None
            self._failed("stray line between batches")
        elif pending:  # EOF while idle: the worker died between batches
            worker.kill()
            self._worker = None

    def _run_on_worker(
        self, requests: Sequence[Request], sent: _Sent, responses: list[Response | None]
    ) -> str | _Isolate | None:
        """Append answers for a prefix of ``requests``: all of them, or up to the first failure.

        Returns the id of the case blamed for a failure, if one was, or ``_Isolate``
        when a worker that answers in groups died (or hung, see ``held_while_running``)
        with later requests unanswered.

        A failure (EOF, timeout, garbage, wrong id) kills the worker; the caller restarts
        it. The case in flight gets a crash response, unless the failure was a stray or
        duplicate line (a platform problem): then the case is sent again.
        """
        worker = self._worker
        assert worker is not None
        self._busy = True
        start = len(responses)  # requests[i] is sent.requests[start + i]
        worker.send(sent.lines[start : start + len(requests)])
        expected = sent.expected
        timeout = self.timeout
        ready = worker.ready
        answer = responses.append
        matched = False  # an answer matched its expectation (a good answer) in this loop
        matches = expected[start : start + len(requests)]
        codes = sent.codes[start : start + len(requests)]
        count = len(requests)
        # Every request carried the expect extension's "expect" (or "expect_error"): a
        # list of lines as the reader brought them that are all "=" answers as many
        # requests at once, or "=" and "!" answers each in a request's turn that
        # expects it, without the line-by-line loop below.
        in_bulk = sent.all_expect
        index = 0
        while index < count:
            line: bytes | _TimedOut | None
            if ready:  # lines already read: no wait (the usual case within a batch)
                line = ready.popleft()
            else:
                try:
                    got = worker.lines.get(timeout=timeout)
                except queue.Empty:
                    line = _TIMED_OUT
                else:
                    if in_bulk and len(got) <= count - index:
                        if got.count(ACK) == len(got):
                            # "=" in each of these requests' turns (each carried "expect").
                            matched = True
                            responses += [None] * len(got)
                            index += len(got)
                            continue
                        group = _group_acknowledged(got, start + index, sent)
                        if group is not None:
                            matched = True
                            responses += group
                            index += len(got)
                            continue
                        taken = self._acknowledged(got, index, matches, codes, requests, answer)
                        if taken:
                            matched = True
                            index += taken
                            if taken == len(got):
                                continue
                            got = got[taken:]
                    ready.extend(got)
                    line = ready.popleft()
            match = matches[index]
            if match is not None and line == match:
                # Byte for byte {"id": <its id>, "output": <the expected output's text>},
                # or the expect extension's "=" (the worker compared the same texts).
                matched = True
                answer(None)
                index += 1
                continue
            request = requests[index]
            code = codes[index]
            if code is not None and line[:1] == ERROR_ACK:  # type: ignore[index]
                # The expect-error extension's "!<message>": the expected code.
                acknowledged = _error_answer(line, request["id"], code)  # type: ignore[arg-type]
                if acknowledged is not None:
                    matched = True
                    answer(acknowledged)
                    index += 1
                    continue
            if matched:  # good answers before this one reset the count of failures
                self._consecutive_failures = 0
                matched = False
            case_id = request["id"]
            outcome = self._next_response(worker, line, case_id, index, requests)
            if isinstance(outcome, _Failure):
                worker.kill()
                self._worker = None
                self._busy = False
                if outcome.group_lost and self.answers_in_groups and index < len(requests) - 1:
                    # The answers for the case in flight and a few after it may have died
                    # unwritten with the worker: which case killed (or hung) it is not known
                    # yet (the runs alone will tell, and count toward ``broken_after``).
                    return _Isolate(outcome.message, self._detail(worker, outcome.detail_head))
                self._failed(outcome.message)
                if outcome.blame:
                    detail = self._detail(worker, outcome.detail_head)
                    responses.append(crash(case_id, outcome.message, detail))
                    return case_id
                self._problem("stray-line", outcome.message, outcome.detail_head)
                return None
            self._consecutive_failures = 0
            responses.append(outcome)
            index += 1
        if matched:
            self._consecutive_failures = 0
        self._busy = False
        return None

    @staticmethod
    def _acknowledged(
        got: Sequence[bytes | None],
        index: int,
        matches: Sequence[bytes | None],
        codes: Sequence[str | None],
        requests: Sequence[Request],
        answer: Callable[[Response | None], None],
    ) -> int:
        """How many of ``got`` (lines in the turns of ``requests[index:]``) are the
        extensions' acknowledgements, each in the turn of a request that carried what
        it acknowledges, counted from the first; their responses are passed to
        ``answer`` (None for "=")."""
        taken = 0
        for line in got:
            turn = index + taken
            if line == matches[turn]:  # "=" where "expect" went (None never equals a line)
                answer(None)
            else:
                code = codes[turn]
                if code is None or line is None or line[:1] != ERROR_ACK:
                    break
                acknowledged = _error_answer(line, requests[turn]["id"], code)
                if acknowledged is None:
                    break
                answer(acknowledged)
            taken += 1
        return taken

    def _next_response(
        self,
        worker: WorkerProcess,
        line: bytes | _TimedOut | None,
        case_id: str,
        index: int,
        requests: Sequence[Request],
    ) -> Response | _Failure:
        """The response for ``case_id`` from ``line`` (the worker's next), or what went wrong."""
        if isinstance(line, _TimedOut):
            message = f"no response within {self.timeout} s for case {case_id}"
            if not worker.alive():  # its stdout is still open: a child it left holds it
                message += f" (the worker {_how_it_ended(worker)}, but a child holds its stdout)"
            elif self._answers_at_eof(worker):
                message += f"; {FLUSH_HINT}"
            return _Failure(message, "worker killed", group_lost=self.held_while_running)
        if line is _EOF:
            # Spelled as runners/judge/clusters.py reads it
            # (its cause: exit N, signal, closed stdout).
            code = worker.exit_code()
            return _Failure(
                f"worker exited with code {code} while running case {case_id}", group_lost=True
            )
        if type(line) is LineTooLong:
            return _Failure(
                f"worker wrote a line of {line.size:,} bytes while running case {case_id} "
                f"(the limit is {LINE_LIMIT:,})"
            )
        try:
            answer = _decode(line)
        except ValueError as exc:
            return _Failure(
                f"worker wrote invalid JSON while running case {case_id}: {exc}: {_excerpt(line)}"
            )
        got = answer.get("id") if isinstance(answer, dict) else None
        if got != case_id:
            batch_ids = {r["id"]: i for i, r in enumerate(requests)}  # out of turn: rare
            shown = got if isinstance(got, str) else json.dumps(got)
            later = isinstance(got, str) and batch_ids.get(got, -1) > index
            if later:
                return _Failure(
                    f"expected response for id {case_id}, got {shown} (answers must come in "
                    "request order)",
                    _excerpt(line),
                )
            if case_id in self._resent:  # it happened to this case before: its own answer
                return _Failure(f"expected response for id {case_id}, got {shown}", _excerpt(line))
            # An id already answered, or one never asked for: the line is stray, not case_id's.
            self._resent.add(case_id)
            kind = "duplicate" if isinstance(got, str) and got in batch_ids else "stray"
            return _Failure(
                f"worker wrote a {kind} answer for id {shown} while case {case_id} was running; "
                "it was restarted and the case sent again",
                _excerpt(line),
                blame=False,
            )
        trouble = problem("response", answer)
        if trouble is not None:
            # In sync (right id), so no restart: just this case is broken.
            return crash(
                case_id,
                f"worker response for case {case_id} does not match the protocol: {trouble}",
                _excerpt(line),
            )
        response: Response = answer
        return response

    @staticmethod
    def _detail(worker: WorkerProcess, head: str) -> str:
        code = worker.proc.returncode
        parts = [head] if head else []
        parts.append(f"exit status: {code}")
        stderr = worker.stderr_text(settle=True)
        parts.append("--- worker stderr ---\n" + (stderr if stderr else "(empty)"))
        return "\n".join(parts)
