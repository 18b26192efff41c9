"""The expectations ledger under pytest (``--expectations PATH``), judged as the CLI judges it.

Each ledger file is collected like a vector file: loading it is collection (an
invalid ledger is a collection error, exit 2 as in the CLI), and one test item
checks its entries against every collected case (unknown case, changed hash,
expired entry, a platform not selected). Each case item then asks ``judge``:
a recorded divergence becomes ``xfail``; a stale or changed entry fails the item
with the ledger's message.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ..judge.keys import case_key
from ..judge.outcomes import Outcome
from ..vectors.load import Case
from .ledger import GateProblem, Ledger, LedgerFileError, apply_ledgers, load_ledger

_LEDGERS = pytest.StashKey[dict[Path, Ledger]]()
ENTRY_PROBLEMS = ("expired", "unknown-case", "changed-hash", "unknown-platform")


class LedgerProblem(Exception):
    """The ledger's messages for one item (stale, changed, or entry problems)."""


def configure(config: pytest.Config) -> None:
    config.stash[_LEDGERS] = {}
    config.args.extend(str(Path(p)) for p in config.option.hc_expectations)


def _ledger_paths(config: pytest.Config) -> set[Path]:
    return {Path(p).resolve() for p in config.option.hc_expectations}


def collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if file_path.resolve() in _ledger_paths(parent.config):
        return LedgerFile.from_parent(parent, path=file_path)
    return None


class LedgerFile(pytest.File):
    def collect(self) -> Iterator[pytest.Item]:
        try:
            ledger = load_ledger(self.path)
        except LedgerFileError as e:
            raise self.CollectError(str(e)) from e
        self.config.stash[_LEDGERS][self.path.resolve()] = ledger
        yield LedgerEntriesItem.from_parent(self, name="entries", ledger=ledger)


class LedgerEntriesItem(pytest.Item):
    """Every entry names a case, hash and platform that exist, and none has expired."""

    def __init__(self, *, ledger: Ledger, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.ledger = ledger

    def runtest(self) -> None:
        known: dict[str, str] = {}
        domains: set[str] = set()
        platforms: set[str] = set()
        for item in self.session.items:
            case = getattr(item, "case", None)
            if isinstance(case, Case):
                known[case_key(case.domain, case.id)] = case.content_hash()
                domains.add(case.domain)
                platforms.add(item.platform)  # type: ignore[attr-defined]
        # Entries of domains not collected in this session are not judged here.
        doc: dict[str, Any] = {
            "summary": {"platforms": {name: {} for name in platforms}},
            "results": [],
        }
        problems = [
            p
            for p in apply_ledgers(doc, [self.ledger], known)
            if p.kind in ENTRY_PROBLEMS and _in_collected_domain(p, domains)
        ]
        if problems:
            raise LedgerProblem("\n".join(p.message for p in problems))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, LedgerProblem):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, f"expectations {self.ledger.platform}"


def _in_collected_domain(problem: GateProblem, domains: set[str]) -> bool:
    if problem.kind != "unknown-case":
        return True
    return any(f" names case {d}::" in problem.message for d in domains)


def judge(config: pytest.Config, outcome: Outcome, case: Case) -> str | None:
    """The xfail reason if a ledger records this outcome; raises LedgerProblem if it is wrong."""
    ledgers = [
        ledger
        for ledger in config.stash.get(_LEDGERS, {}).values()
        if ledger.platform == outcome.platform
    ]
    if not ledgers:
        return None
    result = outcome.to_json()
    doc: dict[str, Any] = {"summary": {"platforms": {outcome.platform: {}}}, "results": [result]}
    known = {case_key(case.domain, case.id): case.content_hash()}
    problems = [
        p
        for p in apply_ledgers(doc, ledgers, known)
        if p.kind in ("stale", "changed") and case_key(case.domain, case.id) in p.message
    ]
    if problems:
        raise LedgerProblem("\n".join(p.message for p in problems))
    if result["status"] == "xfail" or (result["status"] == "partial" and "expectation" in result):
        return str(result["expectation"]["reason"])
    return None
