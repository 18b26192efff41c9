"""``hanzo-conformance generate``: search each domain, print findings, write candidates."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import re
import shutil
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from adapters._resources import project_dir

from ..exceptions import HarnessError
from ..gate.ledger import Ledger, load_ledger
from ..run.batches import StartedPlatform
from ..run.platforms import factories, start_all, stop_all
from ..vectors.load import VECTORS_DIR, VectorFile, load_vector_file
from .candidates import as_case, candidates_dir, not_a_vector_input, write_candidate
from .known import Cause, known_causes, ledgered_inputs
from .search import REFERENCE, Finding, Search, Stats

DOCS_DIR = project_dir("docs/domains")
_CLAUSE_HEADING = re.compile(r"^#{2,4} \**([A-Z]+-[0-9]+[a-z]?)\b", re.MULTILINE)
_CLAUSE_BULLET = re.compile(r"^- \*\*([A-Z]+-[0-9]+[a-z]?)\b", re.MULTILINE)


def contract_clauses(domain: str) -> list[str]:
    """The clause ids of docs/domains/<domain>.md (headings or bold bullets), in order."""
    path = DOCS_DIR / f"{domain}.md"
    if not path.is_file():
        return []
    text = path.read_text(encoding="utf-8")
    found = _CLAUSE_HEADING.findall(text) + _CLAUSE_BULLET.findall(text)
    return list(dict.fromkeys(found))


FOREIGN_CANDIDATES = Path(tempfile.gettempdir()) / "hanzo-conformance" / "candidates"
"""Where findings on --worker platforms go unless --vectors-dir says otherwise: a
foreign package's disagreements are its maintainers' to review, not this checkout's."""


def corpus_dir(args: argparse.Namespace) -> Path:
    """The vectors folder a search dedups against and reports coverage of."""
    return args.vectors_dir if args.vectors_dir is not None else VECTORS_DIR


def candidates_folder(args: argparse.Namespace) -> Path:
    if args.vectors_dir is not None:
        return candidates_dir(args.vectors_dir)
    return FOREIGN_CANDIDATES if args.worker else candidates_dir(VECTORS_DIR)


def _corpus(domain: str, vectors_dir: Path) -> VectorFile | None:
    path = vectors_dir / f"{domain}.json"
    return load_vector_file(path) if path.is_file() else None


def coverage_lines(domain: str, corpus: VectorFile | None, stats: Stats) -> list[str]:
    """Per contract clause: how many corpus cases name it and how often the search touched it."""
    named: dict[str, int] = {}
    for case in corpus.cases if corpus else ():
        for clause in case.clauses:
            named[clause] = named.get(clause, 0) + 1
    clauses = list(dict.fromkeys([*contract_clauses(domain), *named, *stats.clause_hits]))
    lines = [f"  clause coverage ({domain}): corpus cases / generated inputs that passed"]
    for clause in clauses:
        corpus_n, search_n = named.get(clause, 0), stats.clause_hits.get(clause, 0)
        mark = "  <- untouched" if not corpus_n and not search_n else ""
        lines.append(f"    {clause:<12} {corpus_n:>5} {search_n:>9}{mark}")
    return lines


def _describe_finding(finding: Finding) -> list[str]:
    lines = [
        f"  {finding.kind} ({finding.name}) after {finding.examples} examples, shrunk to:",
        "    " + json.dumps(finding.probe, ensure_ascii=False)[:2000],
    ]
    lines += [f"    {platform}: {why}" for platform, why in finding.reasons.items()]
    return lines


def run_domain(
    domain: str,
    reference: StartedPlatform,
    others: Sequence[StartedPlatform],
    args: argparse.Namespace,
    seed: int,
    known: dict[str, frozenset[Cause]] | None = None,
    ledgers: Sequence[Ledger] = (),
) -> tuple[list[Finding], Search]:
    corpus = _corpus(domain, corpus_dir(args))
    rules = corpus.comparison if corpus else ()
    search = Search(domain, reference, others, rules, known, ledgered_inputs(ledgers, corpus))
    findings = []
    try:
        finding = search.search(args.max_examples, seed, args.batch)
        if finding:
            findings.append(finding)
        if not args.no_properties:
            for prop in search.properties():
                finding = search.check_property(prop, args.max_examples, seed, args.batch)
                if finding:
                    findings.append(finding)
    finally:
        search.close()
    return findings, search


def _candidate_clauses(search: Search, finding: Finding) -> set[str]:
    clauses: set[str] = set()
    if finding.reference is not None:
        clauses |= search.module.clauses(finding.input, finding.reference)
    for prop in search.properties():
        if prop.name == finding.name:
            clauses |= set(prop.clauses)
    return clauses


SHARED_MEMORY = Path("/dev/shm")


@contextlib.contextmanager
def case_tmpdir(choice: str = "auto") -> Iterator[str | None]:
    """TMPDIR for this process and the platforms started inside: ``choice``, or "auto".

    The OS domains make a directory per case (config-merge's three settings files,
    sandbox trees, hook roots); on a disk filesystem creating and removing them costs
    several times what the platforms compute (bench/README.md). "auto" uses a private
    folder in /dev/shm (tmpfs: the same POSIX files, in memory) when it is writable;
    the platforms take it from TMPDIR, which Python, Rust and Node all read.
    """
    if choice == "system":
        yield None
        return
    parent = choice if choice != "auto" else str(SHARED_MEMORY)
    if choice == "auto" and not (SHARED_MEMORY.is_dir() and os.access(SHARED_MEMORY, os.W_OK)):
        yield None
        return
    folder = tempfile.mkdtemp(prefix="hanzo-generate-", dir=parent)
    before = os.environ.get("TMPDIR")
    os.environ["TMPDIR"] = folder
    tempfile.tempdir = None  # tempfile caches the directory it chose first
    try:
        yield folder
    finally:
        if before is None:
            os.environ.pop("TMPDIR", None)
        else:
            os.environ["TMPDIR"] = before
        tempfile.tempdir = None
        shutil.rmtree(folder, ignore_errors=True)


def generate(args: argparse.Namespace) -> int:
    with case_tmpdir(getattr(args, "tmpdir", "auto")):
        return _generate(args)


def _generate(args: argparse.Namespace) -> int:
    seed = args.seed if args.seed is not None else random.randrange(2**32)
    names = list(dict.fromkeys([REFERENCE, *args.platform])) if args.platform else None
    chosen = factories(names, args.worker, args.case_timeout, args.in_process)
    ledgers = [load_ledger(Path(p)) for p in getattr(args, "expectations", [])]
    known = known_causes(ledgers)
    stray = sorted(set(known) - {name for name, _ in chosen if name != REFERENCE})
    if stray:
        raise HarnessError(
            f"--expectations: a ledger for {', '.join(stray)}, not compared with the reference here"
        )
    platforms = start_all(chosen)
    try:
        by_name = {p.name: p for p in platforms}
        reference = by_name.get(REFERENCE)
        if reference is None or reference.implementation is None:
            raise HarnessError(f"the reference platform {REFERENCE} did not start")
        for p in platforms:
            if p.implementation is None:
                print(f"{p.name}: not compared ({p.failure})")
        print(f"hanzo-conformance generate --seed {seed}")
        for platform, causes in sorted(known.items()):
            print(f"{platform}: {len(causes)} known causes (ledger clusters) are not findings")
        total_findings = 0
        for domain in args.domain:
            others = [
                p
                for p in platforms
                if p is not reference
                and p.implementation is not None
                and domain in p.implementation.domains
            ]
            skipped = [
                p.name
                for p in platforms
                if p.implementation is not None and domain not in p.implementation.domains
            ]
            compared = ", ".join(p.name for p in others) or "no other platform"
            print(f"{domain}: {REFERENCE} (reference) vs {compared}")
            if skipped:
                print(f"  not implemented by: {', '.join(skipped)}")
            findings, search = run_domain(domain, reference, others, args, seed, known, ledgers)
            stats = search.stats
            print(
                f"  {stats.cases} generated cases in {stats.seconds:.2f} s "
                f"({stats.cases_per_second:,.0f}/s; {stats.drawn} inputs drawn, repeats "
                f"not run again), {stats.examples} examples"
                + (f"; properties {stats.property_seconds:.2f} s" if stats.property_seconds else "")
            )
            for name, count in sorted(stats.property_skipped.items()):
                print(f"  {name} answered skip (not applicable) to {count:,} property probes")
            for name, count in sorted(stats.skipped.items()):
                share = "all" if count == stats.cases else f"{count:,} of the {stats.cases:,}"
                print(f"  {name} answered skip (not applicable) to {share} cases: not compared")
            if stats.known:
                print(f"  {stats.known} answers diverged only in known causes (--expectations)")
            if stats.known_cases:
                print(
                    f"  {stats.known_cases} answers were to inputs of vectors a ledger records "
                    "(--expectations; run gates them)"
                )
            for finding in findings:
                print("\n".join(_describe_finding(finding)))
                refused = not_a_vector_input(finding)
                if refused:
                    print(f"    (no candidate: {refused})")
                    continue
                if args.no_write:
                    continue
                case = as_case(finding, seed, _candidate_clauses(search, finding))
                if case is None:
                    print("    (no candidate: the reference has no answer to expect)")
                    continue
                written = write_candidate(case, domain, corpus_dir(args), candidates_folder(args))
                print(
                    f"    candidate {case['id']} written to {written}"
                    if written
                    else "    (an equal case already exists; not written again)"
                )
            if not findings:
                print("  no disagreement, every property held")
            if args.report:
                print("\n".join(coverage_lines(domain, _corpus(domain, corpus_dir(args)), stats)))
            total_findings += len(findings)
        return 1 if total_findings else 0
    finally:
        stop_all(platforms)


__all__: list[Any] = ["case_tmpdir", "contract_clauses", "coverage_lines", "generate", "run_domain"]
