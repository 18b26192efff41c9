"""Re-chunking: the shared table (tests/tables/variants.json), bounded and lazy expansion."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from runners.vectors.variants import (
    ALL_SPLITS_UP_TO,
    PREFERRED,
    PREFERRED_SPLITS,
    SPLIT_POINTS,
    VariantError,
    chunks_at,
    expand,
    split_points,
)

TABLE = json.loads(
    (Path(__file__).resolve().parent / "tables" / "variants.json").read_text(encoding="utf-8")
)


def test_the_table_states_the_limits_this_expander_uses():
    assert TABLE["limits"] == {
        "all_splits_up_to": ALL_SPLITS_UP_TO,
        "split_points": SPLIT_POINTS,
        "preferred_splits": PREFERRED_SPLITS,
        "preferred": sorted(PREFERRED, key=list(TABLE["limits"]["preferred"]).index),
    }


@pytest.mark.parametrize("entry", TABLE["cases"], ids=[c["name"] for c in TABLE["cases"]])
def test_variant_table(entry: dict[str, Any]) -> None:
    if "error" in entry:
        with pytest.raises(VariantError) as info:
            expand(entry["input"], entry["variants"])
        assert info.value.kind == entry["error"]
        return
    runs = expand(entry["input"], entry["variants"])
    assert next(runs) == (None, entry["input"])
    derived = list(runs)
    if "expansions" in entry:
        assert [{"name": n, "input": i} for n, i in derived] == entry["expansions"]
    else:
        assert [n for n, _ in derived] == entry["names"]
        (variant,) = entry["variants"]
        text = "".join(chunks_at(entry["input"], variant["path"]))
        assert chunks_at(derived[0][1], variant["path"]) == list(text)
        for name, derived_input in derived[1:]:
            k = int(name.removeprefix("split@"))
            assert chunks_at(derived_input, variant["path"]) == [text[:k], text[k:]]


def _naive_split_points(text: str) -> list[int]:
    """The contract read literally, materializing every list (docs/architecture.md)."""
    bounds = list(range(1, len(text)))
    if len(text) <= ALL_SPLITS_UP_TO:
        return bounds
    preferred = [k for k in bounds if text[k - 1] in PREFERRED or text[k] in PREFERRED]
    p, m = len(preferred), min(len(preferred), PREFERRED_SPLITS)
    taken = [preferred[i * p // m] for i in range(m)]
    others = [k for k in bounds if k not in taken]
    r = SPLIT_POINTS - m
    return sorted(taken + [others[(2 * j + 1) * len(others) // (2 * r)] for j in range(r)])


@settings(max_examples=60, deadline=None)
@given(
    st.text(
        alphabet=st.sampled_from("ab:\r\n\ufeff😀"), min_size=ALL_SPLITS_UP_TO - 2, max_size=900
    )
)
def test_split_points_follow_the_contract(text: str) -> None:
    points = split_points(text)
    assert points == _naive_split_points(text)
    expected_count = len(text) - 1 if len(text) <= ALL_SPLITS_UP_TO else SPLIT_POINTS
    assert len(points) == len(set(points)) == expected_count


def test_a_long_case_costs_a_bounded_number_of_runs_made_one_at_a_time():
    text = "data: " + "x" * 1_000_000 + "\n\n"
    runs = expand({"chunks": [text]}, [{"kind": "rechunk", "path": "/chunks"}])
    assert next(runs)[0] is None
    assert next(runs)[0] == "one-per-chunk"  # made now, not before
    assert sum(1 for _ in runs) == SPLIT_POINTS
