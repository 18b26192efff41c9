"""The JS worker answers a slow batch case by case: a batch of hook cases taking
longer in total than the per-case limit still passes (worker.mjs flushes answers
held longer than 100 ms instead of holding a whole stdin chunk's answers)."""

from __future__ import annotations

from pathlib import Path

from adapters import js
from runners import load_vector_file

ROOT = Path(__file__).resolve().parents[1]


def test_a_batch_longer_than_the_case_limit_is_answered_in_time() -> None:
    case = next(
        c
        for c in load_vector_file(ROOT / "vectors" / "hooks.json").cases
        if c.id == "timeout-shell-sleep"  # one 200 ms hook timeout per case
    )
    batch = [{"id": f"slow-{i}", "domain": "hooks", "input": case.input} for i in range(12)]
    adapter = js.create(timeout=1.5)  # the batch takes well over 2.4 s in total
    adapter.start()
    try:
        responses = adapter.run(batch)
    finally:
        adapter.stop()
    assert [r["id"] for r in responses] == [r["id"] for r in batch]
    assert all(r.get("output") == case.expected for r in responses), responses[0]
