"""``merge``: the results files of the shards of one run (``run --shard I/N``, each on a
machine of its own) joined into the results file of the whole run (issue 30).

The shards' results are not added up: they go through a ``Sink`` again, as the run's
own results do, in the order a run of every case takes them (file order, then chunks
of ``CHUNK_CASES`` cases, then platform order, then case order), each first taken back
to what it was before the ledgers (``unjudged``) and the clusters (``unannotated``). So
the ledgers, counts, clusters, triage, report and summary are made by the code that
makes a run's, and the merged file is what a run of every case on one machine writes
(tests/test_merge.py: byte for byte, apart from when it finished). The verdict comes
from the merged results, never from a shard's summary.

The order of the cases is the vectors': ``merge`` loads them as ``run`` does (the
project's, and any ``--vectors``), and refuses vectors that are not the shards'.

It refuses (exit 2, one line naming the file) what would not be one run: a file that
is not a results file or not a shard, shards split differently or given twice, a
shard missing, a shard of an interrupted run (results ``not_run``), shards run on
different vectors, by different harnesses, on different platforms, with different
ledgers or with different ``RECORDED`` options (``summary.run.options``), and results
that are not where their shard puts them.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..exceptions import HarnessError
from ..gate.ledger import unjudged
from ..gate.verdict import shard_of
from ..judge.clusters import unannotated
from ..reports.meta import harness_version
from ..reports.results_file import read_results
from ..vectors.load import Case
from ..vectors.stream import VectorSource
from . import stream as _stream


class MergeRefused(HarnessError):
    """The files given to ``merge`` are not the shards of one run (exit 2)."""


@dataclass
class Shard:
    path: Path
    doc: dict[str, Any]
    index: int
    count: int

    @property
    def summary(self) -> dict[str, Any]:
        summary: dict[str, Any] = self.doc["summary"]
        return summary

    @property
    def run(self) -> dict[str, Any]:
        run: dict[str, Any] = self.summary.get("run", {})
        return run

    @property
    def name(self) -> str:
        return f"{self.index}/{self.count}"


def read_shards(paths: Sequence[Path]) -> list[Shard]:
    """Each file read as a results file, checked to be the shards of one run; in shard order."""
    shards = []
    for path in paths:
        doc = read_results(path)  # not a results file: ResultsFileError, naming it
        run = doc["summary"].get("run", {})
        if "shard" not in run:
            raise MergeRefused(
                f"{path}: not a shard: it was run without --shard I/N (merge joins the "
                "results files of the shards of one run)"
            )
        index, count = (int(n) for n in run["shard"].split("/"))
        shards.append(Shard(path, doc, index, count))
    first = shards[0]
    by_index: dict[int, Shard] = {}
    for shard in shards:
        if shard.count != first.count:
            raise MergeRefused(
                f"{shard.path}: is shard {shard.name}, but {first.path} is {first.name}: "
                "the shards of one run split it into the same number of shards"
            )
        if shard.index > shard.count or shard.index < 1:
            raise MergeRefused(f"{shard.path}: its shard {shard.name} is not I/N with 1 <= I <= N")
        other = by_index.get(shard.index)
        if other is not None:
            raise MergeRefused(
                f"{shard.path}: is shard {shard.name}, and so is {other.path}: give each shard once"
            )
        by_index[shard.index] = shard
    missing = [i for i in range(1, first.count + 1) if i not in by_index]
    if missing:
        given = ", ".join(f"{s.path} ({s.name})" for s in shards)
        absent = ", ".join(f"{i}/{first.count}" for i in missing)
        raise MergeRefused(f"shard {absent} missing: given {given}")
    ordered = [by_index[i] for i in sorted(by_index)]
    for shard in ordered:
        _check_finished(shard)
        _check_alike(ordered[0], shard)
    return ordered


def _check_finished(shard: Shard) -> None:
    """A shard of an interrupted run holds results ``not_run`` (``runners.run.stream``)."""
    not_run = shard.summary.get("not_run", 0)
    if not_run:
        raise MergeRefused(
            f"{shard.path}: shard {shard.name} was interrupted ({not_run} results not run): "
            "run that shard again"
        )


def _check_alike(first: Shard, shard: Shard) -> None:
    """The shard was run as the first was: what changes results is the same."""
    if shard is first:
        return
    checks = (
        ("vectors", lambda s: _vectors(s.run), "on vectors"),
        ("harness", lambda s: s.run.get("harness"), "by harness"),
        ("options", lambda s: s.run.get("options"), "with options"),
        ("platforms", lambda s: list(s.summary["platforms"]), "on platforms"),
        (
            "ledgers",
            lambda s: s.summary.get("expectations", {}).get("ledgers", []),
            "with ledgers",
        ),
    )
    for what, value, how in checks:
        mine, theirs = value(shard), value(first)
        if mine != theirs:
            raise MergeRefused(
                f"{shard.path}: was run {how} {_shown(mine)}, {first.path} {how} "
                f"{_shown(theirs)}: the shards of one run agree on their {what}"
            )


def _vectors(run: Mapping[str, Any]) -> dict[str, Any]:
    """The vectors' version and files (not the checkout's commit: a machine's, not the
    vectors')."""
    vectors = run.get("vectors", {})
    return {"version": vectors.get("version"), "files": vectors.get("files")}


def _shown(value: Any) -> str:
    if isinstance(value, dict) and "version" in value and "files" in value:
        return str(value["version"])
    if isinstance(value, dict):
        return ", ".join(f"{k}={v}" for k, v in value.items()) or "none"
    if isinstance(value, list):
        return ", ".join(map(str, value)) or "none"
    return str(value)


def check_harness(shards: Sequence[Shard]) -> None:
    """This harness judges the results again: it must be the one that judged them."""
    ran = shards[0].run.get("harness", {}).get("version")
    mine = harness_version()
    if ran != mine:
        raise MergeRefused(
            f"{shards[0].path}: was run by harness {ran}, and this is harness {mine}: "
            "merge with the harness that ran the shards"
        )


IDENTITY = ("implementation", "version", "language", "domains", "commit")
"""What a platform is (``describe``): the same in every shard where it started."""


def platforms(shards: Sequence[Shard]) -> dict[str, dict[str, Any]]:
    """``summary.platforms`` of the whole run: each platform as the shards saw it.

    Its identity must agree wherever it started; its protocol problems are every
    shard's; a shard where it did not start or was declared broken makes it ``broken``
    with that message (its cases there are errors with that message)."""
    out: dict[str, dict[str, Any]] = {}
    for name in shards[0].summary["platforms"]:
        seen = [(s, s.summary["platforms"][name]) for s in shards]
        started = [(s, info) for s, info in seen if "failure" not in info]
        if not started:
            out[name] = seen[0][1]
            continue
        first, info = started[0]
        identity = {k: info[k] for k in IDENTITY if k in info}
        for shard, other in started[1:]:
            theirs = {k: other[k] for k in IDENTITY if k in other}
            if theirs != identity:
                raise MergeRefused(
                    f"{shard.path}: ran {name} {_shown(theirs)}, {first.path} ran {name} "
                    f"{_shown(identity)}: the shards of one run run the same platforms"
                )
        merged: dict[str, Any] = dict(identity)
        problems = [p for _, other in started for p in other.get("problems", ())]
        if problems:
            merged["problems"] = problems
        broken = next(
            (other.get("broken") or other.get("failure") for _, other in seen if _stopped(other)),
            None,
        )
        if broken:
            merged["broken"] = broken
        out[name] = merged
    return out


def _stopped(info: Mapping[str, Any]) -> bool:
    return bool(info.get("broken") or info.get("failure"))


def ledger_paths(shards: Sequence[Shard]) -> list[str]:
    """The ledgers the shards were run with (the same in each: ``read_shards``)."""
    paths: list[str] = shards[0].summary.get("expectations", {}).get("ledgers", [])
    return paths


def options(shards: Sequence[Shard]) -> dict[str, Any]:
    recorded: dict[str, Any] = shards[0].run.get("options", {})
    return recorded


def replay(shards: Sequence[Shard], vectors: VectorSource, sink: _stream.Sink) -> None:
    """Every shard's results through ``sink`` in the order of a run of every case; raises
    MergeRefused if the results are not those of the vectors' cases, each in its shard."""
    held = _index(shards)
    names = list(shards[0].summary["platforms"])
    count = shards[0].count
    judged: list[tuple[Shard, dict[str, Any], tuple[Any, Any]]] = []
    missing: tuple[Shard, str] | None = None
    for vf in vectors.files():
        sink.seen(vf)
        if not vectors.runs(vf):
            continue
        for cases in _chunks(vf.cases):
            per_platform = []
            for name in names:
                records = []
                for case in cases:
                    got = held.pop((vf.domain, case.id, name), None)
                    if got is None:
                        owner = shards[shard_of(vf.domain, case.id, count) - 1]
                        missing = missing or (owner, f"{vf.domain}::{case.id} on {name}")
                        continue
                    shard, r = got
                    judged.append((shard, r, (r["status"], r.get("expectation"))))
                    unjudged(r)
                    unannotated(r)
                    records.append(r)
                per_platform.append((name, records))
            chunk = _stream.records_chunk(
                cases, per_platform, sink.gate.names, sink.writer is not None
            )
            sink.take(chunk)
    # The vectors first: results of other vectors are all missing or left over.
    computed = sink.digest.version()
    if _vectors({"vectors": computed}) != _vectors(shards[0].run):
        raise MergeRefused(
            f"{shards[0].path}: was run on vectors {shards[0].run['vectors']['version']}, "
            f"and merge loaded vectors {computed['version']}: give merge the --vectors "
            "(and --no-default-vectors) the shards were run with"
        )
    if missing is not None:
        shard, what = missing
        raise MergeRefused(
            f"{shard.path}: has no result of {what}, a case of its shard {shard.name}"
        )
    if held:
        (domain, case_id, name), (shard, _) = next(iter(held.items()))
        raise MergeRefused(
            f"{shard.path}: has a result of {domain}::{case_id} on {name}, which is no case "
            "of the run's vectors and domains"
        )
    for shard, r, (status, expectation) in judged:
        if (r["status"], r.get("expectation")) != (status, expectation):
            raise MergeRefused(
                f"{shard.path}: its result of {r['domain']}::{r['case']} on {r['platform']} "
                f"is {status}, and the ledgers here judge it {r['status']}: merge with the "
                "ledgers the shards were run with"
            )


def _index(shards: Sequence[Shard]) -> dict[tuple[str, str, str], tuple[Shard, dict[str, Any]]]:
    """Every result by (domain, case, platform), each checked to be in its own shard."""
    held: dict[tuple[str, str, str], tuple[Shard, dict[str, Any]]] = {}
    for shard in shards:
        for r in shard.doc["results"]:
            key = (r["domain"], r["case"], r["platform"])
            other = held.get(key)
            if other is not None:
                raise MergeRefused(
                    f"{shard.path}: has a result of {key[0]}::{key[1]} on {key[2]}, and so "
                    f"has {other[0].path}: the shards overlap"
                )
            owner = shard_of(key[0], key[1], shard.count)
            if owner != shard.index:
                raise MergeRefused(
                    f"{shard.path}: has a result of {key[0]}::{key[1]}, a case of shard "
                    f"{owner}/{shard.count}, not of its own {shard.name}: the shards overlap"
                )
            held[key] = (shard, r)
    return held


def _chunks(cases: Sequence[Case]) -> Iterator[Sequence[Case]]:
    size = _stream.CHUNK_CASES
    for start in range(0, len(cases), size):
        yield cases[start : start + size]


def merged_run(shards: Sequence[Shard], computed: Mapping[str, Any]) -> dict[str, Any]:
    """``summary.run`` of the whole run: the shards' (``computed``, this process's, in its
    order), finished when the last shard did, with no shard; the isolation note of a
    shard that ran without namespaces (where it ran, not where it is merged)."""
    run = {key: value for key, value in computed.items() if key not in ("shard", "isolation")}
    first = shards[0].run
    run["vectors"] = first["vectors"]
    run["harness"] = first["harness"]
    finished = [s.run["finished"] for s in shards if "finished" in s.run]
    if finished:
        run["finished"] = max(finished)
    notes = [s.run["isolation"] for s in shards if "isolation" in s.run]
    if notes:
        run["isolation"] = notes[0]
    return run
