"""Every option of ``run``, ``generate`` and the pytest plugin, declared once with its check.

An :class:`Option` is a flag, where its value goes, its help, its default and its
check: a function that refuses a bad value with ``argparse.ArgumentTypeError``. The CLI
adds an option to a sub-command's parser (``Option.add``), where argparse runs the check
while parsing, so a bad value exits 2 before anything runs. The pytest plugin adds the
same option to its group (``Option.add_to_pytest``, ``hc_``-prefixed destinations, no
check: pytest would exit 4 on it) and runs every check when the command line is read
(``pytest_problem``), exiting 2 too (README "Exit codes"). A command that takes an option
takes it with the same check, whatever else differs (its help, whether it is required).
"""

from __future__ import annotations

import argparse
import math
import re
import shlex
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from adapters import registry
from adapters.served import IN_PROCESS_ENV, in_process

DEFAULT_CASE_TIMEOUT = 10.0
"""Seconds a case may take on a platform (not an --in-process one)."""
BATCH_CASES = 500
"""pytest: items of one vector file run on one platform together, at most (most run
together by default; bounded, so ``-x`` wastes little)."""


# -- checks: each refuses a bad value, at parse time ----------------------------------


def positive_seconds(text: str) -> float:
    """A finite number of seconds greater than 0 (``--case-timeout``)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be a finite number of seconds > 0, got {text!r}")
    return value


def non_negative_int(text: str) -> int:
    """An integer >= 0 (``--max-problems``)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {text!r}")
    return value


def positive_int(text: str) -> int:
    """An integer >= 1 (``--jobs``, ``--batch``, ``--max-examples``, ``--batch-cases``)."""
    value = any_int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, got {text!r}")
    return value


def any_int(text: str) -> int:
    """An integer (``--seed``)."""
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None


def worker_spec(text: str) -> str:
    """``NAME=COMMAND`` with a new platform name and a command that splits (shell-like)."""
    name, sep, command = text.partition("=")
    if not sep or not name or not command.strip():
        raise argparse.ArgumentTypeError(f"takes NAME=COMMAND, got {text!r}")
    if registry.is_platform(name):
        raise argparse.ArgumentTypeError(
            f"{name!r} is a built-in platform; give the worker another name, got {text!r}"
        )
    try:
        shlex.split(command)
    except ValueError as e:
        raise argparse.ArgumentTypeError(f"cannot split the command {command!r}: {e}") from None
    return text


def shard(text: str) -> tuple[int, int]:
    """``i/n`` with 1 <= i <= n (``--shard``)."""
    index, sep, count = text.partition("/")
    try:
        i, n = int(index), int(count)
    except ValueError:
        raise argparse.ArgumentTypeError(f"takes I/N (e.g. 2/4), got {text!r}") from None
    if not sep or n < 1 or not 1 <= i <= n:
        raise argparse.ArgumentTypeError(f"takes I/N with 1 <= I <= N, got {text!r}")
    return i, n


def existing_folder(text: str) -> Path:
    """A folder that exists (``--schemas``): a typo must not silently look nowhere."""
    path = Path(text)
    if not path.is_dir():
        raise argparse.ArgumentTypeError(f"no such folder: {text!r}")
    return path


def domain_name(text: str) -> str:
    """A kebab-case domain name (``--domain``): it names files and modules, never a path."""
    if not re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", text):
        raise argparse.ArgumentTypeError(f"not a domain name (kebab-case): {text!r}")
    return text


def twice_given(values: Iterable[tuple[str, Iterable[str]]]) -> str | None:
    """The problem with repeated options that give one name twice (two ``--worker`` specs
    for one name: the second would replace the first; a ``--platform`` or ``--domain``
    twice: every case would run twice), or None."""
    for flag, given in values:
        seen: set[str] = set()
        for value in given:
            name = value.partition("=")[0] if flag == WORKER.flag else value
            if name in seen:
                return f"argument {flag}: {name!r} is given twice"
            seen.add(name)
    return None


def repeated_names(args: Any, dest: Callable[[Option], str] = lambda o: o.dest) -> str | None:
    """``twice_given`` over the repeatable name options a command or the plugin has."""
    options = (WORKER, PLATFORM, DOMAIN)
    # Only where the option was given as the repeatable one (promote's domain is one name).
    values = ((o.flag, getattr(args, dest(o), None)) for o in options)
    return twice_given((flag, v) for flag, v in values if isinstance(v, list))


# -- the table ------------------------------------------------------------------------


@dataclass(frozen=True)
class Option:
    flag: str
    dest: str
    help: str
    check: Callable[[str], Any] | None = None
    default: Any = None
    metavar: str | None = None
    action: str | None = None  # "append" or "store_true"; None: one value
    plugin_dest: str | None = None  # pytest's destination, if not ``hc_<dest>``

    @property
    def pytest_dest(self) -> str:
        return self.plugin_dest or "hc_" + self.dest

    def _settings(self, **overrides: Any) -> dict[str, Any]:
        settings: dict[str, Any] = {"help": self.help}
        if self.action is not None:
            settings["action"] = self.action
        # A fresh list per parser: argparse appends to the default it is given.
        settings["default"] = list(self.default) if self.action == "append" else self.default
        if self.metavar is not None:
            settings["metavar"] = self.metavar
        settings.update(overrides)
        return settings

    def add(self, parser: argparse.ArgumentParser, **overrides: Any) -> None:
        """Add the option to a sub-command (``overrides``: its own help, ``required``)."""
        settings = self._settings(**overrides)
        if self.check is not None:
            settings["type"] = self.check
        parser.add_argument(self.flag, dest=self.dest, **settings)

    def add_to_pytest(self, group: Any, **overrides: Any) -> None:
        """Add the option to the plugin's group; ``pytest_problem`` checks its value."""
        group.addoption(self.flag, dest=self.pytest_dest, **self._settings(**overrides))

    def checked(self, value: Any) -> Any:
        """The value (each value of an appended option) as the check makes it; raises
        ``argparse.ArgumentTypeError``."""
        if self.check is None or value is None:
            return value
        if self.action == "append":
            return [self.check(str(v)) for v in value]
        return self.check(str(value))


PLATFORM = Option(
    "--platform",
    "platform",
    "only this platform: python, rust, js, or a --worker name (repeatable)",
    action="append",
    default=(),
    plugin_dest="hc_platforms",
)
DOMAIN = Option(
    "--domain",
    "domain",
    "only this domain (repeatable)",
    check=domain_name,
    action="append",
    default=(),
    plugin_dest="hc_domains",
)
VECTORS = Option(
    "--vectors",
    "vectors",
    "also load this vector file or folder (repeatable)",
    metavar="PATH",
    action="append",
    default=(),
    plugin_dest="hc_vectors",
)
SCHEMAS = Option(
    "--schemas",
    "schemas",
    "look for <domain>.schema.json here before schemas/ (repeatable)",
    check=existing_folder,
    metavar="DIR",
    action="append",
    default=(),
)
WORKER = Option(
    "--worker",
    "worker",
    "add an out-of-process platform speaking docs/protocol.md (a new name; "
    "COMMAND is split shell-like, not run by a shell)",
    check=worker_spec,
    metavar="NAME=COMMAND",
    action="append",
    default=(),
    plugin_dest="hc_workers",
)
CASE_TIMEOUT = Option(
    "--case-timeout",
    "case_timeout",
    f"per-case timeout, all but --in-process platforms (default {DEFAULT_CASE_TIMEOUT})",
    check=positive_seconds,
    default=DEFAULT_CASE_TIMEOUT,
    metavar="SECONDS",
)
IN_PROCESS = Option(
    "--in-process",
    "in_process",
    "run python and rust inside the harness, for debugging (no timeout or crash "
    f"isolation; same as {IN_PROCESS_ENV}=1)",
    default=False,
    action="store_true",
)
EXPECTATIONS = Option(
    "--expectations",
    "expectations",
    "a platform's expectations ledger: recorded divergences are xfail (repeatable)",
    metavar="PATH",
    action="append",
    default=(),
)
SHARD = Option(
    "--shard",
    "shard",
    "run only shard I of N (cases split deterministically by id)",
    check=shard,
    metavar="I/N",
)
MAX_PROBLEMS = Option(
    "--max-problems",
    "max_problems",
    "failures printed in full",
    check=non_negative_int,
    default=10,
)
JOBS = Option(
    "--jobs",
    "jobs",
    "split the vector files across N harness processes, each with its own "
    "platforms (default 1); the results and report are the same, in the same order",
    check=positive_int,
    default=1,
    metavar="N",
)
BATCH_CASES_OPTION = Option(
    "--batch-cases",
    "batch_cases",
    f"run at most N items of a vector file on a platform together (default {BATCH_CASES}; "
    "1: each item alone, its time its own)",
    check=positive_int,
    default=BATCH_CASES,
    metavar="N",
)
MAX_EXAMPLES = Option(
    "--max-examples",
    "max_examples",
    "Hypothesis examples per search",
    check=positive_int,
    default=200,
)
BATCH = Option("--batch", "batch", "inputs drawn per example", check=positive_int, default=256)
SEED = Option("--seed", "seed", "Hypothesis seed (default: random, printed)", check=any_int)

NO_DEFAULT_VECTORS = Option(
    "--no-default-vectors",
    "no_default_vectors",
    "load only --vectors, not the project's vectors/",
    default=False,
    action="store_true",
)
OUTPUT = Option("--output", "output", "write the results here", metavar="FILE")

RECORDED = (DOMAIN, CASE_TIMEOUT, IN_PROCESS)
"""The options of ``run`` that change its results, besides those recorded on their own
(platforms and workers: ``summary.platforms``; ledgers: ``summary.expectations``; vectors
and schemas: the vectors' version; the shard). ``run`` records them in
``summary.run.options`` (``recorded_options``), so that ``merge`` joins only shards run
alike. The others change how a run goes or reports (``--jobs``, ``--max-problems``,
``--format``, ``--quiet``), never a result."""


def recorded_options(args: Any) -> dict[str, Any]:
    """``summary.run.options``: each ``RECORDED`` option's value, by its flag without ``--``."""
    recorded: dict[str, Any] = {}
    for option in RECORDED:
        value = getattr(args, option.dest)
        if option.action == "append":
            value = sorted(value)  # the order they were given in changes nothing
        elif option is IN_PROCESS:
            value = in_process(value)  # the switch or its environment variable: what ran
        recorded[option.flag.removeprefix("--")] = value
    return recorded


PYTEST_OPTIONS = (
    PLATFORM,
    DOMAIN,
    VECTORS,
    SCHEMAS,
    WORKER,
    CASE_TIMEOUT,
    BATCH_CASES_OPTION,
    IN_PROCESS,
    EXPECTATIONS,
    SHARD,
)
"""The plugin's options (``--platform`` as ``hc_platforms``, ``--case-timeout`` as
``hc_case_timeout``, ...)."""


def pytest_problem(option_values: Any, options: Sequence[Option] = PYTEST_OPTIONS) -> str | None:
    """What is wrong with the plugin's option values (pytest's ``config.option``), checked
    as the CLI checks them; each good value is replaced by its checked form."""
    for option in options:
        try:
            value = option.checked(getattr(option_values, option.pytest_dest))
        except argparse.ArgumentTypeError as e:
            return f"argument {option.flag}: {e}"
        setattr(option_values, option.pytest_dest, value)
    return repeated_names(option_values, lambda o: o.pytest_dest)
