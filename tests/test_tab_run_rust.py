"""The tab-run extension in the Rust child (docs/protocol.md, "The tab-run extension").

The extension's ``run_line`` answers a tab-run line ``<id> TAB <domain> TAB
<expectation> TAB <input JSON>`` exactly as the ``run`` line carrying the same
``expect`` or ``expect_error``: these tests hold it to the bytes of its JSON path on
every vector, and show that a wrong expectation still gets the whole answer (so the
harness judges it). The line parsing itself is tested in Rust
(``impl_rust/hanzo-conformance/src/line.rs``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from adapters.messages import encode_request, expect_error_line, expect_line, tab_line
from adapters.protocol import TAB_RUN
from adapters.rust import RustAdapter
from adapters.serve import taken_extensions
from runners.run.batches import _own_request
from runners.vectors.load import Case, load_vector_file

ROOT = Path(__file__).resolve().parent.parent

rust: ModuleType = pytest.importorskip("hanzo_conformance_rust")


def _own_cases() -> Iterator[Case]:
    """Every case of every vector file without comparison rules (those that go with an
    expectation) and without variants (a case's own input only)."""
    for path in sorted((ROOT / "vectors").glob("*.json")):
        vector_file = load_vector_file(path)
        if not vector_file.comparison and not vector_file.variants:
            yield from vector_file.cases


def _answer(line: bytes) -> bytes:
    answer: bytes | None = rust.run_line(line)
    assert answer is not None, f"declined {line[:80]!r}"
    return answer


def _unfoldered(answer: bytes) -> bytes:
    # A sandbox error names its own temporary folder (a new one per run).
    return re.sub(rb"hanzo-sandbox-[a-z0-9_*-]+", b"hanzo-sandbox-*", answer)


def test_every_vector_gets_the_bytes_its_json_line_gets() -> None:
    requests = [_own_request(case, True) for case in _own_cases()]
    tabbed = [tab_line(r) for r in requests]
    assert None not in tabbed and len(tabbed) > 500
    spelled = [expect_line(r) or expect_error_line(r) or encode_request(r) for r in requests]
    by_tab = [_unfoldered(_answer(line)) for line in tabbed if line is not None]
    by_json = [_unfoldered(_answer(line)) for line in spelled]
    for request, tab, json in zip(requests, by_tab, by_json, strict=True):
        assert tab == json, request["id"]
    assert by_tab.count(b"=\n") > 300  # acknowledged, not merely equal
    assert sum(a.startswith(b"!") for a in by_tab) > 50


VERIFIER = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
CHALLENGE = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"


def _line(request_id: str, expectation: str, verifier: str = VERIFIER) -> bytes:
    return f'{request_id}\toauth-pkce\t{expectation}\t{{"verifier":"{verifier}"}}\n'.encode()


def test_a_wrong_expectation_gets_the_whole_answer() -> None:
    output = f'{{"id":"k#0","output":{{"challenge":"{CHALLENGE}"}}}}\n'.encode()
    assert _answer(_line("k#0", f'={{"challenge":"{CHALLENGE}"}}')) == b"=\n"
    assert _answer(_line("k#0", f'={{"challenge":"{CHALLENGE[:-1]}x"}}')) == output
    assert _answer(_line("k#0", "!invalid_verifier")) == output
    assert _answer(_line("k#0", "")) == output
    acknowledged = _answer(_line("a#0", "!invalid_verifier", "abc"))
    assert acknowledged.startswith(b'!"') and acknowledged.endswith(b'"\n')
    message = acknowledged[1:-1].decode()
    error = f'{{"error":{{"code":"invalid_verifier","message":{message}}},"id":"b#0"}}\n'
    assert _answer(_line("b#0", "!invalid_verifie", "abc")) == error.encode()


@pytest.mark.parametrize(
    "line",
    [
        b"k#0\toauth-pkce\t=1",
        b'k#0\toauth-pkce\t\t{"verifier":',
        b"k#0\toauth-pkce\t\t\xff",
        b"k#0\toauth-pkce\t\t{}\t{}",
        b"k#0\toauth-pkce\t?\t{}",
    ],
)
def test_a_line_not_taken_apart_is_left_to_the_ordinary_path(line: bytes) -> None:
    # adapters/serve.py then answers it with a crash for its id (tests/test_tab_run.py).
    assert rust.run_line(line) is None


def test_the_served_rust_child_takes_tab_run() -> None:
    offered = ["expect", "expect-error", TAB_RUN]
    assert TAB_RUN in taken_extensions(RustAdapter(), offered)
