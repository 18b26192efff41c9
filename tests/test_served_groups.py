"""The served child's fast path takes the lines of a read together (issue 13).

``adapters/serve.py`` hands the complete lines of each read to the adapter's
``run_lines`` (``PythonAdapter.run_lines``) a few at a time, and the answers go to a
list that is written in groups, without a lock per answer. These tests check what
must not change with that: the answers are those ``run_line`` gives line by line, in
order; a line the fast path declines goes the ordinary way amid the others; and a
case that hangs in the middle of a read still has every answer before it written
(by the thread), so it is the first unanswered one.
"""

from __future__ import annotations

import io
import json
import os
import select
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from adapters.messages import EXTENSIONS_LINE, START_LINE, encode_request
from adapters.protocol import ACK_LINE, Request
from adapters.python import PythonAdapter
from adapters.serve import SLICE, serve

ROOT = Path(__file__).resolve().parent.parent
FAKES = Path(__file__).resolve().parent / "fake_workers"


class CountingPython(PythonAdapter):
    """The reference, recording each ``run_lines`` call's ``(start, stop, taken)``."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[tuple[int, int, int]] = []

    def run_lines(
        self, lines: Sequence[bytes], start: int, stop: int, answer: Callable[[bytes], None]
    ) -> int:
        taken = super().run_lines(lines, start, stop, answer)
        self.calls.append((start, stop, taken))
        return taken


def _pkce(request_id: str, verifier: str) -> bytes:
    return encode_request(
        {"id": request_id, "domain": "oauth-pkce", "input": {"verifier": verifier}}
    )


def _with_expect(line: bytes, output_json: str) -> bytes:
    return line[:-2] + b',"expect":' + json.dumps(output_json).encode() + b"}\n"


def _served(adapter: PythonAdapter, data: bytes) -> list[bytes]:
    """The answer lines ``serve`` writes for ``data``, read at once (then end of file)."""
    assert len(data) < 1 << 16  # fits the pipe, and is one read
    read_end, write_end = os.pipe()
    os.write(write_end, data)
    os.close(write_end)
    out = io.BytesIO()
    with os.fdopen(read_end, "rb") as stdin:
        serve(adapter, stdin, out)
    return out.getvalue().splitlines(keepends=True)


def test_a_read_goes_to_run_lines_in_slices_and_answers_as_line_by_line() -> None:
    reference = PythonAdapter()
    reference.start()
    lines = []
    for i in range(3 * SLICE):
        line = _pkce(f"oauth-pkce/c-{i}#0", "abc"[i % 3] * (43 + i % 50) if i % 7 else "short")
        if i % 5 == 0:  # some carry the expect extension, with the reference's output
            answer = reference.run_line(line[:-1])
            assert answer is not None
            response = json.loads(answer)
            if "output" in response:
                line = _with_expect(line, json.dumps(response["output"], separators=(",", ":")))
        lines.append(line)
    # Not the harness's spelling (a space): the ordinary path answers it, in its turn,
    # as the fast path answers the same request spelled the harness's way.
    expected = [reference.run_line(line[:-1]) for line in lines]
    lines[40] = lines[40].replace(b'"input":', b'"input": ')
    assert reference.run_line(lines[40][:-1]) is None
    assert expected.count(ACK_LINE) > 10
    adapter = CountingPython()
    answers = _served(adapter, START_LINE + EXTENSIONS_LINE + b"".join(lines))
    assert json.loads(answers[0])["ok"] is True
    assert json.loads(answers[1]) == {"extensions": ["expect", "expect-error", "tab-run"]}
    assert answers[2:] == expected
    # Many lines per call, a slice at most; the declined line is handed back, then
    # the lines after it go on from the next one.
    taken = [t - start for start, _, t in adapter.calls if t > start]
    assert sum(taken) == len(lines) - 1
    assert max(taken) == SLICE
    assert len(taken) <= len(lines) // SLICE + 3
    # (Indices count the read's lines: the start and extensions lines come first.)
    assert (42, 42) in {(start, t) for start, _, t in adapter.calls}
    assert 43 in {start for start, _, _ in adapter.calls}


def test_a_case_that_hangs_amid_a_read_leaves_every_answer_before_it_written() -> None:
    # One write: five cases, a sixth that loops forever, two more. The fast path is
    # running the sixth (inside one run_lines call with the others): the thread must
    # write the five answers, and nothing after them can come.
    def normalize(server: str, i: int) -> bytes:
        request: Request = {
            "id": f"mcp-normalization/c-{i}#0",
            "domain": "mcp-normalization",
            "input": {"op": "normalize", "server": server, "tool": "b"},
        }
        return encode_request(request)

    lines = [normalize(f"s{i}", i) for i in range(5)]
    lines += [normalize("hanzo-test-loop", 5), normalize("s6", 6), normalize("s7", 7)]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(FAKES), str(ROOT)])}
    child = subprocess.Popen(
        [sys.executable, "-m", "adapters.serve", "broken_python:create"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        cwd=ROOT,
        env=env,
    )
    try:
        assert child.stdin is not None and child.stdout is not None
        child.stdin.write(START_LINE + b"".join(lines))
        child.stdin.flush()
        received = b""
        deadline = time.monotonic() + 10
        while received.count(b"\n") < 6 and time.monotonic() < deadline:
            if select.select([child.stdout], [], [], 0.1)[0]:
                received += os.read(child.stdout.fileno(), 1 << 16)
        # Then a while longer: nothing more may come (the sixth case never ends).
        time.sleep(0.3)
        if select.select([child.stdout], [], [], 0)[0]:
            received += os.read(child.stdout.fileno(), 1 << 16)
    finally:
        child.kill()
        child.communicate()  # waits, and closes the pipes
    answers: list[Any] = [json.loads(line) for line in received.splitlines()]
    assert answers[0]["ok"] is True
    assert [a["id"] for a in answers[1:]] == [f"mcp-normalization/c-{i}#0" for i in range(5)]
    assert [a["output"]["name"] for a in answers[1:]] == [f"mcp__s{i}__b" for i in range(5)]
