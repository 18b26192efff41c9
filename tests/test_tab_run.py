"""The tab-run extension (docs/protocol.md): a case's own request as one tab-separated line.

The harness sends ``<id> TAB <domain> TAB <expectation> TAB <input JSON>`` to a child
that took it, and the child answers exactly as it answers the ``run`` line carrying the
same ``expect`` or ``expect_error``. These tests hold the python child's tab-run path
to the bytes of its JSON path on every vector, make its quick comparison (orjson's
text) meet outputs that orjson writes and json does not, and check the ordinary path
(any served adapter) and the harness's side (which lines go, to whom).
"""

from __future__ import annotations

import enum
import math
import re
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest

from adapters import registry
from adapters._json import compact_text
from adapters.messages import (
    EXTENSIONS_LINE,
    encode_request,
    expect_error_line,
    expect_line,
    tab_line,
)
from adapters.protocol import BaseAdapter, Request, known_input_text
from adapters.python import PythonAdapter, _is_expected
from adapters.serve import tab_request, taken_extensions
from adapters.worker import WorkerAdapter
from runners.run.batches import _own_request, run_cases, start_platform
from runners.vectors.load import Case, load_vector_file

ROOT = Path(__file__).resolve().parent.parent


def _own_cases() -> Iterator[Case]:
    """Every case of every vector file without comparison rules (those that go with
    an expectation) and without variants (a case's own input only)."""
    for path in sorted((ROOT / "vectors").glob("*.json")):
        vector_file = load_vector_file(path)
        if not vector_file.comparison and not vector_file.variants:
            yield from vector_file.cases


def _unfoldered(answers: list[bytes]) -> list[bytes]:
    return [re.sub(rb"hanzo-sandbox-[a-z0-9_]+", b"hanzo-sandbox-*", a) for a in answers]


def _answers(adapter: PythonAdapter, lines: list[bytes]) -> list[bytes]:
    answers: list[bytes] = []
    index = 0
    while index < len(lines):
        taken = adapter.run_lines(lines, index, len(lines), answers.append)
        assert taken > index, f"declined {lines[taken][:80]!r}"
        index = taken
    return answers


@pytest.fixture(scope="module")
def python() -> Iterator[PythonAdapter]:
    adapter = PythonAdapter()
    adapter.start()
    yield adapter
    adapter.stop()


def test_every_vector_gets_the_bytes_its_json_line_gets(python: PythonAdapter) -> None:
    requests = [_own_request(case, True) for case in _own_cases()]
    tabbed = [tab_line(r) for r in requests]
    assert None not in tabbed and len(tabbed) > 500
    spelled = [expect_line(r) or expect_error_line(r) or encode_request(r) for r in requests]
    by_tab = _answers(python, [line.rstrip(b"\n") for line in tabbed if line is not None])
    by_json = _answers(python, [line.rstrip(b"\n") for line in spelled])
    # A sandbox error names its own temporary folder (a new one per run).
    assert _unfoldered(by_tab) == _unfoldered(by_json)
    assert by_tab.count(b"=\n") > 300  # acknowledged, not merely equal
    assert sum(a.startswith(b"!") for a in by_tab) > 50


def _line(request_id: str, expectation: str, case_input: str) -> bytes:
    return f"{request_id}\toauth-pkce\t{expectation}\t{case_input}".encode()


VERIFIER = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
CHALLENGE = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"


@pytest.mark.parametrize(
    ("expectation", "answer"),
    [
        (f'={{"challenge":"{CHALLENGE}"}}', b"=\n"),
        # One character off: the whole answer, which the harness then judges.
        (
            f'={{"challenge":"{CHALLENGE[:-1]}x"}}',
            f'{{"id":"k#0","output":{{"challenge":"{CHALLENGE}"}}}}\n'.encode(),
        ),
        # Another spelling of the same value is not the text: judged by the harness.
        (
            f'={{ "challenge":"{CHALLENGE}"}}',
            f'{{"id":"k#0","output":{{"challenge":"{CHALLENGE}"}}}}\n'.encode(),
        ),
        ("", f'{{"id":"k#0","output":{{"challenge":"{CHALLENGE}"}}}}\n'.encode()),
        ("!invalid_verifier", f'{{"id":"k#0","output":{{"challenge":"{CHALLENGE}"}}}}\n'.encode()),
    ],
)
def test_only_the_expected_text_is_acknowledged(
    python: PythonAdapter, expectation: str, answer: bytes
) -> None:
    line = _line("k#0", expectation, f'{{"verifier":"{VERIFIER}"}}')
    assert _answers(python, [line]) == [answer]


def test_an_error_is_acknowledged_only_for_its_code(python: PythonAdapter) -> None:
    short = '{"verifier":"abc"}'
    [acknowledged, other, none] = _answers(
        python,
        [
            _line("a#0", "!invalid_verifier", short),
            _line("b#0", "!invalid_verifie", short),
            _line("c#0", "", short),
        ],
    )
    assert acknowledged.startswith(b'!"') and acknowledged.endswith(b'"\n')
    message = acknowledged[1:-1].decode()
    assert (
        other
        == f'{{"id":"b#0","error":{{"code":"invalid_verifier","message":{message}}}}}\n'.encode()
    )
    assert none == other.replace(b'"b#0"', b'"c#0"')


class Colour(enum.Enum):
    RED = "red"


class Text(str):
    pass


# Outputs whose orjson text differs from json's or that json refuses, each with the text
# that orjson writes for it (where it writes one): the quick comparison must never
# acknowledge what json's text (``compact_text``) would not.
ODD_OUTPUTS = [
    (math.nan, "null"),
    (math.inf, "null"),
    ({"colour": Colour.RED}, '{"colour":"red"}'),
    (uuid.UUID(int=1), '"00000000-0000-0000-0000-000000000001"'),
    ((1, 2), "[1,2]"),  # json writes a tuple as an array too: acknowledged by json's text
    ({"n": 1e-05}, '{"n":1e-5}'),  # orjson's spelling: not json's, never the text
    ({"n": 1e-05}, '{"n":1e-05}'),  # json's spelling: acknowledged
    ({"n": 2**70}, f'{{"n":{2**70}}}'),  # orjson refuses it; json writes it
    (Text("a"), '"a"'),  # a str subclass: json writes it as a str
    ({1: "a"}, '{"1":"a"}'),  # json writes an int key as a string; orjson refuses it
    ({"s": "\ud800"}, '{"s":"\\ud800"}'),  # no UTF-8 form: never acknowledged
    ({"a": True}, '{"a":1}'),
    ({"a": 1}, '{"a":true}'),
    ({"a": 1.0}, '{"a":1}'),
]


@pytest.mark.parametrize(("output", "text"), ODD_OUTPUTS)
def test_the_quick_comparison_acknowledges_only_what_json_would(output: Any, text: str) -> None:
    try:
        by_json = compact_text(output).encode("utf-8") == text.encode("utf-8", "surrogatepass")
    except (TypeError, ValueError):
        by_json = False
    assert _is_expected(output, b"=" + text.encode("utf-8", "surrogatepass")) is by_json


def test_the_quick_comparison_does_acknowledge(python: PythonAdapter) -> None:
    # The cases above that json acknowledges (so the test above can fail both ways).
    assert _is_expected((1, 2), b"=[1,2]")
    assert _is_expected({"n": 1e-05}, b'={"n":1e-05}')
    assert _is_expected({1: "a"}, b'={"1":"a"}')


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (b"k#0\toauth-pkce\t=1", "3 tab-separated fields, not 4"),
        (b'k#0\toauth-pkce\t\t{"verifier":', "Expecting value"),
        (b"k#0\toauth-pkce\t\t\xff", "codec can't decode"),
    ],
)
def test_a_line_not_taken_apart_is_a_crash_for_its_id(line: bytes, message: str) -> None:
    request = tab_request(line)
    assert request["id"] == ("k#0" if line.count(b"\t") == 3 else "")
    assert message in request["crash"]["message"]


def test_tab_request_is_the_run_message_with_its_expectation() -> None:
    assert tab_request(b'k#0\toauth-pkce\t={"a":1}\t{"verifier":"x"}') == {
        "cmd": "run",
        "id": "k#0",
        "domain": "oauth-pkce",
        "input": {"verifier": "x"},
        "expect": '{"a":1}',
    }
    assert tab_request(b"k#0\toauth-pkce\t!c\t[]")["expect_error"] == "c"
    assert "expect" not in tab_request(b"k#0\toauth-pkce\t\t[]")


def test_who_takes_it() -> None:
    offered = ["expect", "expect-error", "tab-run"]
    assert taken_extensions(PythonAdapter(), offered) == offered
    assert taken_extensions(PythonAdapter(), ["expect", "tab-run"]) == ["expect"]

    class Plain(BaseAdapter):  # no fast path: adapters.serve answers every line itself
        pass

    assert taken_extensions(Plain(), offered) == offered

    class OldLines(PythonAdapter):
        run_line_extensions = ("expect", "expect-error")

    assert taken_extensions(OldLines(), offered) == ["expect", "expect-error"]
    assert b'"tab-run"' in EXTENSIONS_LINE


def test_a_line_with_a_tab_in_a_field_goes_as_json() -> None:
    request = known_input_text("x/a\tb#0", "oauth-pkce", {}, "{}", '{"a":1}', {"a": 1})
    assert tab_line(cast(Request, request)) is None
    request = known_input_text("x/a#0", "oauth-pkce", {}, "{}", None, None, "bad\ncode")
    assert tab_line(cast(Request, request)) is None
    request = known_input_text("x/a#0", "oauth-pkce", {}, "{}", None, None, "code")
    assert tab_line(cast(Request, request)) == b"x/a#0\toauth-pkce\t!code\t{}\n"


@pytest.fixture
def mcp_file() -> Any:
    return load_vector_file(ROOT / "vectors" / "mcp-normalization.json")


def test_the_served_python_child_is_sent_tab_lines_and_passes(mcp_file: Any) -> None:
    adapter = registry.create("python", timeout=10.0)
    assert isinstance(adapter, WorkerAdapter)
    started = start_platform("python", adapter)
    try:
        assert adapter.tab_run is True
        sent: list[bytes] = []
        worker: Any = adapter._worker
        send = worker.send

        def recorded(lines: list[bytes]) -> None:
            sent.extend(lines)
            send(lines)

        worker.send = recorded
        outcomes = run_cases(started, mcp_file, mcp_file.cases)
        assert {o.status for o in outcomes} == {"pass"}
        assert sent and all(b"\t" in line and not line.startswith(b"{") for line in sent)
    finally:
        adapter.stop()


def test_a_served_adapter_without_run_line_answers_tab_lines_the_ordinary_way(
    mcp_file: Any, served_liar: Any
) -> None:
    # miniatures.Liar overrides run: served, its lines go the ordinary way (tab_request).
    adapter, started = served_liar
    assert adapter.tab_run is True
    outcomes = run_cases(started, mcp_file, mcp_file.cases)
    failed = [o for o in outcomes if o.status == "fail"]
    assert failed and all(o.status in ("pass", "fail") for o in outcomes)
    # Errors pass (acknowledged by code); every output is one "!" off, with its diff.
    assert all(o.diff and o.diff[0].actual.endswith("!") for o in failed)
