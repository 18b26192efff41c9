"""A worker's process: spawn it in a session of its own, feed its stdin, read its stdout
lines and its stderr, kill its whole process group. Knows no protocol (what the lines
mean, when to restart: ``adapters.worker``).

Each worker runs in its own session (process group), and every kill is a kill of the
whole group, so a wrapper (``sh -c``, ``npm run``, ``go run``) cannot leave its child
behind. Threads per running worker: one reads stdout lines into a queue (the caller
waits on the queue with a timeout, which is how hangs are detected), one drains stderr
into a bounded buffer, and, while lines are being sent, one writes them (so a batch
larger than the pipe buffers cannot deadlock). Shutting a worker down never waits on
those threads for long: a pipe still held by a process that escaped the group is
abandoned to its (daemon) thread.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import queue
import signal
import subprocess
import threading
import weakref
from collections import deque
from collections.abc import Sequence
from typing import IO

from .isolation import WorkerTemp, confined_launch

__all__ = ["EOF", "LINE_LIMIT", "LineTooLong", "WorkerProcess"]

STDERR_LIMIT = 64 * 1024
"""The most recent stderr kept, in bytes."""
_STOP_GRACE_S = 2.0
_EXIT_GRACE_S = 1.0
EOF = None
"""What ``next_line`` returns once stdout is closed."""
_READ_SIZE = 1 << 16
LINE_LIMIT = 64 * 1024 * 1024
"""The longest stdout line kept, in bytes; a longer one is read past and stands as a
``LineTooLong`` (so one endless line costs neither memory nor the lines after it)."""


class LineTooLong(bytes):
    """A stdout line longer than ``LINE_LIMIT``, in its turn: its bytes were not kept
    (it is a line of its own, NUL, never valid protocol), ``size`` says how many there were."""

    size: int

    def __new__(cls, size: int) -> LineTooLong:
        made = super().__new__(cls, b"\0")
        made.size = size
        return made


# Every live worker, so that the harness's exit kills whatever is still running.
_live: weakref.WeakSet[WorkerProcess] = weakref.WeakSet()


def _kill_live_workers() -> None:
    for worker in list(_live):
        worker.kill_group()
        if worker.temp is not None:
            worker.temp.remove()


atexit.register(_kill_live_workers)


def _close(stream: IO[bytes] | None) -> None:
    if stream is not None:
        with contextlib.suppress(OSError, ValueError):
            stream.close()


def _line(held: list[bytes], last: bytes, size: int) -> bytes:
    return b"".join([*held, last]) if size <= LINE_LIMIT else LineTooLong(size)


class WorkerProcess:
    """One spawned worker process (a session of its own) with its stdout queue and stderr buffer."""

    def __init__(self, command: Sequence[str], *, confined: bool = False):
        # confined: one of the harness's own platforms, started as adapters.isolation
        # says (scrubbed environment, memory limit, its own temporary folder, namespaces).
        argv = list(command)
        env: dict[str, str] | None = None
        self.temp: WorkerTemp | None = None
        if confined:
            argv, env, self.temp = confined_launch(argv)
        # start_new_session: the worker leads a new process group, so killpg reaches
        # every process it starts (unless one starts a session of its own).
        try:
            self.proc = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
                env=env,
            )
        except BaseException:
            if self.temp is not None:
                self.temp.remove()
            raise
        self.pgid = self.proc.pid
        # The reader thread queues lists of lines (all those one read brought), so a
        # worker that writes many answers at once costs one queue hand-over, not one
        # per answer; ``ready`` holds lines taken off the queue and not yet asked for.
        self.lines: queue.Queue[Sequence[bytes | None]] = queue.Queue()
        self.ready: deque[bytes | None] = deque()
        self._stderr: deque[bytes] = deque()
        self._stderr_size = 0
        self._stderr_lock = threading.Lock()
        self._reader = threading.Thread(target=self._read_stdout, daemon=True)
        self._drainer = threading.Thread(target=self._drain_stderr, daemon=True)
        self._reader.start()
        self._drainer.start()
        self._writer: threading.Thread | None = None
        self._stdin_closed = False
        _live.add(self)

    def _read_stdout(self) -> None:
        stdout = self.proc.stdout
        assert stdout is not None
        # The line under way: its pieces (dropped once past LINE_LIMIT) and its length.
        held: list[bytes] = []
        size = 0
        try:
            fd = stdout.fileno()
            while chunk := os.read(fd, _READ_SIZE):
                if b"\n" not in chunk:
                    size += len(chunk)
                    if size <= LINE_LIMIT:
                        held.append(chunk)
                    else:
                        held.clear()
                    continue
                *complete, tail = chunk.split(b"\n")  # lines without their newline
                if size:
                    complete[0] = _line(held, complete[0], size + len(complete[0]))
                self.lines.put(complete)  # every other piece is within one read: short
                held, size = [tail], len(tail)
        except (OSError, ValueError):
            pass
        finally:
            # A last line without its newline is still a line (as file iteration has it).
            self.lines.put([_line(held, b"", size), EOF] if size else [EOF])
            _close(stdout)  # only this thread reads it; closed here, nobody waits on it

    def _drain_stderr(self) -> None:
        stderr = self.proc.stderr
        assert stderr is not None
        try:
            while chunk := os.read(stderr.fileno(), 8192):
                with self._stderr_lock:
                    self._stderr.append(chunk)
                    self._stderr_size += len(chunk)
                    while self._stderr_size > STDERR_LIMIT and len(self._stderr) > 1:
                        self._stderr_size -= len(self._stderr.popleft())
        except (OSError, ValueError):
            pass
        finally:
            _close(stderr)

    def stderr_text(self, *, settle: bool = False) -> str:
        """The most recent stderr (at most 64 KiB).

        ``settle`` first waits briefly for a dead worker's last words.
        """
        if settle:
            self._drainer.join(timeout=_EXIT_GRACE_S)
        with self._stderr_lock:
            data = b"".join(self._stderr)
        if len(data) > STDERR_LIMIT:
            data = b"[...]" + data[-STDERR_LIMIT:]
        return data.decode("utf-8", errors="replace")

    def writing(self) -> bool:
        return self._writer is not None and self._writer.is_alive()

    def send(self, lines: Sequence[bytes]) -> None:
        """Write ``lines`` on a background thread; a dead worker just ends the writing."""
        stdin = self.proc.stdin
        assert stdin is not None
        if self._writer is not None:
            self._writer.join()  # the previous batch's writer is done once it was answered

        def write() -> None:
            try:
                stdin.write(b"".join(lines))  # one call: the thread holds the GIL less often
                stdin.flush()
            except (OSError, ValueError):
                pass  # the worker died or was killed; the reader reports it

        self._writer = threading.Thread(target=write, daemon=True)
        self._writer.start()

    def send_now(self, line: bytes) -> bool:
        """Write one short line unless that could block; False if it was not written."""
        stdin = self.proc.stdin
        if stdin is None or self._stdin_closed or self.writing():
            return False
        try:
            stdin.flush()
            fd = stdin.fileno()
            os.set_blocking(fd, False)
            try:
                return os.write(fd, line) == len(line)
            finally:
                os.set_blocking(fd, True)
        except (OSError, ValueError):
            return False

    def close_stdin(self) -> None:
        """End of file for the worker, unless a writer thread holds stdin (closing would wait)."""
        if not self._stdin_closed and not self.writing():
            self._stdin_closed = True
            _close(self.proc.stdin)

    def next_line(self, timeout: float) -> bytes | None:
        """The next stdout line; None at EOF; raises queue.Empty after ``timeout`` seconds."""
        if not self.ready:
            self.ready.extend(self.lines.get(timeout=timeout))
        return self.ready.popleft()

    def pending_lines(self) -> list[bytes | None]:
        """Whatever the reader has queued and nobody has read (without waiting)."""
        found: list[bytes | None] = list(self.ready)
        self.ready.clear()
        with contextlib.suppress(queue.Empty):
            while True:
                found.extend(self.lines.get_nowait())
        return found

    def alive(self) -> bool:
        return self.proc.poll() is None

    def exit_code(self, wait: float = _EXIT_GRACE_S) -> int | None:
        try:
            return self.proc.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            return None

    def kill_group(self) -> None:
        """SIGKILL to every process of the worker's group (the worker, a wrapper's children),
        and to the groups its descendants made (a hook or a wrapped worker in a session of
        its own would otherwise outlive it, orphaned)."""
        groups = _descendant_groups(self.proc.pid) if self.alive() else set()
        groups.discard(os.getpgrp())
        for pgid in (self.pgid, *groups):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pgid, signal.SIGKILL)

    def kill(self) -> None:
        """Kill the whole group and release the pipes without ever blocking for long."""
        self.kill_group()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=_EXIT_GRACE_S)
        _live.discard(self)
        # A process that left the group may still hold the pipes: wait only briefly. The
        # reader threads close their own streams at end of file; stdin is closed here
        # once no writer thread holds it (closing would wait for that thread).
        for thread in (self._writer, self._reader, self._drainer):
            if thread is not None:
                thread.join(timeout=_EXIT_GRACE_S)
        if not self._stdin_closed and not self.writing():
            self._stdin_closed = True
            _close(self.proc.stdin)
        if self.temp is not None:  # the case roots a timeout or a crash left
            self.temp.remove()

    def stop(self, goodbye: bytes) -> None:
        """Polite stop (write ``goodbye``, close stdin, short wait), then kill the group."""
        if self.proc.poll() is None and self.send_now(goodbye):
            self.close_stdin()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(timeout=_STOP_GRACE_S)
        self.kill()


def _descendant_groups(pid: int) -> set[int]:
    """The process groups of ``pid``'s descendants, from /proc (empty where there is none).

    Read before the kill: once ``pid`` dies its children are reparented and the link is gone.
    """
    try:
        names = os.listdir("/proc")
    except OSError:
        return set()
    children: dict[int, list[int]] = {}
    group_of: dict[int, int] = {}
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as stat:
                line = stat.read()
        except OSError:
            continue  # ended meanwhile
        # After the command name (which may hold spaces and parentheses): state, ppid, pgrp.
        fields = line[line.rfind(b")") + 2 :].split()
        child = int(name)
        children.setdefault(int(fields[1]), []).append(child)
        group_of[child] = int(fields[2])
    groups: set[int] = set()
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(), ()):
            groups.add(group_of[child])
            todo.append(child)
    return groups
