"""A platform in another process: the JSON-lines worker protocol (docs/protocol.md).

``WorkerAdapter`` drives any worker executable through stdin/stdout. It survives
the worker: a worker that exits, hangs, writes garbage or answers out of turn
costs one ``crash`` response (for the case in flight) and a restart, never the
batch. A worker that cannot complete the handshake makes ``start()`` raise
``WorkerStartError``.

Threads per running worker: one reads stdout lines into a queue (the caller
waits on the queue with a timeout, which is how hangs are detected), one drains
stderr into a bounded buffer (so the worker never blocks on a full stderr pipe,
and crash reports can quote it), and, during a batch, one writes the requests
(so a batch larger than the pipe buffers cannot deadlock: the worker's answers
are read while requests are still being written).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import queue
import re
import subprocess
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from typing import Any, cast

from jsonschema import Draft202012Validator

from adapters.protocol import PROTOCOL_VERSION, Implementation, Request, Response, crash
from runners._resources import project_dir

__all__ = ["WorkerAdapter", "WorkerStartError"]

_SCHEMA_DIR = project_dir("schemas") / "protocol"
_STDERR_LIMIT = 64 * 1024
_LINE_EXCERPT = 200
_STOP_GRACE_S = 2.0
_EXIT_GRACE_S = 1.0
_EOF = None  # queue sentinel: stdout closed


class WorkerStartError(RuntimeError):
    """The worker could not be started or did not complete the handshake.

    ``message`` says what went wrong; ``stderr`` is what the worker wrote to
    stderr before that (possibly empty).
    """

    def __init__(self, message: str, stderr: str = "") -> None:
        super().__init__(message if not stderr else f"{message}\n--- worker stderr ---\n{stderr}")
        self.message = message
        self.stderr = stderr


def _validator(name: str) -> Draft202012Validator:
    schema = json.loads((_SCHEMA_DIR / name).read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


_validators: dict[str, Draft202012Validator] = {}


def _schema(name: str) -> Draft202012Validator:
    """The compiled validator for schemas/protocol/<name>, built once per process."""
    validator = _validators.get(name)
    if validator is None:
        validator = _validators[name] = _validator(name)
    return validator


_CODE = re.compile(r"[a-z][a-z0-9_]*")


def _plainly_valid_response(answer: Any) -> bool:
    """A fast check that implies validity against response.json (jsonschema costs ~60 us).

    It accepts only what the schema accepts; anything it rejects is judged by the schema.
    """
    if type(answer) is not dict or len(answer) != 2 or type(answer.get("id")) is not str:
        return False
    if "output" in answer:
        return True
    error = answer.get("error")
    if error is not None:
        return (
            type(error) is dict
            and len(error) == 2
            and type(error.get("code")) is str
            and _CODE.fullmatch(error["code"]) is not None
            and type(error.get("message")) is str
        )
    skip = answer.get("skip")
    if skip is not None:
        reason = skip.get("reason") if type(skip) is dict and len(skip) == 1 else None
        return type(reason) is str and reason != ""
    body = answer.get("crash")
    return (
        type(body) is dict
        and len(body) == 2
        and type(body.get("message")) is str
        and type(body.get("detail")) is str
    )


def _schema_error(name: str, instance: Any) -> str | None:
    if name == "response.json" and _plainly_valid_response(instance):
        return None
    validator = _schema(name)
    if validator.is_valid(instance):
        return None
    errors = sorted(validator.iter_errors(instance), key=lambda e: len(e.absolute_path))
    best = errors[0]
    where = "/" + "/".join(str(p) for p in best.absolute_path)
    return f"{best.message} (at {where})"


class _Worker:
    """One spawned worker process with its stdout queue and stderr buffer."""

    def __init__(self, command: Sequence[str], env: Mapping[str, str] | None, cwd: str | None):
        full_env = None if env is None else {**os.environ, **env}
        self.proc = subprocess.Popen(
            list(command),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=full_env,
            cwd=cwd,
        )
        self.lines: queue.Queue[bytes | None] = queue.Queue()
        self._stderr: deque[bytes] = deque()
        self._stderr_size = 0
        self._stderr_lock = threading.Lock()
        self._reader = threading.Thread(target=self._read_stdout, daemon=True)
        self._drainer = threading.Thread(target=self._drain_stderr, daemon=True)
        self._reader.start()
        self._drainer.start()
        self._writer: threading.Thread | None = None

    def _read_stdout(self) -> None:
        stdout = self.proc.stdout
        assert stdout is not None
        try:
            for line in stdout:
                self.lines.put(line)
        except (OSError, ValueError):
            pass
        finally:
            self.lines.put(_EOF)

    def _drain_stderr(self) -> None:
        # Popen with stderr=PIPE and no text mode gives a BufferedReader (read1 exists).
        stderr = cast("io.BufferedReader", self.proc.stderr)
        try:
            while chunk := stderr.read1(8192):
                with self._stderr_lock:
                    self._stderr.append(chunk)
                    self._stderr_size += len(chunk)
                    while self._stderr_size > _STDERR_LIMIT and len(self._stderr) > 1:
                        self._stderr_size -= len(self._stderr.popleft())
        except (OSError, ValueError):
            pass

    def stderr_text(self, *, settle: bool = False) -> str:
        """The most recent stderr (at most 64 KiB).

        ``settle`` first waits briefly for a dead worker's last words.
        """
        if settle:
            self._drainer.join(timeout=_EXIT_GRACE_S)
        with self._stderr_lock:
            data = b"".join(self._stderr)
        if len(data) > _STDERR_LIMIT:
            data = b"[...]" + data[-_STDERR_LIMIT:]
        return data.decode("utf-8", errors="replace")

    def send(self, lines: Sequence[bytes]) -> None:
        """Write ``lines`` on a background thread; a dead worker just ends the writing."""
        stdin = self.proc.stdin
        assert stdin is not None
        if self._writer is not None:
            self._writer.join()  # the previous batch's writer is done once it was answered

        def write() -> None:
            try:
                for line in lines:
                    stdin.write(line)
                stdin.flush()
            except (OSError, ValueError):
                pass  # the worker died or was killed; the reader reports it

        self._writer = threading.Thread(target=write, daemon=True)
        self._writer.start()

    def send_now(self, line: bytes) -> None:
        stdin = self.proc.stdin
        assert stdin is not None
        try:
            stdin.write(line)
            stdin.flush()
        except (OSError, ValueError):
            pass

    def next_line(self, timeout: float) -> bytes | None:
        """The next stdout line; None at EOF; raises queue.Empty after ``timeout`` seconds."""
        return self.lines.get(timeout=timeout)

    def alive(self) -> bool:
        return self.proc.poll() is None

    def exit_code(self, wait: float = _EXIT_GRACE_S) -> int | None:
        try:
            return self.proc.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            return None

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        if self._writer is not None:
            self._writer.join(timeout=_EXIT_GRACE_S)
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        self._reader.join(timeout=_EXIT_GRACE_S)
        self._drainer.join(timeout=_EXIT_GRACE_S)
        if self.proc.stderr is not None:
            self.proc.stderr.close()

    def stop(self) -> None:
        """Polite stop (stop command, close stdin, short wait), then kill."""
        if self.proc.poll() is None:
            self.send_now(b'{"cmd": "stop"}\n')
            stdin = self.proc.stdin
            if stdin is not None:
                with contextlib.suppress(OSError):
                    stdin.close()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(timeout=_STOP_GRACE_S)
        self.kill()


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _excerpt(line: bytes) -> str:
    text = line.decode("utf-8", errors="replace").rstrip("\r\n")
    return repr(text if len(text) <= _LINE_EXCERPT else text[:_LINE_EXCERPT] + "...")


def _encode_request(request: Request) -> bytes:
    message: dict[str, Any] = {
        "cmd": "run",
        "id": request["id"],
        "domain": request["domain"],
        "input": request["input"],
    }
    try:
        text = json.dumps(message, ensure_ascii=False, separators=(",", ":"))
        return text.encode("utf-8") + b"\n"
    except UnicodeEncodeError:
        # A lone surrogate has no UTF-8 form; \uXXXX escapes carry it to the worker faithfully.
        return json.dumps(message, separators=(",", ":")).encode("ascii") + b"\n"


class WorkerAdapter:
    """An :class:`adapters.protocol.Adapter` for a JSON-lines worker process.

    ``command`` is the worker's argv, or a function returning it, called at each
    spawn (it may raise WorkerStartError, e.g. when a runtime is missing).
    ``timeout`` is the per-case time limit in seconds, counted from when the
    adapter starts waiting for that case's answer;
    ``start_timeout`` limits the handshake (default: ``max(timeout, 10.0)``).
    ``env`` holds extra environment variables, added to this process's
    environment. ``max_restarts`` bounds restarts within one ``run`` call.
    """

    def __init__(
        self,
        name: str,
        command: Sequence[str] | Callable[[], Sequence[str]],
        *,
        timeout: float = 10.0,
        start_timeout: float | None = None,
        env: Mapping[str, str] | None = None,
        cwd: str | os.PathLike[str] | None = None,
        max_restarts: int = 25,
    ) -> None:
        if timeout <= 0:
            raise ValueError(f"timeout must be positive, got {timeout!r}")
        self.name = name
        self.command = command if callable(command) else list(command)
        self.timeout = float(timeout)
        self.start_timeout = float(start_timeout) if start_timeout else max(self.timeout, 10.0)
        self.env = dict(env) if env is not None else None
        self.cwd = os.fspath(cwd) if cwd is not None else None
        self.max_restarts = max_restarts
        self.implementation: Implementation | None = None
        self.restarts = 0  # total restarts since start(), for reports and tests
        self._worker: _Worker | None = None

    # -- lifecycle -------------------------------------------------------------

    def start(self) -> Implementation:
        """Spawn the worker and do the handshake; raise WorkerStartError if it fails."""
        if self._worker is not None and self._worker.alive() and self.implementation is not None:
            return self.implementation
        self.implementation = self._spawn()
        return self.implementation

    def stop(self) -> None:
        worker, self._worker = self._worker, None
        if worker is not None:
            worker.stop()

    def _spawn(self) -> Implementation:
        if self._worker is not None:
            self._worker.kill()
            self._worker = None
        argv = list(self.command()) if callable(self.command) else self.command
        try:
            worker = _Worker(argv, self.env, self.cwd)
        except OSError as exc:
            raise WorkerStartError(f"cannot run worker {argv!r}: {exc}") from exc
        try:
            implementation = self._handshake(worker, " ".join(argv))
        except WorkerStartError:
            worker.kill()
            raise
        self._worker = worker
        return implementation

    def _handshake(self, worker: _Worker, command: str) -> Implementation:
        worker.send_now(json.dumps({"cmd": "start", "version": PROTOCOL_VERSION}).encode() + b"\n")
        deadline = time.monotonic() + self.start_timeout
        try:
            line = worker.next_line(max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            raise WorkerStartError(
                f"worker {command!r} did not answer the start request within "
                f"{self.start_timeout} s",
                worker.stderr_text(),
            ) from None
        if line is _EOF:
            code = worker.exit_code()
            raise WorkerStartError(
                f"worker {command!r} exited with code {code} before completing the handshake",
                worker.stderr_text(settle=True),
            )
        try:
            answer = json.loads(line, parse_constant=_reject_constant)
        except ValueError as exc:
            raise WorkerStartError(
                f"worker {command!r} answered the start request with invalid JSON: "
                f"{exc}: {_excerpt(line)}",
                worker.stderr_text(),
            ) from None
        problem = _schema_error("started.json", answer)
        if problem is not None:
            raise WorkerStartError(
                f"worker {command!r} answered the start request with a message that does not "
                f"match schemas/protocol/started.json: {problem}",
                worker.stderr_text(),
            )
        if not answer["ok"]:
            error = answer["error"]
            raise WorkerStartError(
                f"worker {command!r} refused protocol version {PROTOCOL_VERSION} "
                f"({error['code']}: {error['message']}); it speaks {answer['versions']}",
                worker.stderr_text(),
            )
        return Implementation.from_json(answer["implementation"])

    # -- running ---------------------------------------------------------------

    def run(self, requests: Sequence[Request]) -> list[Response]:
        """One response per request, in order; never raises for what the worker does."""
        responses: list[Response] = []
        restarts = 0
        while len(responses) < len(requests):
            todo = requests[len(responses) :]
            if self._worker is None or not self._worker.alive():
                first = self.implementation is None  # run() without start(): not a restart
                if not first and restarts >= self.max_restarts:
                    message = f"gave up: the worker was restarted {restarts} times in this batch"
                    responses.extend(crash(r["id"], message, "") for r in todo)
                    break
                try:
                    self.implementation = self._spawn()
                except WorkerStartError as exc:
                    message = (
                        exc.message if first else f"worker could not be restarted: {exc.message}"
                    )
                    responses.extend(crash(r["id"], message, exc.stderr) for r in todo)
                    break
                if not first:
                    restarts += 1
                    self.restarts += 1
            responses.extend(self._run_on_worker(todo))
        return responses

    def _run_on_worker(self, requests: Sequence[Request]) -> list[Response]:
        """Answers for a prefix of ``requests``: all of them, or up to the first failure.

        A failure (EOF, timeout, garbage, wrong id) yields a crash response for
        the case in flight and kills the worker; the caller restarts it.
        """
        worker = self._worker
        assert worker is not None
        lines = [_encode_request(r) for r in requests]
        worker.send(lines)
        responses: list[Response] = []
        for request in requests:
            case_id = request["id"]
            failure = self._next_response(worker, case_id)
            if isinstance(failure, tuple):
                message, detail_head = failure
                worker.kill()
                self._worker = None
                detail = self._detail(worker, detail_head)
                responses.append(crash(case_id, message, detail))
                return responses
            responses.append(failure)
        return responses

    def _next_response(self, worker: _Worker, case_id: str) -> Response | tuple[str, str]:
        """The response for ``case_id``, or ``(message, detail_head)`` if the worker failed."""
        try:
            line = worker.next_line(self.timeout)
        except queue.Empty:
            return (f"no response within {self.timeout} s for case {case_id}", "worker killed")
        if line is _EOF:
            code = worker.exit_code()
            return (f"worker exited with code {code} while running case {case_id}", "")
        try:
            answer = json.loads(line, parse_constant=_reject_constant)
        except ValueError as exc:
            return (
                f"worker wrote invalid JSON while running case {case_id}: {exc}: {_excerpt(line)}",
                "",
            )
        got = answer.get("id") if isinstance(answer, dict) else None
        if got != case_id:
            shown = got if isinstance(got, str) else json.dumps(got)
            return (f"expected response for id {case_id}, got {shown}", _excerpt(line))
        problem = _schema_error("response.json", answer)
        if problem is not None:
            # In sync (right id), so no restart: just this case is broken.
            return crash(
                case_id,
                f"worker response for case {case_id} does not match the protocol: {problem}",
                _excerpt(line),
            )
        response: Response = answer
        return response

    @staticmethod
    def _detail(worker: _Worker, head: str) -> str:
        code = worker.proc.returncode
        parts = [head] if head else []
        parts.append(f"exit status: {code}")
        stderr = worker.stderr_text(settle=True)
        parts.append("--- worker stderr ---\n" + (stderr if stderr else "(empty)"))
        return "\n".join(parts)

    def __enter__(self) -> WorkerAdapter:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
