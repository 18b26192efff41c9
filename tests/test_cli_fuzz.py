"""Malformed vector files and arguments never crash the CLI: exit 0, 1 or 2, no traceback.

Hypothesis writes a vector file (a valid one mutated, JSON of any shape, or bytes)
and a results file, picks arguments for `validate`, `list`, `run` (python only)
and `report`, and calls the CLI in process. An exception escaping `main` (anything
but argparse's SystemExit) fails the test, as does a traceback on stderr or a call
still running after HANG_SECONDS.
"""

from __future__ import annotations

import contextlib
import io
import json
import signal
import tempfile
from pathlib import Path
from typing import Any

from conftest import hello_case, vector_document
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st

from runners._cli import main

json_scalars = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8)
json_values = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)


@st.composite
def mutated_documents(draw: st.DrawFn) -> Any:
    """A valid sse-frames file with one part replaced by something else."""
    doc = vector_document([hello_case(), hello_case(id="second")])
    where = draw(
        st.sampled_from(
            [
                ("domain",),
                ("version",),
                ("variants",),
                ("comparison",),
                ("cases",),
                ("cases", 0),
                ("cases", 0, "input"),
                ("cases", 0, "expected"),
                ("cases", 0, "clauses"),
                ("cases", 1, "id"),
                ("variants", 0, "path"),
            ]
        )
    )
    node: Any = doc
    for key in where[:-1]:
        node = node[key]
    node[where[-1]] = draw(json_values)
    return doc


SPECIAL_TEXTS = [
    "",
    "{",
    "[" * 5000 + "]" * 5000,
    '{"domain": "sse-frames", "version": 1e400}',
    '{"domain": NaN}',
    '{"a": 1, "a": 2}',
    '{"summary": {}, "results": []}',
    "{}",
    "[]",
    "null",
]

VALID = json.dumps(vector_document([hello_case()])).encode()
file_bytes = st.one_of(
    st.just(VALID),
    mutated_documents().map(lambda doc: json.dumps(doc).encode("utf-8", "surrogatepass")),
    json_values.map(lambda value: json.dumps(value).encode("utf-8", "surrogatepass")),
    st.sampled_from(SPECIAL_TEXTS).map(str.encode),
    st.text(max_size=40).map(lambda t: t.encode("utf-8", "surrogatepass")),
    st.binary(max_size=40),
)

BENIGN = [
    ["--domain", "sse-frames"],
    ["--platform", "python"],
    ["--max-problems", "0"],
    ["--format", "json"],
    ["--output", "{tmp}/out.json"],
]
HOSTILE = [
    ["--domain", "no-such-domain"],
    ["--domain", ""],
    ["--platform", "nope"],
    ["--case-timeout", "0"],
    ["--case-timeout", "-1"],
    ["--case-timeout", "nan"],
    ["--case-timeout", "inf"],
    ["--case-timeout", "x"],
    ["--max-problems", "-1"],
    ["--format", "xml"],
    ["--worker", "w='unterminated"],
    ["--worker", "noequals"],
    ["--output", "{tmp}"],
    ["--output", "{tmp}/missing/out.json"],
    ["--output", "/dev/full"],
    ["--vectors", "{tmp}/absent.json"],
    ["--vectors", "{tmp}/loop"],
    ["--no-default-vectors"],
    ["--bogus"],
]
options = st.tuples(
    st.lists(st.sampled_from(BENIGN), max_size=2),
    st.lists(st.sampled_from(HOSTILE), max_size=1),
).map(lambda both: both[0] + both[1])


HANG_SECONDS = 60  # far beyond any example here (each takes milliseconds)


class Hung(BaseException):
    """Raised into a call that outlived HANG_SECONDS; no handler in the CLI catches it."""


def _interrupt(signum: int, frame: Any) -> None:
    raise Hung(f"the CLI was still running after {HANG_SECONDS} s")


def _call(argv: list[str]) -> tuple[int, str]:
    err = io.StringIO()
    previous = signal.signal(signal.SIGALRM, _interrupt)
    signal.alarm(HANG_SECONDS)
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            try:
                code = main(argv)
            except SystemExit as e:  # argparse's usage errors
                code = e.code if isinstance(e.code, int) else 2
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    return code, err.getvalue()


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@example(command="run", content=VALID, extra=[["--output", "{tmp}"]])
@example(command="run", content=VALID, extra=[["--output", "{tmp}/missing/out.json"]])
@example(command="run", content=VALID, extra=[["--case-timeout", "nan"]])
@example(command="report", content=b"{}", extra=[])
@example(command="report", content=b"[" * 5000 + b"]" * 5000, extra=[])
@given(
    command=st.sampled_from(["validate", "list", "run", "report"]),
    content=file_bytes,
    extra=options,
)
def test_the_cli_exits_0_1_or_2_without_a_traceback(
    command: str, content: bytes, extra: list[list[str]]
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "vectors" / "sse-frames.json"
        path.parent.mkdir()
        path.write_bytes(content)
        (Path(tmp) / "loop").symlink_to(Path(tmp) / "loop")
        args = [a.replace("{tmp}", tmp) for option in extra for a in option]
        if command == "report":
            argv = ["report", str(path), *args]
        else:
            argv = [command, "--no-default-vectors", "--vectors", str(path.parent), *args]
            if command == "run":
                argv += ["--platform", "python"]
        code, err = _call(argv)
    event(f"{command} exits {code}")
    assert code in (0, 1, 2), (argv, code, err)
    assert "Traceback" not in err, (argv, err)
