"""pytest plugin: one test per (domain, case, platform), collected from vector files.

    pytest vectors/ --platform rust -k crlf -x
    pytest -m "platform_js and domain_sse-frames"
    pytest -n auto --junitxml=report.xml

Vector files are collected only where a project asks for them: every ``*.json``
under the folders of the ini option ``hanzo_conformance_vectors`` (this project's
pyproject.toml names ``vectors``) or under a ``--vectors`` path; a ``vectors/``
folder of any other project is left alone. Test ids read
``vectors/sse-frames.json::sse-frames::<case>[<platform>]``; each test carries the
markers ``platform_<platform>`` and ``domain_<domain>`` (select with ``-m``: unlike a
``-k`` substring, ``-m platform_js`` cannot match ``.json``) and its case's tags as
``-k`` keywords.

Each item reports its own outcome, but items run in batches: the first item of a
(vector file, platform) to run also runs the next selected items of that pair this
process will run (``--batch-cases``, see runners/run/pytest_batches.py).
"""

from __future__ import annotations

import contextlib
import json
import signal
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from . import _options as opt
from .exceptions import VectorFileError
from .gate import pytest_ledger
from .gate.verdict import in_shard
from .judge.marks import ClauseMarks
from .judge.outcomes import Outcome
from .reports import skips
from .reports.text import render_problem
from .run import signals
from .run.batches import StartedPlatform, start_platform
from .run.platforms import describe, factories, stop_all
from .run.pytest_batches import Batcher
from .vectors.load import CANDIDATES_DIR, Case, VectorFile, load_vector_file
from .vectors.schemas import extra_schema_dirs

if TYPE_CHECKING:
    from _pytest._code.code import TerminalRepr

_POOL = pytest.StashKey["PlatformPool"]()
_CASE_OWNERS = pytest.StashKey[dict[tuple[str, str], Path]]()
VECTORS_INI = "hanzo_conformance_vectors"
_CLEANUP = pytest.StashKey[contextlib.ExitStack]()
_BATCHER = pytest.StashKey[Batcher]()


class PlatformPool:
    """Platforms of this pytest process, each started on first use and stopped at the end."""

    def __init__(self, config: pytest.Config) -> None:
        opt = config.option
        self.chosen = dict(
            factories(opt.hc_platforms, opt.hc_workers, opt.hc_case_timeout, opt.hc_in_process)
        )
        self.started: dict[str, StartedPlatform] = {}

    def get(self, name: str) -> StartedPlatform:
        if name not in self.started:
            self.started[name] = start_platform(name, self.chosen[name])
        return self.started[name]

    def stop(self) -> None:
        stop_all(list(self.started.values()))
        self.started.clear()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addini(
        VECTORS_INI,
        type="paths",
        default=[],
        help="folders or files whose *.json vector files this project runs (relative to the ini)",
    )
    group = parser.getgroup("hanzo-conformance", "cross-platform conformance vectors")
    opt.PLATFORM.add_to_pytest(group)
    opt.DOMAIN.add_to_pytest(group, help="collect only this domain's vectors (repeatable)")
    opt.VECTORS.add_to_pytest(group, help="also collect this vector file or folder (repeatable)")
    opt.SCHEMAS.add_to_pytest(group)
    opt.WORKER.add_to_pytest(group)
    opt.CASE_TIMEOUT.add_to_pytest(group)
    opt.BATCH_CASES_OPTION.add_to_pytest(group)
    opt.IN_PROCESS.add_to_pytest(group)
    opt.EXPECTATIONS.add_to_pytest(group)
    opt.SHARD.add_to_pytest(
        group,
        help="run only shard I of N of the vector cases (split as `hanzo-conformance run --shard`)",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """``--shard I/N``: deselect the cases of other shards (harness tests always run)."""
    if not config.option.hc_shard:
        return
    shard = config.option.hc_shard
    if isinstance(shard, str):  # not checked in this process (an xdist worker's own parse)
        shard = opt.SHARD.checked(shard)
    keep: list[pytest.Item] = []
    drop: list[pytest.Item] = []
    for item in items:
        case = getattr(item, "case", None)
        outside = isinstance(case, Case) and not in_shard(case.domain, case.id, shard)
        (drop if outside else keep).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> int | None:
    """Bad values exit 2 before anything runs, as in the CLI (README "Exit codes")."""
    problem = opt.pytest_problem(config.option)
    if problem is None:
        return None
    sys.stderr.write(f"hanzo-conformance: {problem}\n")
    return 2


def _interrupt(signum: int, _frame: object) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def pytest_configure(config: pytest.Config) -> None:
    config.stash[_POOL] = PlatformPool(config)
    config.pluginmanager.register(_Groups(config), "hanzo-conformance-groups")
    config.stash[_CASE_OWNERS] = {}
    for name in config.stash[_POOL].chosen:
        _register_marker(config, platform_marker(name), f"cases run on the {name} platform")
    # Workers run in sessions of their own, so a SIGTERM to pytest's process group does not
    # reach them: let SIGTERM end the session like Ctrl-C, which stops them (unconfigure).
    if (
        threading.current_thread() is threading.main_thread()
        and signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
    ):
        previous = signals.install(_interrupt, (signal.SIGTERM,))
        config.add_cleanup(lambda: signals.restore(previous))
    cleanup = config.stash[_CLEANUP] = contextlib.ExitStack()
    cleanup.enter_context(extra_schema_dirs([Path(d) for d in config.option.hc_schemas]))
    # --vectors paths are collected like paths given on the command line.
    config.args.extend(str(Path(p)) for p in config.option.hc_vectors)
    pytest_ledger.configure(config)


def pytest_sessionstart(session: pytest.Session) -> None:
    session.config.stash[_BATCHER] = Batcher(session, session.config.option.hc_batch_cases)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    # A signal during a batch: the items whose cases had finished report (as they would
    # have without batching), then the session stops.
    yield
    batcher = item.config.stash.get(_BATCHER, None)
    if batcher is not None:
        batcher.after(nextitem)


class _Groups:
    """Skip reasons and partial answers, grouped as the reports group them
    (``runners.reports.skips``): at the end of the terminal summary, and as properties
    of the JUnit XML's test suite. Built from the reports (on the controller under
    xdist: the fields travel in each report's user properties)."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.found = skips.Incomplete()

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when != "call":
            return
        props = dict(report.user_properties)
        status = props.get("status")
        if status not in ("skip", "partial") or "domain" not in props:
            return
        result = {
            "status": status,
            "platform": props["platform"],
            "domain": props["domain"],
            "case": props["case"],
            "message": props.get("reason"),
            "absent": json.loads(str(props.get("absent", "[]"))),
        }
        if props.get("recorded"):
            result["expectation"] = {}
        self.found.add(result)

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        """Before the XML is written (its own sessionfinish)."""
        try:
            from _pytest.junitxml import xml_key
        except ImportError:  # a pytest without it: each case's XML keeps its own reason
            return
        xml = self.config.stash.get(xml_key, None)
        if xml is None:
            return
        groups = self.found.to_json()
        for g in groups["skips"]:
            xml.add_global_property(
                f"skip [{g['platform']}] {g['domain']}",
                f"{g['count']}: {g['reason']} (e.g. {', '.join(g['cases'])})",
            )
        for g in groups["partials"]:
            xml.add_global_property(
                f"partial [{g['platform']}] {g['domain']}",
                f"{g['count']}: not compared (declared absent): "
                f"{skips.fields_text(g['absent'])} (e.g. {', '.join(g['cases'])})",
            )

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        sections = skips.render_text(self.found.to_json())
        if sections:
            terminalreporter.write_sep("=", "hanzo-conformance skips and partial answers")
            for section in sections:
                terminalreporter.write_line(section)


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    """Platform-level records, shown once: start failures (with stderr), cutoffs, problems."""
    pool = config.stash.get(_POOL, None)
    if pool is None:
        return
    lines = []
    for name, platform in pool.started.items():
        info = describe(platform)
        if "failure" in info:
            lines.append(f"{name}: UNAVAILABLE: {info['failure']}")
            lines.extend("    " + line for line in info.get("detail", "").splitlines()[-15:])
        if "broken" in info:
            lines.append(f"{name}: BROKEN: {info['broken']}")
        for p in info.get("problems", []):
            lines.append(f"{name}: PROBLEM ({p['kind']}): {p['message']}")
            lines.extend("    " + line for line in p["detail"].splitlines()[:5])
    if lines:
        terminalreporter.write_sep("=", "hanzo-conformance platforms")
        for line in lines:
            terminalreporter.write_line(line)


def pytest_unconfigure(config: pytest.Config) -> None:
    pool = config.stash.get(_POOL, None)
    if pool is not None:
        pool.stop()
    cleanup = config.stash.get(_CLEANUP, None)
    if cleanup is not None:
        cleanup.close()


def platform_marker(platform: str) -> str:
    return f"platform_{platform}"


def domain_marker(domain: str) -> str:
    return f"domain_{domain}"


def _register_marker(config: pytest.Config, name: str, meaning: str) -> None:
    # --strict-markers accepts only registered names; these are known only at run time.
    if name not in {line.split(":", 1)[0].strip() for line in config.getini("markers")}:
        config.addinivalue_line("markers", f"{name}: {meaning}")


def _vector_roots(config: pytest.Config) -> list[Path]:
    asked: list[Path] = list(config.getini(VECTORS_INI))
    return [p.resolve() for p in asked + [Path(v) for v in config.option.hc_vectors]]


def _is_vector_file(config: pytest.Config, file_path: Path) -> bool:
    if file_path.suffix != ".json":
        return False
    resolved = file_path.resolve()
    # Generated candidates are collected only when their folder is named itself.
    return any(
        resolved == root
        or (
            root in resolved.parents and CANDIDATES_DIR not in resolved.relative_to(root).parts[:-1]
        )
        for root in _vector_roots(config)
    )


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    ledger = pytest_ledger.collect_file(file_path, parent)
    if ledger is not None:
        return ledger
    if _is_vector_file(parent.config, file_path):
        return VectorFileNode.from_parent(parent, path=file_path)
    return None


class VectorFileNode(pytest.File):
    def collect(self) -> Iterator[pytest.Item | pytest.Collector]:
        try:
            vector_file = load_vector_file(self.path)
        except VectorFileError as e:
            raise self.CollectError(
                "invalid vector file:\n  " + "\n  ".join(map(str, e.problems))
            ) from e
        domains = self.config.option.hc_domains
        if domains and vector_file.domain not in domains:
            return
        # Results are keyed by (domain, case): a second file reusing an id is not run.
        owners = self.config.stash[_CASE_OWNERS]
        reused = []
        for case in vector_file.cases:
            first = owners.get((vector_file.domain, case.id), self.path)
            if first != self.path:
                reused.append(
                    f"{self.path}: case {case.id!r}: id already used in {first} "
                    f"for domain {vector_file.domain}"
                )
        if reused:
            raise self.CollectError("invalid vector file:\n  " + "\n  ".join(reused))
        for case in vector_file.cases:
            owners[(vector_file.domain, case.id)] = self.path
        _register_marker(
            self.config, domain_marker(vector_file.domain), f"cases of {vector_file.domain}"
        )
        yield DomainNode.from_parent(self, name=vector_file.domain, vector_file=vector_file)


class DomainNode(pytest.Collector):
    def __init__(self, *, vector_file: VectorFile, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.vector_file = vector_file
        # Marked once here rather than on each item: `-m` and `-k` see a parent's markers.
        self.add_marker(domain_marker(vector_file.domain))

    def collect(self) -> Iterator[pytest.Item]:
        # One MarkDecorator per platform, shared by its items: pytest.mark's lookup (checked
        # against the registered markers) is then paid once, not once per item.
        platforms = {
            p: getattr(pytest.mark, platform_marker(p)) for p in self.config.stash[_POOL].chosen
        }
        for case in self.vector_file.cases:
            for platform, marker in platforms.items():
                yield CaseItem.from_parent(
                    self,
                    name=f"{case.id}[{platform}]",
                    case=case,
                    platform=platform,
                    marker=marker,
                    vector_file=self.vector_file,
                )


class CaseFailed(Exception):
    def __init__(self, outcome: Outcome) -> None:
        super().__init__(outcome.status)
        self.outcome = outcome


class CaseItem(pytest.Item):
    def __init__(
        self,
        *,
        case: Case,
        platform: str,
        vector_file: VectorFile,
        marker: pytest.MarkDecorator | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.case = case
        self.platform = platform
        self.vector_file = vector_file
        # `-k` matches a case's tags too; `-m` selects platform and domain (the parent's) exactly.
        self.extra_keyword_matches.update(case.tags)
        self.add_marker(marker or platform_marker(platform))

    def runtest(self) -> None:
        # The first item of a (file, platform) to run runs the next ones too (_pytest_batches).
        outcome, ran = self.config.stash[_BATCHER].outcome(self, self.config.stash[_POOL].get)
        if ran > 1:
            self.user_properties.append(("batch_cases", ran))  # its time is the batch's
        expected = pytest_ledger.judge(self.config, outcome, self.case)
        where = [("platform", self.platform), ("domain", self.case.domain), ("case", self.case.id)]
        if outcome.absent:
            self.user_properties.append(("absent", json.dumps(list(outcome.absent))))
        if expected is not None:
            if outcome.status == "partial":
                # A partial answer a ledger records: shown xfail with what it lacks.
                self.user_properties += [("status", "partial"), ("recorded", "yes"), *where]
                fields = skips.fields_text(outcome.absent)
                pytest.xfail(f"partial: not compared (declared absent): {fields}: {expected}")
            self.user_properties.append(("status", "xfail"))
            pytest.xfail(expected)  # a recorded divergence: reported xfail, never a pass
        self.user_properties.append(("status", outcome.status))
        if outcome.status in ("skip", "partial"):
            self.user_properties += [*where, ("reason", outcome.message or "not implemented")]
        if outcome.status == "skip":
            # The platform lacks this domain, or said the case does not apply to it (a
            # protocol skip): shown as a skip with the reason, never a pass.
            pytest.skip(outcome.message or "not implemented")
        if outcome.status != "pass":
            raise CaseFailed(outcome)

    def repr_failure(
        self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None
    ) -> str | TerminalRepr:
        if isinstance(excinfo.value, pytest_ledger.LedgerProblem):
            return str(excinfo.value)
        if isinstance(excinfo.value, CaseFailed):
            return render_problem(
                excinfo.value.outcome.to_json(),
                self.case.input,
                limit=50,
                case_info={"description": self.case.description, "clauses": self.case.clauses},
                marked=ClauseMarks.from_contracts().notes(self.case.domain, self.case.clauses),
            )
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, f"{self.case.domain}::{self.case.id}[{self.platform}]"
