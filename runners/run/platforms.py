"""Choose platforms by name, plus any out-of-process worker given as NAME=COMMAND."""

from __future__ import annotations

import contextlib
import functools
import shlex
from collections.abc import Callable, Sequence
from typing import Any

from adapters import registry
from adapters.protocol import Adapter

from .._options import DEFAULT_CASE_TIMEOUT
from ..exceptions import UnknownPlatform
from .batches import StartedPlatform, start_platform


def parse_worker(spec: str) -> tuple[str, list[str]]:
    name, sep, command = spec.partition("=")
    if not sep or not name or not command.strip():
        raise ValueError(f"--worker takes NAME=COMMAND, got {spec!r}")
    return name, shlex.split(command)


def factories(
    names: Sequence[str] | None,
    workers: Sequence[str] = (),
    case_timeout: float = DEFAULT_CASE_TIMEOUT,
    in_process: bool = False,
) -> list[tuple[str, Callable[[], Adapter]]]:
    """(name, factory) for each selected platform; all built-in ones when names is empty.

    ``in_process`` runs python and rust inside the harness (debugging; adapters/served.py).
    """
    chosen: list[tuple[str, Callable[[], Adapter]]] = []
    extra = dict(parse_worker(w) for w in workers)
    for name in names or [n for n in registry.platform_names() if n not in extra]:
        if name in extra:
            continue
        if not registry.is_platform(name):
            raise UnknownPlatform(name, [*registry.platform_names(), *extra])
        built_in = functools.partial(
            registry.create, name, timeout=case_timeout, in_process=in_process
        )
        chosen.append((name, built_in))
    for name, command in extra.items():
        factory = registry.worker_factory(name, command)
        chosen.append((name, functools.partial(registry.build, factory, timeout=case_timeout)))
    return chosen


def start_all(chosen: Sequence[tuple[str, Callable[[], Adapter]]]) -> list[StartedPlatform]:
    return [start_platform(name, factory) for name, factory in chosen]


def describe(platform: StartedPlatform) -> dict[str, Any]:
    """The platform's record in ``summary.platforms`` (results.schema.json)."""
    impl = platform.implementation
    if impl is None:
        info: dict[str, Any] = {"failure": platform.failure or "did not start"}
        if platform.detail:
            info["detail"] = platform.detail
        return info
    info = {
        "implementation": impl.name,
        "version": impl.version,
        "language": impl.language,
        "domains": sorted(impl.domains),
    }
    commit = impl.commit or _builtin_commit(platform.name)
    if commit:
        info["commit"] = commit
    if impl.absent:  # what its partial answers lack, as its handshake declared
        info["absent"] = {domain: list(fields) for domain, fields in sorted(impl.absent.items())}
    # Worker platforms: protocol problems that were no case's fault, and the cutoff.
    if platform.adapter is not None and platform.adapter.problems:
        info["problems"] = [dict(p) for p in platform.adapter.problems]
    if platform.adapter is not None and platform.adapter.broken:
        info["broken"] = platform.adapter.broken
    return info


def _builtin_commit(name: str) -> str | None:
    """A built-in platform is built from this checkout: its commit is the checkout's."""
    from ..reports.meta import git_commit

    return git_commit() if name in registry.BUILTIN else None


def stop_all(platforms: Sequence[StartedPlatform]) -> None:
    for p in platforms:
        if p.adapter is not None:
            # Stopping is best effort: the results are already recorded.
            with contextlib.suppress(Exception):
                p.adapter.stop()
