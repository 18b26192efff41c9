"""The JS worker's tab-run extension (docs/protocol.md, "The tab-run extension").

The real worker (impl_js/conformance/worker.mjs) is spoken to by hand: every case's own
request of every vector file without comparison rules goes once as a tab-run line and
once as the JSON ``run`` line with ``expect`` / ``expect_error``, and the answers must
be the same bytes. impl_js/test/worker-tab-run.test.js covers malformed lines and who
takes the extension.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from adapters.js import WORKER, find_node
from adapters.messages import (
    EXTENSIONS_LINE,
    START_LINE,
    STOP_LINE,
    encode_request,
    expect_error_line,
    expect_line,
    tab_line,
)
from runners.run.batches import _own_request
from runners.vectors.load import Case, load_vector_file

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def node() -> str:
    return find_node()  # no Node is a failure here, as for the js platform itself


def _own_cases() -> Iterator[Case]:
    """Every case of every vector file without comparison rules (those whose own
    request goes with an expectation)."""
    for path in sorted((ROOT / "vectors").glob("*.json")):
        vector_file = load_vector_file(path)
        if not vector_file.comparison:
            yield from vector_file.cases


def _talk(node: str, lines: list[bytes]) -> list[bytes]:
    """The worker's answers to ``lines`` (each ending in a newline), after the handshake
    and once it has taken expect, expect-error and tab-run."""
    result = subprocess.run(
        [node, str(WORKER)],
        input=b"".join([START_LINE, EXTENSIONS_LINE, *lines, STOP_LINE]),
        capture_output=True,
        timeout=300,
        check=False,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stderr.decode(errors="replace")
    started, taken, *answers = result.stdout.split(b"\n")
    assert started.startswith(b'{"ok":true')
    assert taken == b'{"extensions":["expect","expect-error","tab-run"]}'
    assert answers.pop() == b""
    assert len(answers) == len(lines)
    return answers


def _unfoldered(answers: list[bytes]) -> list[bytes]:
    # A sandbox error names its own temporary folder (a new one per case).
    return [re.sub(rb"hanzo-sandbox-[A-Za-z0-9_]+", b"hanzo-sandbox-*", a) for a in answers]


def test_every_vector_gets_the_bytes_its_json_line_gets(node: str) -> None:
    requests = [_own_request(case, True) for case in _own_cases()]
    tabbed = [tab_line(r) for r in requests]
    assert None not in tabbed and len(tabbed) > 500
    spelled = [expect_line(r) or expect_error_line(r) or encode_request(r) for r in requests]
    by_tab = _talk(node, [line for line in tabbed if line is not None])
    by_json = _talk(node, spelled)
    assert _unfoldered(by_tab) == _unfoldered(by_json)
    assert by_tab.count(b"=") > 300  # acknowledged, not merely equal
    assert sum(a.startswith(b'!"') for a in by_tab) > 50


def test_a_wrong_expectation_gets_the_whole_answer(node: str) -> None:
    case = load_vector_file(ROOT / "vectors" / "oauth-pkce.json").cases[0]
    request = _own_request(case, True)
    right = tab_line(request)
    assert right is not None and case.expected_json is not None
    request_id, domain, _, input_json = right.rstrip(b"\n").split(b"\t")
    wrong = b"\t".join([request_id, domain, b'={"challenge":"not it"}', input_json]) + b"\n"
    [acknowledged, answered] = _talk(node, [right, wrong])
    assert acknowledged == b"="
    assert answered == b'{"id":%s,"output":%s}' % (
        b'"' + request_id + b'"',
        case.expected_json.encode(),
    )
