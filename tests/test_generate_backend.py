"""The search's Hypothesis backend (runners.generate.backend): new records, steering, fallback."""

from __future__ import annotations

import random
from typing import Any

import pytest

pytest.importorskip("hypothesis", reason="hypothesis is in the test extra")

from hypothesis.internal.conjecture.providers import AVAILABLE_PROVIDERS

import strategies
from adapters.python import PythonAdapter
from runners import _gc
from runners.generate import backend as _generate_backend
from runners.generate import search as _generate
from runners.generate.search import EncodedInput, Search, _drive, input_batches
from runners.run.batches import start_platform

SEED = 12347


class _Counting:
    """A Prefetch that sends nothing: records every input drawn, in order."""

    def __init__(self) -> None:
        self.drawn: list[str] = []
        self.seen: set[str] = set()

    def open_batch(self) -> int | None:
        return 1

    def send(self, ticket: int, inputs: list[Any]) -> list[Any]:
        return []

    def first_time(self, case_input: Any) -> bool:
        key = case_input.json if type(case_input) is EncodedInput else repr(case_input)
        self.drawn.append(key)
        if key in self.seen:
            return False
        self.seen.add(key)
        return True


def _draws(domain: str, examples: int, seed: int) -> _Counting:
    counting = _Counting()
    module = strategies.load(domain)
    _drive(input_batches(module, 64, counting), lambda _inputs: None, examples, seed)
    return counting


def test_each_example_draws_new_records_and_a_seed_the_same_ones(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fresh = _draws("session-compaction", 30, SEED)
    # The first example is the all-zero batch (one input); every later one is new.
    assert len(fresh.seen) > 0.9 * len(fresh.drawn), (len(fresh.seen), len(fresh.drawn))
    assert _draws("session-compaction", 30, SEED).drawn == fresh.drawn
    assert _draws("session-compaction", 30, SEED + 1).drawn != fresh.drawn

    # On the plain backend, Hypothesis's novel prefixes and mutations repeat most records.
    monkeypatch.setattr(_generate, "backend", lambda: "hypothesis")
    plain = _draws("session-compaction", 30, SEED)
    assert len(plain.seen) < 0.5 * len(plain.drawn), (len(plain.seen), len(plain.drawn))


def test_a_byte_string_is_one_draw_from_the_seeded_random() -> None:
    provider = _generate_backend.RecordProvider(None)
    provider._random = random.Random(7)
    assert provider.draw_bytes(48, 48) == random.Random(7).randbytes(48)


def test_steering_varies_recent_rare_records_a_few_bytes_each() -> None:
    steering = _generate_backend.Steering()
    rng = random.Random(3)
    assert steering.vary(rng, 30) is None  # nothing offered yet
    steering.offer(b"\x00" * 10, 0.0)  # a score of 0 touched nothing rare
    assert all(steering.vary(rng, 30) is None for _ in range(100))
    steering.offer(bytes(range(10)), 2.5)
    variants = [v for v in (steering.vary(rng, 30) for _ in range(400)) if v is not None]
    assert 25 <= len(variants) <= 75  # about SHARE of the draws
    assert steering.varied == len(variants)
    for variant in variants:
        assert len(variant) == 30
        for at in range(0, 30, 10):
            changed = sum(a != b for a, b in zip(variant[at : at + 10], range(10), strict=True))
            assert changed <= steering.CHANGES
    assert any(v != bytes(range(10)) * 3 for v in variants)
    assert all(steering.vary(rng, 25) is None for _ in range(100))  # not whole records


def test_steering_reaches_a_rarely_touched_clause_more_often(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # target()'s job on the search's backend: SSE-2 (a BOM) is touched by about 2.5% of
    # random sse-frames inputs; steered, by several times more. Unsteered, the same
    # search (same seed) touches it as often as random draws do.
    def rate(share: float) -> float:
        monkeypatch.setattr(_generate_backend.Steering, "SHARE", share)
        reference = start_platform("python", PythonAdapter())
        other = start_platform("python2", PythonAdapter())
        search = Search("sse-frames", reference, [other])
        assert search.search(40, SEED, 256) is None
        return search.stats.clause_hits["SSE-2"] / search.stats.cases

    steered, unsteered = rate(_generate_backend.Steering.SHARE), rate(0.0)
    assert unsteered < 0.05, unsteered
    assert steered > 2 * unsteered, (steered, unsteered)


def test_a_moved_hypothesis_falls_back_to_its_own_backend_with_a_warning(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delitem(AVAILABLE_PROVIDERS, _generate_backend.NAME, raising=False)
    monkeypatch.setattr(_generate_backend, "_fallback_warned", False)
    monkeypatch.setattr(_generate_backend, "_usable", lambda: "draw_bytes moved")
    with pytest.warns(RuntimeWarning, match=r"read from Hypothesis .*draw_bytes moved"):
        assert _generate_backend.backend() == "hypothesis"
    assert _generate_backend.backend() == "hypothesis"  # warned once
    assert _generate_backend.NAME not in AVAILABLE_PROVIDERS
    monkeypatch.undo()
    assert _generate_backend._usable() is None  # this Hypothesis is the one read
    assert _generate_backend.backend() == _generate_backend.NAME


@pytest.mark.parametrize("domain", ["session-compaction", "sse-frames", "backoff-timing"])
def test_an_input_decoded_with_its_text_has_the_encoders_text(domain: str) -> None:
    # A module's decode may write the input's JSON text itself (strategies.Encoded):
    # it must be exactly what the search would have encoded, for every record.
    module = strategies.load(domain)
    rng = random.Random(11)
    records = [bytes(module.RECORD), bytes([255]) * module.RECORD]
    records += [rng.randbytes(module.RECORD) for _ in range(3_000)]
    encoded = 0
    for record in records:
        case_input = module.decode(record)
        if type(case_input) is strategies.Encoded:
            encoded += 1
            assert case_input.json == strategies.encode_input(dict(case_input)), record.hex()
    if domain == "session-compaction":
        assert encoded == len(records)


def test_the_cyclic_collector_runs_seldom_during_a_search_and_as_before_after() -> None:
    import gc

    before = gc.get_threshold()
    during: list[tuple[int, int, int]] = []
    module = strategies.load("backoff-timing")
    _drive(input_batches(module, 8), lambda _inputs: during.append(gc.get_threshold()), 3, SEED)
    assert during and set(during) == {_gc.SELDOM}
    assert gc.get_threshold() == before


def test_a_hypothesis_without_the_internals_read_still_searches_on_its_own_backend(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import builtins
    import importlib.util

    real_import = builtins.__import__

    def without_providers(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "hypothesis.internal.conjecture.providers":
            raise ImportError("no module named providers")
        return real_import(name, *args, **kwargs)

    spec = importlib.util.spec_from_file_location("moved_backend", _generate_backend.__file__)
    assert spec is not None and spec.loader is not None
    moved = importlib.util.module_from_spec(spec)
    monkeypatch.setattr(builtins, "__import__", without_providers)
    spec.loader.exec_module(moved)
    monkeypatch.undo()
    with pytest.warns(RuntimeWarning, match="providers has moved"):
        assert moved.backend() == "hypothesis"
