"""Under pytest, one platform's items of one vector file run as a batch, each reporting alone.

An item whose outcome is not known yet runs itself together with the items of the
same (vector file, platform) that this process is about to run, at most
``batch_cases`` of them, through :func:`runners.run.batches.run_cases` (the CLI's batched
runner, with its per-case attribution of crashes, hangs and timeouts); the other
outcomes wait on their items until those run. "About to run" is every later item
of ``session.items`` (pytest runs them in that order), or under pytest-xdist only
the items the controller has already sent to this worker (its queue), so a worker
never runs another worker's items (under ``--dist worksteal``, an item stolen after
its batch ran is run again by the thief). What pytest deselected (``-k``, ``-m``,
``--shard``, ``--lf``) is not in ``session.items``, so it never runs; after ``-x``
stops a session, outcomes fetched ahead are dropped unreported. An outcome is used
once: an item run again (a rerun plugin) runs again.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

import pytest

from .._options import BATCH_CASES
from ..judge.outcomes import Outcome
from ..vectors.load import Case, VectorFile
from .batches import StartedPlatform, run_cases


class BatchedItem(Protocol):
    """What the batcher needs of a case item (``pytest_plugin.CaseItem``)."""

    case: Case
    platform: str
    vector_file: VectorFile
    session: pytest.Session
    config: pytest.Config


class Batcher:
    """Outcomes fetched ahead, per item, for one pytest session (or xdist worker)."""

    def __init__(self, session: pytest.Session, batch_cases: int = BATCH_CASES) -> None:
        self.session = session
        self.batch_cases = batch_cases
        self.fetched: dict[int, Outcome] = {}  # id(item) -> its outcome, not yet reported
        # A signal that came while a batch ran: raised again once the items whose cases
        # had finished have reported (``after``), as they would have without batching.
        self.interrupted: BaseException | None = None
        self._groups: dict[tuple[str, int], list[Any]] | None = None
        self._place: dict[int, tuple[tuple[str, int], int, int]] = {}  # group, position, index

    def outcome(
        self, item: BatchedItem, platform: Callable[[str], StartedPlatform]
    ) -> tuple[Outcome, int]:
        """The item's outcome and how many cases ran for it now (0: fetched ahead earlier)."""
        found = self.fetched.pop(id(item), None)
        if found is not None:
            return found, 0
        batch = self._batch(item)
        try:
            outcomes = run_cases(platform(item.platform), item.vector_file, [i.case for i in batch])
        except BaseException as exc:  # a signal: the items whose cases finished report first
            finished = {o.case: o for o in getattr(exc, "outcomes", [])}
            for other in batch[1:]:
                if other.case.id in finished:
                    self.fetched[id(other)] = finished[other.case.id]
            if item.case.id not in finished:
                raise
            self.interrupted = exc
            return finished[item.case.id], len(batch)
        for other, outcome in zip(batch[1:], outcomes[1:], strict=True):
            self.fetched[id(other)] = outcome
        return outcomes[0], len(batch)

    def after(self, nextitem: pytest.Item | None) -> None:
        """After an item reported: a signal stops the session here unless ``nextitem`` finished."""
        exc = self.interrupted
        if exc is not None and (nextitem is None or id(nextitem) not in self.fetched):
            self.interrupted = None
            raise exc

    def _batch(self, item: BatchedItem) -> Sequence[BatchedItem]:
        """The item, then up to BATCH_CASES - 1 later items of its group this process will run."""
        self._index()
        place = self._place.get(id(item))
        if place is None or self._groups is None:
            return [item]  # not in session.items: run alone
        key, position, _ = place
        group = self._groups[key]
        upcoming = _xdist_queue(item.config)
        batch: list[Any] = [item]
        for other in group[position + 1 :]:
            if len(batch) >= self.batch_cases:
                break
            if id(other) in self.fetched:
                continue
            if upcoming is not None and self._place[id(other)][2] not in upcoming:
                continue
            batch.append(other)
        return batch

    def _index(self) -> None:
        if self._groups is not None:
            return
        self._groups = {}
        for index, item in enumerate(self.session.items):
            vector_file = getattr(item, "vector_file", None)
            if not isinstance(vector_file, VectorFile) or not isinstance(
                getattr(item, "case", None), Case
            ):
                continue
            key = (item.platform, id(vector_file))  # type: ignore[attr-defined]
            group = self._groups.setdefault(key, [])
            self._place[id(item)] = (key, len(group), index)
            group.append(item)


def _xdist_queue(config: pytest.Config) -> set[int] | None:
    """Under pytest-xdist, the indices (in session.items) this worker was sent and has not run.

    None outside a worker: then every later item of session.items runs here.
    """
    if not hasattr(config, "workerinput"):
        return None
    for plugin in config.pluginmanager.get_plugins():
        torun = getattr(plugin, "torun", None)
        if torun is not None and hasattr(plugin, "nextitem_index") and hasattr(torun, "lock"):
            with torun.lock() as queued:
                pending = {i for i in queued if isinstance(i, int)}
            following = plugin.nextitem_index
            if isinstance(following, int):
                pending.add(following)
            return pending
    return set()  # an xdist we do not know: batch nothing ahead rather than another's items
