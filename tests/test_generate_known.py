"""generate --expectations: the search looks past the causes a platform's ledger records.

The platform here has a systematic, recorded difference (every frame's unset event
written as "message", as httpx-sse does) and a planted fault nobody recorded (CR|LF
across chunks as two line endings). Without the ledger the search stops at the
systematic one; with it, it must find and shrink the planted fault.
"""

from __future__ import annotations

import itertools
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("hypothesis", reason="hypothesis is in the test extra")

from miniatures import CrLfAcrossChunks, Rewriter, StrictUtf8

from adapters import registry
from adapters.protocol import Request, Response
from adapters.python import PythonAdapter
from runners._cli import main
from runners.gate.ledger import load_ledger
from runners.generate.known import known_causes, ledgered_inputs
from runners.generate.search import Search
from runners.run.batches import start_platform
from runners.vectors.load import load_vector_file

ROOT = Path(__file__).resolve().parent.parent
SEED = 12347
EVENT_CAUSE = {"pattern": "/frames/*/event", "kind": "null -> string"}


class NamesEveryEvent(CrLfAcrossChunks):
    """The CR|LF fault, plus every unset event name written as "message"."""

    def faulty(self, request: Request) -> Response:
        response = super().faulty(request)
        if "output" in response:
            frames = response["output"]["frames"]
            for frame in frames:
                if frame["event"] is None:
                    frame["event"] = "message"
        return response


def ledger_file(tmp_path: Path, platform: str, *clusters: dict[str, str]) -> Path:
    cases = load_vector_file(ROOT / "vectors/sse-frames.json").cases
    [case] = [c for c in cases if c.id == "single-data-frame"]
    ref = {"domain": "sse-frames", "case": case.id, "hash": case.content_hash()}
    entries = [
        {
            "cluster": cluster,
            "cases": [ref],
            "reason": "recorded on purpose for this test",
            "link": "https://example.invalid/1",
            "owner": "tests",
        }
        for cluster in clusters
    ]
    path = tmp_path / f"{platform}.json"
    path.write_text(json.dumps({"platform": platform, "entries": entries}), encoding="utf-8")
    return path


def search(known: dict[str, frozenset[tuple[str, str]]] | None) -> Search:
    reference = start_platform("python", PythonAdapter())
    faulty = NamesEveryEvent("named")
    return Search("sse-frames", reference, [start_platform("named", faulty)], known=known)


def test_without_a_ledger_the_search_stops_at_the_systematic_difference() -> None:
    finding = search(None).search(60, SEED, 16)
    assert finding is not None
    assert "/frames/0/event" in finding.reasons["named"], finding.reasons


def crlf_fault_found_past_known(s: Any) -> Any:
    """The finding of a search that counted known answers and then found the planted
    CR|LF fault (a CR ending one chunk, its LF starting the next)."""
    finding = s.search(60, SEED, 16)
    assert finding is not None, "the CR|LF fault was not found past the known causes"
    assert s.stats.known > 0
    chunks = finding.input["chunks"]
    assert any(a.endswith("\r") and b.startswith("\n") for a, b in itertools.pairwise(chunks))
    return finding


def test_with_the_ledger_the_search_finds_the_unrecorded_fault(tmp_path: Path) -> None:
    known = known_causes([load_ledger(ledger_file(tmp_path, "named", EVENT_CAUSE))])
    assert known == {"named": frozenset({("/frames/*/event", "null -> string")})}
    finding = crlf_fault_found_past_known(search(known))
    assert len(finding.input["chunks"]) <= 3, finding.input
    assert "not in its ledger" in finding.reasons["named"], finding.reasons


def test_an_answer_with_one_unrecorded_cause_is_still_a_finding(tmp_path: Path) -> None:
    """Recording some of an answer's causes is not recording the answer."""
    s = search(known_causes([load_ledger(ledger_file(tmp_path, "named", EVENT_CAUSE))]))
    probe = {"chunks": ["data: a\r", "\ndata: b\n\n"]}
    _, [verdict] = s.disagreements([probe])
    assert "not in its ledger: /frames/*" in verdict["named"], verdict
    _, [clean] = s.disagreements([{"chunks": ["data: a\n\n"]}])
    assert clean == {}  # only the recorded cause


def test_the_input_of_a_vector_the_ledger_records_is_not_found_again(tmp_path: Path) -> None:
    """A shrunk input often lands on a vector an earlier search promoted: if the ledger
    names that case, the input is known (run gates how it fails); the same divergence on
    any other input is still a finding."""
    corpus = load_vector_file(ROOT / "vectors/sse-frames.json")
    [case] = [c for c in corpus.cases if c.id == "single-data-frame"]
    entry = {
        "domain": "sse-frames",
        "case": case.id,
        "hash": case.content_hash(),
        "fails": {"pointers": ["/frames/0/event"]},
        "reason": "recorded on purpose for this test",
        "link": "",
        "owner": "tests",
    }
    path = tmp_path / "named.json"
    path.write_text(json.dumps({"platform": "named", "entries": [entry]}), encoding="utf-8")
    ledgers = [load_ledger(path)]
    reference = start_platform("python", PythonAdapter())
    s = Search(
        "sse-frames",
        reference,
        [start_platform("named", NamesEveryEvent("named"))],
        known=known_causes(ledgers),
        known_inputs=ledgered_inputs(ledgers, corpus),
    )
    assert s.known == {"named": frozenset()}  # a case entry records no cause
    _, verdicts = s.disagreements([dict(case.input), {"chunks": ["\n", *case.input["chunks"]]}])
    assert verdicts[0] == {} and s.stats.known_cases == 1
    assert "not in its ledger: /frames/*/event: null -> string" in verdicts[1]["named"]


@pytest.fixture
def named_platform() -> Iterator[str]:
    registry.register_platform("named", lambda: NamesEveryEvent("named"))
    yield "named"
    registry.unregister_platform("named")


def generate(tmp_path: Path, *extra: str) -> int:
    return main(
        [
            *("generate", "--domain", "sse-frames", "--platform", "named"),
            *("--seed", str(SEED), "--max-examples", "60", "--batch", "16", "--no-properties"),
            *("--no-write", "--vectors-dir", str(ROOT / "vectors"), *extra),
        ]
    )


def test_cli_reports_the_known_causes_and_the_new_finding(
    named_platform: str, tmp_path: Path, capsys: Any
) -> None:
    ledger = ledger_file(tmp_path, "named", EVENT_CAUSE)
    assert generate(tmp_path, "--expectations", str(ledger)) == 1
    out = capsys.readouterr().out
    assert "named: 1 known causes (ledger clusters) are not findings" in out
    assert "answers diverged only in known causes (--expectations)" in out
    assert "not in its ledger" in out


def test_a_ledger_for_a_platform_not_compared_is_a_usage_error(
    named_platform: str, tmp_path: Path, capsys: Any
) -> None:
    for platform in ("elsewhere", "python"):  # python is the reference itself
        ledger = ledger_file(tmp_path, platform, EVENT_CAUSE)
        assert generate(tmp_path, "--expectations", str(ledger)) == 2
        err = capsys.readouterr().err
        assert f"a ledger for {platform}, not compared with the reference here" in err


def test_a_published_package_searched_past_its_ledger(capsys: Any) -> None:
    """httpx-sse 0.4.3 with its reviewed ledger: the clustered causes are not findings,
    and what the search reports is a cause the ledger does not record."""
    worker = f"httpx-sse={sys.executable} {ROOT / 'examples/httpx-sse/worker.py'}"
    ledger = ROOT / "examples/httpx-sse/expectations.json"
    code = main(
        [
            *("generate", "--domain", "sse-frames", "--platform", "python"),
            *("--worker", worker, "--expectations", str(ledger)),
            *("--seed", "1", "--max-examples", "60", "--batch", "16", "--no-properties"),
            *("--no-write", "--vectors-dir", str(ROOT / "vectors")),
        ]
    )
    out = capsys.readouterr().out
    assert code == 1, out
    # 4: retry's output-schema violation is one cause with its difference (issue 29)
    assert "httpx-sse: 4 known causes (ledger clusters) are not findings" in out
    assert "answers diverged only in known causes" in out
    [line] = [ln for ln in out.splitlines() if ln.strip().startswith("httpx-sse: differs")]
    assert "not in its ledger: " in line, line


def test_the_search_finds_authlibs_final_newline_and_leaves_its_generate_alone(
    capsys: Any,
) -> None:
    """Authlib 1.9.6 accepts a verifier ending in LF (a regex `$`); the search shrinks to
    such a verifier. Its worker answers the generate probes `skip` (Authlib has no PKCE
    generate()): reported as not applicable, never as a broken property."""
    worker = f"authlib={sys.executable} {ROOT / 'examples/authlib/worker.py'}"
    code = main(
        [
            *("generate", "--domain", "oauth-pkce", "--platform", "python", "--worker", worker),
            *("--seed", "1", "--max-examples", "300", "--no-write"),
            *("--vectors-dir", str(ROOT / "vectors")),
        ]
    )
    out = capsys.readouterr().out
    assert code == 1, out
    assert "authlib answered skip (not applicable) to " in out and " property probes" in out
    assert "property (" not in out, out
    [shrunk] = [ln.strip() for ln in out.splitlines() if ln.strip().startswith('{"verifier"')]
    assert json.loads(shrunk)["verifier"].endswith("\n"), shrunk


def drop_dataless(output: Any) -> Any:
    """As eventsource-parser does: no frame for a block whose data is empty."""
    return {"frames": [f for f in output["frames"] if f["data"] != ""]}


def drop_dataless_and_shout(output: Any) -> Any:
    frames = drop_dataless(output)["frames"]
    return {"frames": [{**f, "data": f["data"].upper()} for f in frames]}


MISSING_FRAME = {"pattern": "/frames/*", "kind": "missing"}


@pytest.mark.parametrize(
    ("rewrite", "known"), [(drop_dataless, True), (drop_dataless_and_shout, False)]
)
def test_a_recorded_missing_frame_is_known_though_it_shifts_the_frames_after_it(
    tmp_path: Path, rewrite: Any, known: bool
) -> None:
    """Position by position, a dropped first frame makes the next one differ in every
    field, which no cluster records; aligned, it is the one recorded missing frame. An
    answer that differs beyond the shift is still a finding."""
    s = Search(
        "sse-frames",
        start_platform("python", PythonAdapter()),
        [start_platform("dropper", Rewriter("dropper", rewrite))],
        known=known_causes([load_ledger(ledger_file(tmp_path, "dropper", MISSING_FRAME))]),
    )
    probes = [{"chunks": ["event: e\n\ndata: a\n\n"]}, {"chunks": ["data: a\n\nevent: e\n\n"]}]
    _, verdicts = s.disagreements(probes)
    if known:
        assert verdicts == [{}, {}] and s.stats.known == 2
    else:
        assert all(
            "not in its ledger: /frames/*/data: other string" in v["dropper"] for v in verdicts
        )


# -- a recorded crash cause ------------------------------------------------------

DECODE_CRASH = {"pattern": "", "kind": "crash UnicodeDecodeError"}


def strict_search(known: dict[str, frozenset[tuple[str, str]]] | None) -> Search:
    reference = start_platform("python", PythonAdapter())
    platform = start_platform("strict", StrictUtf8("strict"))
    return Search("sse-frames", reference, [platform], known=known)


def test_without_a_ledger_the_search_stops_at_the_crash() -> None:
    finding = strict_search(None).search(60, SEED, 16)
    assert finding is not None
    assert "crashed: UnicodeDecodeError" in finding.reasons["strict"], finding.reasons


def test_a_recorded_crash_cause_is_looked_past(tmp_path: Path) -> None:
    """The ledger records the crash's cause (its messages differ in bytes and positions):
    the search goes past it to the unrecorded CR|LF fault."""
    known = known_causes([load_ledger(ledger_file(tmp_path, "strict", DECODE_CRASH))])
    assert known == {"strict": frozenset({("", "crash UnicodeDecodeError")})}
    finding = crlf_fault_found_past_known(strict_search(known))
    assert "crashed" not in finding.reasons["strict"], finding.reasons


def test_a_crash_with_another_cause_is_still_a_finding(tmp_path: Path) -> None:
    s = strict_search(known_causes([load_ledger(ledger_file(tmp_path, "strict", DECODE_CRASH))]))
    _, verdicts = s.disagreements(
        [
            {"chunks": ["data: caf\u00e9\n\n"], "encoding": "bytes"},
            {"chunks": ["\u00ff\u00fe", "data: 1\n\n"], "encoding": "bytes"},
        ]
    )
    assert verdicts == [{}, {}]  # the recorded cause, whatever bytes the message shows
    _, [verdict] = s.disagreements([{"chunks": ["data: boom\n\n"]}])
    assert "not in its ledger: (whole output): crash TypeError" in verdict["strict"], verdict


def test_hanzos_sdk_searched_past_its_recorded_crash(capsys: Any) -> None:
    """hanzoai 2.1.3 crashes on any ill-formed UTF-8, which a search draws at once; its
    ledger records that cause, so the search reports a difference the ledger lacks."""
    worker = f"hanzoai={sys.executable} {ROOT / 'examples/hanzoai/worker.py'}"
    ledger = ROOT / "examples/hanzoai/expectations.json"
    argv = [
        *("generate", "--domain", "sse-frames", "--platform", "python", "--worker", worker),
        *("--seed", "1", "--max-examples", "60", "--batch", "16", "--no-properties"),
        *("--no-write", "--vectors-dir", str(ROOT / "vectors")),
    ]
    assert main(argv) == 1
    out = capsys.readouterr().out
    assert "hanzoai: crashed: UnicodeDecodeError" in out  # without the ledger
    assert main([*argv, "--expectations", str(ledger)]) == 1
    out = capsys.readouterr().out
    assert "hanzoai: 3 known causes (ledger clusters) are not findings" in out
    [line] = [ln for ln in out.splitlines() if ln.strip().startswith("hanzoai: ")][1:]
    assert "crashed" not in line and "not in its ledger: " in line, line
