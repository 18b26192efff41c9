"""``hanzo-conformance merge`` (issue 30): the shards of one run (``run --shard I/N``)
joined into the results file a run of every case writes, byte for byte apart from when
it finished; the verdict is the merged results'; and every file that is not a shard of
the same run is refused with one line naming it."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import miniatures
import pytest
from conftest import many, vector_document

from adapters.registry import register_platform, unregister_platform
from runners._cli import main
from runners.gate.verdict import shard_of
from runners.reports.results_file import read_results
from runners.run import stream as _stream

ROOT = Path(__file__).resolve().parent.parent
CHUNK_CASES = _stream.CHUNK_CASES
FINISHED = re.compile(rb'"finished":"[^"]*"')
RUN = ("run", "-q", "--in-process", "--format", "json", "--no-default-vectors", "--vectors")
"""In process: the python reference in the harness, no child to start."""
PLATFORMS = ("--platform", "python", "--platform", "liar", "--platform", "fibber")


@pytest.fixture(autouse=True)
def small_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Chunks of 3 cases: a shard's chunks are not the whole run's, and merge must
    write the whole run's order (file, chunk, platform, case)."""
    monkeypatch.setattr(_stream, "CHUNK_CASES", 3)


@pytest.fixture
def liars() -> Any:
    """``liar`` and ``fibber``: the python reference, wrong alike on ids holding ``case-3``
    (the two agree against the vector: triage has a suspect)."""
    wrong = lambda r: "case-3" in r["id"]  # noqa: E731
    register_platform("liar", lambda: miniatures.Liar("liar", wrong))
    register_platform("fibber", lambda: miniatures.Liar("fibber", wrong))
    yield
    unregister_platform("liar")
    unregister_platform("fibber")


def vectors(tmp_path: Path, name: str = "vectors", expected: str = "hi") -> Path:
    """Two sse-frames files of 14 and 5 cases (ids ``case-*`` and ``more-*``)."""
    folder = tmp_path / name
    folder.mkdir()
    cases = many(14)
    for case in cases:
        case["expected"]["frames"][0]["data"] = expected
    for file, content in (("a.json", cases), ("b.json", many(5, "more"))):
        (folder / file).write_text(json.dumps(vector_document(content, variants=[])), "utf-8")
    return folder


def run(capsys: Any, folder: Path, out: Path, *extra: str) -> int:
    code = main([*RUN, str(folder), "--output", str(out), *extra])
    capsys.readouterr()
    return code


def shards(capsys: Any, tmp_path: Path, folder: Path, count: int, *extra: str) -> list[Path]:
    paths = []
    for index in range(1, count + 1):
        path = tmp_path / f"shard-{index}.json"
        run(capsys, folder, path, *extra, "--shard", f"{index}/{count}")
        paths.append(path)
    return paths


def merge(capsys: Any, *argv: str | Path) -> tuple[int, str, str]:
    code = main(["merge", *map(str, argv)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def refused(capsys: Any, naming: Path | str, *argv: str | Path) -> str:
    """merge exits 2 with one line that names ``naming``; that line."""
    code, _, err = merge(capsys, *argv)
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert str(naming) in lines[0], lines[0]
    return lines[0]


def without_finished(path: Path) -> bytes:
    return FINISHED.sub(b'"finished":""', path.read_bytes())


def ledger(tmp_path: Path, doc: dict[str, Any]) -> Path:
    """A ledger for liar: one of its divergences recorded, and an entry for a case that
    passes (stale: a ledger problem)."""
    by_case = {r["case"]: r for r in doc["results"] if r["platform"] == "liar"}
    failing = next(r for r in by_case.values() if r["status"] == "fail")
    passing = by_case["case-0"]
    entries = [
        {
            "domain": "sse-frames",
            "case": r["case"],
            "hash": r["case_hash"],
            "fails": {"pointers": ["/frames/0/data"]},
            "reason": "a test's",
            "link": "",
            "owner": "",
        }
        for r in (failing, passing)
    ]
    path = tmp_path / "liar-ledger.json"
    path.write_text(json.dumps({"platform": "liar", "entries": entries}), "utf-8")
    return path


def test_the_merged_shards_are_the_run_of_every_case_byte_for_byte(
    liars: None, tmp_path: Path, capsys: Any
) -> None:
    folder = vectors(tmp_path)
    probe = tmp_path / "probe.json"
    run(capsys, folder, probe, *PLATFORMS)
    ledgers = ("--expectations", str(ledger(tmp_path, read_results(probe))))
    whole = tmp_path / "whole.json"
    whole_code = run(capsys, folder, whole, *PLATFORMS, *ledgers)
    parts = shards(capsys, tmp_path, folder, 3, *PLATFORMS, *ledgers)
    merged = tmp_path / "merged.json"
    code, printed, err = merge(
        capsys, *reversed(parts), "--output", merged, "--no-default-vectors", "--vectors", folder
    )
    assert code == whole_code == 1, err
    assert without_finished(merged) == without_finished(whole)
    doc = read_results(merged)
    summary = doc["summary"]
    # What there is to get right: a recorded divergence, an unrecorded one, a stale
    # entry, clusters, triage; the order of the whole run, not of the shards.
    assert summary["xfail"] == 1 and summary["fail"] == 1  # liar recorded, fibber not
    assert [p["kind"] for p in summary["expectations"]["problems"]] == ["stale"]
    assert summary["clusters"] and summary["triage"]
    assert "shard" not in summary["run"]
    assert summary["run"]["finished"] == max(
        read_results(p)["summary"]["run"]["finished"] for p in parts
    )
    first = [(r["case"], r["platform"]) for r in doc["results"][:4]]
    # The first chunk (3 cases) on python, then on liar.
    assert first == [*((f"case-{i}", "python") for i in range(3)), ("case-0", "liar")]
    # The same report as the run printed, after the line naming the shards.
    head, _, table = printed.partition("\n\n")
    assert head.startswith("merged shards 1/3 (") and str(parts[2]) in head
    run_printed = main_printed(capsys, folder, tmp_path / "again.json", *PLATFORMS, *ledgers)
    assert table.replace(str(merged), "OUT") == run_printed.replace(
        str(tmp_path / "again.json"), "OUT"
    )


def main_printed(capsys: Any, folder: Path, out: Path, *extra: str) -> str:
    main([*RUN, str(folder), "--output", str(out), *extra])
    return str(capsys.readouterr().out)


def rewrite(path: Path, change: Any) -> None:
    """Change a results file and keep its summary's counts true (as a file written by
    another run would be)."""
    doc = json.loads(path.read_text("utf-8"))
    change(doc)
    counts: dict[str, int] = {}
    for r in doc["results"]:
        counts[r["status"]] = counts.get(r["status"], 0) + 1
    summary = doc["summary"]
    for status in ("pass", "fail", "error", "skip", "xfail", "not_run"):
        if status in summary or counts.get(status):
            summary[status] = counts.get(status, 0)
    summary["total"] = len(doc["results"])
    summary["diverged"] = bool(counts.get("fail") or counts.get("error"))
    path.write_text(json.dumps(doc), "utf-8")


@pytest.fixture
def two(tmp_path: Path, capsys: Any) -> tuple[Path, list[Path]]:
    """Vectors and their 2 shards, run on python alone."""
    folder = vectors(tmp_path)
    return folder, shards(capsys, tmp_path, folder, 2, "--platform", "python")


def merged_to(tmp_path: Path, folder: Path) -> tuple[str, ...]:
    return (
        "--output",
        str(tmp_path / "merged.json"),
        "--no-default-vectors",
        "--vectors",
        str(folder),
    )


def test_files_that_are_not_shards_of_one_run_are_refused(
    two: tuple[Path, list[Path]], tmp_path: Path, capsys: Any
) -> None:
    folder, (one, other) = two
    out = merged_to(tmp_path, folder)
    # Not a results file at all; a run without --shard.
    vector_file = folder / "a.json"
    assert "not a results document" in refused(capsys, vector_file, one, vector_file, *out)
    whole = tmp_path / "whole.json"
    run(capsys, folder, whole, "--platform", "python")
    assert "not a shard" in refused(capsys, whole, one, whole, *out)
    # A shard missing, a shard twice, shards split differently.
    assert "shard 2/2 missing" in refused(capsys, one, one, *out)
    assert "and so is" in refused(capsys, one, one, one, other, *out)
    (tmp_path / "three").mkdir()
    third = shards(capsys, tmp_path / "three", folder, 3, "--platform", "python")[2]
    assert "same number of shards" in refused(capsys, third, one, other, third, *out)
    assert not (tmp_path / "merged.json").exists()
    # The output is one of the shards: it would be destroyed.
    assert "it is the results file it reads" in refused(capsys, one, one, other, "--output", one)


def test_shards_run_differently_are_refused(
    two: tuple[Path, list[Path]], tmp_path: Path, capsys: Any, liars: None
) -> None:
    folder, (one, _) = two
    out = merged_to(tmp_path, folder)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()

    def second(*extra: str, folder: Path = folder) -> Path:
        path = elsewhere / f"shard-2-{len(list(elsewhere.iterdir()))}.json"
        run(capsys, folder, path, "--shard", "2/2", *extra)
        return path

    options = second("--platform", "python", "--case-timeout", "5")
    assert "case-timeout=5.0" in refused(capsys, options, one, options, *out)
    domains = second("--platform", "python", "--domain", "sse-frames")
    assert "options" in refused(capsys, domains, one, domains, *out)
    platforms = second("--platform", "python", "--platform", "liar")
    assert "on platforms python, liar" in refused(capsys, platforms, one, platforms, *out)
    other_vectors = second("--platform", "python", folder=vectors(tmp_path, "other", "ho"))
    assert "on vectors" in refused(capsys, other_vectors, one, other_vectors, *out)
    harness = second("--platform", "python")
    rewrite(harness, lambda doc: doc["summary"]["run"]["harness"].update(version="0.0.1"))
    assert "by harness" in refused(capsys, harness, one, harness, *out)


def test_a_shard_of_an_interrupted_run_is_refused(
    two: tuple[Path, list[Path]], tmp_path: Path, capsys: Any
) -> None:
    folder, (one, other) = two

    def interrupt(doc: dict[str, Any]) -> None:
        # What an interrupted run writes for the cases it did not finish (runners.run.stream).
        last = doc["results"][-1]
        last.update(status="not_run", message="the run was interrupted")
        last.pop("actual", None)

    rewrite(other, interrupt)
    line = refused(capsys, other, one, other, *merged_to(tmp_path, folder))
    assert "was interrupted (1 results not run)" in line


def test_results_outside_their_shard_are_refused(
    two: tuple[Path, list[Path]], tmp_path: Path, capsys: Any
) -> None:
    folder, (one, other) = two
    stolen = read_results(other)["results"][0]
    rewrite(one, lambda doc: doc["results"].append(stolen))
    line = refused(capsys, one, one, other, *merged_to(tmp_path, folder))
    assert f"sse-frames::{stolen['case']}" in line and "the shards overlap" in line


def test_a_shard_missing_a_result_is_refused(
    two: tuple[Path, list[Path]], tmp_path: Path, capsys: Any
) -> None:
    folder, (one, other) = two
    lost = read_results(one)["results"][-1]
    rewrite(one, lambda doc: doc["results"].pop())
    line = refused(capsys, one, one, other, *merged_to(tmp_path, folder))
    assert f"has no result of sse-frames::{lost['case']} on python" in line


def test_merge_needs_the_vectors_the_shards_ran(
    two: tuple[Path, list[Path]], tmp_path: Path, capsys: Any
) -> None:
    _, (one, other) = two
    line = refused(capsys, one, one, other, "--output", tmp_path / "merged.json")
    assert "give merge the --vectors" in line


def test_merge_needs_the_ledgers_the_shards_ran_with(
    liars: None, tmp_path: Path, capsys: Any
) -> None:
    folder = vectors(tmp_path)
    probe = tmp_path / "probe.json"
    run(capsys, folder, probe, "--platform", "python", "--platform", "liar")
    path = ledger(tmp_path, read_results(probe))
    parts = shards(
        capsys,
        tmp_path,
        folder,
        2,
        "--platform",
        "python",
        "--platform",
        "liar",
        "--expectations",
        str(path),
    )
    out = merged_to(tmp_path, folder)
    recorded = json.loads(path.read_text("utf-8"))
    path.write_text(json.dumps({**recorded, "entries": recorded["entries"][1:]}), "utf-8")
    assert "the ledgers here judge it" in refused(
        capsys, parts[shard_of("sse-frames", "case-3", 2) - 1], *parts, *out
    )
    path.unlink()
    assert "no such expectations file" in refused(capsys, path, *parts, *out)


def test_the_verdict_is_the_merged_results(liars: None, tmp_path: Path, capsys: Any) -> None:
    folder = vectors(tmp_path)
    platforms = ("--platform", "python", "--platform", "liar")
    parts = shards(capsys, tmp_path, folder, 2, *platforms)
    codes = [read_results(p)["summary"]["diverged"] for p in parts]
    # liar diverges on case-3 alone: one shard diverged, the other passed.
    assert sorted(codes) == [False, True]
    code, printed, _ = merge(capsys, *parts, *merged_to(tmp_path, folder))
    assert code == 1 and "DIVERGED" in printed
    green = shards(capsys, tmp_path, folder, 2, "--platform", "python")
    code, printed, _ = merge(capsys, *green, *merged_to(tmp_path, folder))
    assert code == 0 and "\nOK: " in printed


def test_report_and_history_read_a_merged_file(
    two: tuple[Path, list[Path]], tmp_path: Path, capsys: Any
) -> None:
    folder, parts = two
    merged = tmp_path / "merged.json"
    assert merge(capsys, *parts, *merged_to(tmp_path, folder))[0] == 0
    whole = tmp_path / "whole.json"
    run(capsys, folder, whole, "--platform", "python")
    for fmt in ("text", "markdown"):
        reports = []
        for path in (merged, whole):
            assert main(["report", str(path), "--format", fmt]) == 0
            reports.append(capsys.readouterr().out)
        assert reports[0] == reports[1]
    assert (
        main(["report", str(merged), "--format", "html", "--output", str(tmp_path / "r.html")]) == 0
    )
    assert main(["history", str(whole), str(merged)]) == 0
    assert "0 changed" in capsys.readouterr().out


@pytest.mark.slow
def test_the_two_shards_of_the_full_matrix_merge_into_the_full_run(
    tmp_path: Path, capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every vector on python, rust and js: the merged shards are the unsharded run's file
    byte for byte (results, cases and summary), but for when it finished. The three runs
    go side by side, each a harness of its own, as on three machines."""
    monkeypatch.setattr(_stream, "CHUNK_CASES", CHUNK_CASES)  # the runs' own
    whole = tmp_path / "whole.json"
    parts = [tmp_path / "shard-1.json", tmp_path / "shard-2.json"]
    argv = [sys.executable, "-m", "runners", "run", "-q", "--format", "json", "--output"]
    runs = [
        subprocess.Popen([*argv, str(path), *shard], cwd=ROOT, stdout=subprocess.DEVNULL)
        for path, shard in (
            (whole, []),
            *((p, ["--shard", f"{i}/2"]) for i, p in enumerate(parts, 1)),
        )
    ]
    codes = [r.wait(timeout=600) for r in runs]
    merged = tmp_path / "merged.json"
    code, _, err = merge(capsys, *parts, "--output", merged)
    assert code == codes[0], err
    doc = read_results(merged)
    assert list(doc["summary"]["platforms"]) == ["python", "rust", "js"]
    assert len(doc["results"]) == 3 * len(doc["cases"]) > 3000
    masked, text = comparable(merged)
    assert 0 < masked < 100  # backoff's jitter, sandbox-paths' temporary folders
    assert text == comparable(whole)[1]


def comparable(path: Path) -> tuple[int, bytes]:
    """A results file but for what differs between two runs of the same cases on one
    machine: when it finished, and the output of a pass that is not the expected value
    (a rule lets it vary: a random delay, a temporary folder), each result's line kept
    byte for byte otherwise; and how many outputs that left out."""
    cases = json.loads(path.read_bytes())["cases"]
    lines, masked = [], 0
    for line in without_finished(path).splitlines(keepends=True):
        if line.startswith(b'{"domain":'):
            r = json.loads(line.rstrip(b",\n"))
            case = cases[f"{r['domain']}::{r['case']}"]
            if r["status"] == "pass" and varies(r.get("actual"), case):
                masked += 1
                line = line.replace(
                    json.dumps(r["actual"], ensure_ascii=False, separators=(",", ":")).encode(),
                    b"VARIES",
                    1,
                )
        lines.append(line)
    return masked, b"".join(lines)


def varies(actual: Any, case: dict[str, Any]) -> bool:
    """A passing output that two runs need not give alike: not the expected output (a
    comparison rule let it pass), or an expected error whose message names a temporary
    folder."""
    if "expected" in case:
        return bool(actual != case["expected"])
    return tempfile.gettempdir() in json.dumps(actual)


def test_a_result_of_a_case_the_vectors_do_not_have_is_refused(
    two: tuple[Path, list[Path]], tmp_path: Path, capsys: Any
) -> None:
    folder, (one, other) = two
    ghost = next(f"ghost-{i}" for i in range(100) if shard_of("sse-frames", f"ghost-{i}", 2) == 1)
    extra = dict(read_results(one)["results"][0], case=ghost)
    rewrite(one, lambda doc: doc["results"].append(extra))
    line = refused(capsys, one, one, other, *merged_to(tmp_path, folder))
    assert f"sse-frames::{ghost} on python, which is no case of the run's" in line


def test_a_platform_that_did_not_start_on_one_shards_machine_is_merged_broken(
    tmp_path: Path, capsys: Any
) -> None:
    from adapters.protocol import PlatformUnavailable

    starts = {"ok": True}

    def factory() -> Any:
        if not starts["ok"]:
            raise PlatformUnavailable("flaky", "no such worker on this machine")
        return miniatures.Liar("flaky", lambda r: False)

    register_platform("flaky", factory)
    try:
        folder = vectors(tmp_path)
        one = tmp_path / "shard-1.json"
        run(capsys, folder, one, "--platform", "flaky", "--shard", "1/2")
        starts["ok"] = False
        other = tmp_path / "shard-2.json"
        run(capsys, folder, other, "--platform", "flaky", "--shard", "2/2")
    finally:
        unregister_platform("flaky")
    code, printed, _ = merge(capsys, one, other, *merged_to(tmp_path, folder))
    assert code == 1
    info = read_results(tmp_path / "merged.json")["summary"]["platforms"]["flaky"]
    assert info["implementation"] and info["broken"].startswith("flaky did not start")
    errors = read_results(other)["summary"]["error"]
    assert errors and f"{errors} error" in printed
