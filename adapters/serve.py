"""``python -m adapters.serve PLATFORM``: an in-process platform behind the worker protocol.

The ``python`` and ``rust`` platforms run their implementations inside the
harness's interpreter, where an endless loop hangs the run and an abort (a
``panic = "abort"`` build, a segfault, ``os._exit``) ends it. Served from this
child process instead (``adapters/served.py``), they get what every worker gets:
a per-case timeout, crash isolation with stderr, restarts (docs/protocol.md).

PLATFORM is ``python``, ``rust`` or ``module:factory`` (any in-process
:class:`adapters.protocol.Adapter`, e.g. a test double). Requests are answered
one at a time, in order, and the answers are written in groups (one ``write``
for many answers: one wake-up of the harness's reader instead of one per case).
A group is written when no further request is waiting, when it holds
``MAX_GROUP`` answers, or when its oldest answer is ``FLUSH_AFTER_S`` old: the
last also by a thread while a case runs (an endless loop in Python or in the
Rust extension, which releases the GIL), so a case that hangs is always the
first unanswered one and the one blamed. A case that kills the process takes
the unwritten answers of its group along: the harness (``WorkerAdapter`` with
``answers_in_groups``) then runs the unanswered cases alone until the one that
kills it is found, and blames exactly that one (bench/README.md, "Harness overhead").

Every adapter's ``run_lines`` (``adapters.protocol.Adapter``) is handed the lines of a
read a slice at a time, as the harness wrote them, and hands each answer line over as
soon as it has it (so the thread can write it while a later case of the slice runs
long): the child makes no Python object per case. A line it declines (the default
``BaseAdapter.run_lines`` declines every line) goes down the ordinary path (decode,
``run``, encode), which reports whatever made the fast path decline it. ``python``'s
takes whole slices; ``rust``'s is the extension's ``run_line``, one line at a time.

The child speaks the ``expect`` extension (docs/protocol.md, "The expect and expect-error
extensions"):
once the harness has offered it after the handshake, a ``run`` line may carry
``"expect": "<the expected output's compact JSON text>"``, and an answer whose output
text is exactly that string is written as the one-byte line ``ACK`` instead of the
whole answer. ``run_line`` adapters compare on their side (``PythonAdapter.run_line``
in Python, the Rust extension's ``run_line`` in Rust); the ordinary path compares here.
It takes ``expect-error`` too when the adapter's ``run_line`` speaks it
(``run_line_extensions``: python and rust) or the adapter has none: a line with
``"expect_error": "<code>"`` whose contract error has that code is answered
``!"<message>"`` (``ERROR_ACK``) instead of the whole error. It takes ``tab-run`` as
well on the same terms: a case's request may then come as one tab-separated line,
``<id> TAB <domain> TAB <expectation> TAB <input JSON>`` (docs/protocol.md), answered as
the ``run`` line with that ``expect`` or ``expect_error`` would be (``tab_request``).
"""

from __future__ import annotations

import contextlib
import faulthandler
import importlib
import json
import os
import select
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import IO, Any

from .answers import answer_line, encode
from .protocol import (
    ABSENT,
    EXPECT,
    EXPECT_ERROR,
    PROTOCOL_VERSION,
    TAB_EXPECT,
    TAB_EXPECT_ERROR,
    TAB_RUN,
    Adapter,
    PlatformUnavailable,
    crash,
)

IN_PROCESS_FACTORIES = {"python": "adapters.python:create", "rust": "adapters.rust:create"}
MAX_GROUP = 256
"""At most this many answers are held unwritten (the harness's isolation window)."""
FLUSH_AFTER_S = 0.002
"""No answer waits longer than this (plus a scheduling delay) to be written."""
SLICE = 32
"""The fast path is handed at most this many lines between two checks of the group's
size and age (a few hundred microseconds of cases at most: the child, not the thread,
usually writes a group that is due)."""


def load_adapter(spec: str) -> Adapter:
    """The in-process adapter for ``python``, ``rust`` or ``module:factory``."""
    module, sep, attr = IN_PROCESS_FACTORIES.get(spec, spec).partition(":")
    if not sep:
        raise SystemExit(
            f"adapters.serve: unknown platform {spec!r} (python, rust or module:factory)"
        )
    factory: Callable[[], Adapter] = getattr(importlib.import_module(module), attr)
    return factory()


_DECODER = json.JSONDecoder()


def taken_extensions(adapter: Adapter, offered: Any) -> list[str]:
    """The extensions this child takes of those the harness offers, for ``adapter``."""
    if not isinstance(offered, list) or EXPECT not in offered:
        return []
    taken = [EXPECT]
    speaks = adapter.run_line_extensions
    if EXPECT_ERROR in offered and EXPECT_ERROR in speaks:
        taken.append(EXPECT_ERROR)
        if TAB_RUN in offered and TAB_RUN in speaks:
            taken.append(TAB_RUN)
    return taken


def tab_request(line: bytes) -> dict[str, Any]:
    """The ``run`` message a tab-run line stands for (with ``expect`` or ``expect_error``
    when its expectation says so); a ``crash`` response (its ``crash`` key) for a line
    that is not four fields, not UTF-8, or whose input is not JSON."""
    fields = line.split(b"\t")
    request_id = fields[0].decode("utf-8", "replace") if len(fields) == 4 else ""
    try:
        if len(fields) != 4:
            raise ValueError(f"{len(fields)} tab-separated fields, not 4")
        domain, expectation, input_text = (f.decode("utf-8") for f in fields[1:])
        case_input = _DECODER.decode(input_text)
    except ValueError as exc:
        return dict(crash(request_id, f"tab-run line not taken apart: {exc}"))
    request = {"cmd": "run", "id": request_id, "domain": domain, "input": case_input}
    if expectation[:1] == TAB_EXPECT:
        request["expect"] = expectation[1:]
    elif expectation[:1] == TAB_EXPECT_ERROR:
        request["expect_error"] = expectation[1:]
    return request


def _write(out: IO[bytes], line: bytes) -> None:
    out.write(line)
    out.flush()


class _Answers:
    """Answers waiting to be written as one group, and the thread that writes them when
    the oldest has waited FLUSH_AFTER_S (while a long or endless case runs).

    ``pending`` is appended to without a lock, one answer per case (``list.append`` is
    atomic under the GIL): a lock per answer cost more than the answer's own bookkeeping.
    Whoever writes takes the lock and writes the answers pending at that moment, then
    deletes just those (``del pending[:n]``, atomic too), so an answer appended meanwhile
    waits for the next group; the list itself is never replaced, since the serving loop
    holds its ``append``. As answers carry no time, the age is that of the last write:
    while the child is busy (it has read requests and not yet gone back to wait), no
    pending answer is older than ``_written_at``.
    """

    def __init__(self, out: IO[bytes]) -> None:
        self.pending: list[bytes] = []
        self._out = out
        self._written_at = 0.0  # while busy: no pending answer is older than this
        self._busy = False  # requests were read and the child has not waited for input since
        self._closed = False
        # A plain lock (not reentered), entered directly: a Condition's own __enter__
        # is a Python call.
        self._lock = threading.Lock()
        self._ready = threading.Condition(self._lock)
        self._thread = threading.Thread(target=self._write_late_groups, daemon=True)
        self._thread.start()

    def add(self, line: bytes) -> None:
        self.pending.append(line)

    def room(self) -> int:
        """How many more answers the group takes before the next check (``write_if_due``):
        at most SLICE, so that the child, not the thread, writes a group that is due."""
        return min(SLICE, MAX_GROUP - len(self.pending))

    def busy(self) -> None:
        """Requests were read: from now on the thread writes any group that waits too long."""
        if not self._busy:
            with self._lock:
                self._busy = True
                self._written_at = time.monotonic()  # nothing is pending: none is older
                self._ready.notify()

    def write_if_due(self) -> None:
        """Write the group if it is full or its oldest answer may have waited FLUSH_AFTER_S."""
        if len(self.pending) >= MAX_GROUP or time.monotonic() - self._written_at >= FLUSH_AFTER_S:
            with self._lock:
                self._write_locked()

    def write_now(self, line: bytes = b"") -> None:
        """Write the pending group (and ``line`` after it) at once."""
        with self._lock:
            if line:
                self.pending.append(line)
            self._write_locked()

    def idle(self) -> None:
        """Write the pending group: the child is about to wait for input."""
        with self._lock:
            self._write_locked()
            self._busy = False

    def close(self) -> None:
        with self._lock:
            self._write_locked()
            self._closed = True
            self._ready.notify()

    def _write_locked(self) -> None:
        now = time.monotonic()  # before the count: any answer left was added after it
        pending = self.pending
        count = len(pending)
        if count:
            _write(self._out, b"".join(pending[:count]))
            del pending[:count]
        self._written_at = now

    def _write_late_groups(self) -> None:
        while True:
            with self._ready:
                while not self._busy and not self._closed:
                    self._ready.wait()
                if self._closed:
                    return
                due = self._written_at + FLUSH_AFTER_S
            time.sleep(max(due - time.monotonic(), 0.0))
            with self._ready:
                # Unless the child wrote meanwhile (then the next due time is later).
                if self._busy and time.monotonic() - self._written_at >= FLUSH_AFTER_S:
                    self._write_locked()


def _chunks(stdin: IO[bytes], answers: _Answers) -> Iterator[list[bytes]]:
    """The complete request lines of each read, as they arrive (without their newlines);
    before waiting for more input, the answers so far are written (the harness may be
    waiting for them)."""
    fd = stdin.fileno()
    partial = b""
    while True:
        if not select.select([fd], [], [], 0)[0]:
            answers.idle()
            _reap_orphans()
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            if partial:
                answers.busy()
                yield [partial]
            return
        *complete, partial = (partial + chunk).split(b"\n")
        if complete:
            answers.busy()
            yield complete


def _reap_orphans() -> None:
    """As a PID namespace's init (adapters/isolation.py), collect the exit of every
    orphan a hook left (it is reparented here): with no case running, no child is
    anybody else's to wait for."""
    if os.getpid() != 1:
        return
    with contextlib.suppress(ChildProcessError):
        while os.waitpid(-1, os.WNOHANG)[0] > 0:
            pass


def _handshake_answer(answers: _Answers, message: dict[str, Any]) -> None:
    answers.write_now(json.dumps(message).encode("utf-8") + b"\n")


def serve(adapter: Adapter, stdin: IO[bytes], stdout: IO[bytes]) -> int:
    """Answer the protocol on the given streams until ``stop`` or end of file."""
    implementation = adapter.start()
    answers = _Answers(stdout)
    try:
        _serve(adapter, implementation, _chunks(stdin, answers), answers)
    finally:
        answers.close()
    adapter.stop()
    return 0


class _Session:
    """What the ordinary path has agreed with the harness so far."""

    def __init__(self) -> None:
        self.started = False
        self.expecting = False  # the harness took the expect extension
        self.expecting_errors = False  # and the expect-error extension
        self.tab_run = False  # and the tab-run extension


def _serve(
    adapter: Adapter, implementation: Any, chunks: Iterator[list[bytes]], answers: _Answers
) -> None:
    session = _Session()
    answer = answers.pending.append
    for lines in chunks:
        run_lines = adapter.run_lines  # bound at start() by some adapters (rust)
        index, count = 0, len(lines)
        while index < count:
            # As many lines as the fast path takes, a few at a time (the group's checks
            # come between), until one it declines.
            if session.started:
                taken = run_lines(lines, index, min(count, index + answers.room()), answer)
                if taken > index:
                    index = taken
                    answers.write_if_due()
                    continue
            if not _answer_ordinarily(adapter, implementation, session, lines[index], answers):
                return  # stop
            index += 1
            answers.write_if_due()


def _answer_ordinarily(
    adapter: Adapter, implementation: Any, session: _Session, line: bytes, answers: _Answers
) -> bool:
    """Decode one request line and answer it; False for ``stop``."""
    if session.tab_run and not line.startswith(b"{"):
        request = tab_request(line)
        if "crash" in request:
            answers.add(encode(request))  # type: ignore[arg-type]
            return True
    else:
        try:
            request = _DECODER.decode(line.decode("utf-8", "surrogatepass"))
        except ValueError as exc:
            answers.add(encode(crash("", f"request is not JSON: {exc}")))
            return True
    command = request.get("cmd") if isinstance(request, dict) else None
    if command == "stop":
        return False
    if not session.started:
        if command != "start" or request.get("version") != PROTOCOL_VERSION:
            code = "unsupported_version" if command == "start" else "bad_request"
            error = {
                "code": code,
                "message": f"this worker speaks protocol {PROTOCOL_VERSION} only",
            }
            _handshake_answer(
                answers, {"ok": False, "error": error, "versions": [PROTOCOL_VERSION]}
            )
            return True
        session.started = True
        info = {
            "name": implementation.name,
            "version": implementation.version,
            "language": implementation.language,
            "domains": sorted(implementation.domains),
        }
        absent = getattr(implementation, "absent", None)
        if absent:  # the fields it lacks, per domain, as an in-process platform declares them
            info[ABSENT] = {domain: list(fields) for domain, fields in sorted(absent.items())}
        _handshake_answer(answers, {"ok": True, "implementation": info})
        return True
    if command == "extensions":
        taken = taken_extensions(adapter, request.get("use"))
        session.expecting, session.expecting_errors = EXPECT in taken, EXPECT_ERROR in taken
        session.tab_run = TAB_RUN in taken
        answers.write_now(json.dumps({"extensions": taken}).encode("utf-8") + b"\n")
        return True
    if command != "run":
        answers.add(encode(crash(str(request.get("id", "")), f"unknown command {command!r}")))
        return True
    [response] = adapter.run(
        [{"id": request["id"], "domain": request["domain"], "input": request["input"]}]
    )
    answers.add(
        answer_line(
            response,
            request.get("expect") if session.expecting else None,
            request.get("expect_error") if session.expecting_errors else None,
        )
    )
    return True


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m adapters.serve python|rust|module:factory", file=sys.stderr)
        return 2
    # An abort or a segfault (in an extension, say) leaves a Python traceback on stderr,
    # which the harness attaches to the case that caused it.
    faulthandler.enable()
    # The protocol owns file descriptor 1; anything the implementation prints goes to stderr.
    protocol_out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    adapter = load_adapter(args[0])
    try:
        return serve(adapter, sys.stdin.buffer, protocol_out)
    except PlatformUnavailable as exc:
        print(str(exc), file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
