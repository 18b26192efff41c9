"""Chaos: a worker that crashes, hangs, duplicates, garbles and answers out of order on a
seeded schedule (tests/fake_workers/chaos_worker.py). Whatever it does, every request
ends with exactly one response, never another request's answer; the run ends in
bounded time; no process survives.
"""

from __future__ import annotations

import json
import shlex
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import hello_case, vector_document
from fake_workers.chaos_worker import fault
from processes import survivors, within

from adapters.protocol import Request
from adapters.worker import WorkerAdapter
from runners._cli import main
from runners.vectors.schemas import results_validator

CHAOS = Path(__file__).resolve().parent / "fake_workers" / "chaos_worker.py"
TIMEOUT = 0.3
REQUESTS = 40


@pytest.mark.parametrize(("seed", "wrap"), [("1", False), ("2", True), ("3", False)])
def test_every_request_gets_exactly_its_own_outcome(tmp_path: Path, seed: str, wrap: bool) -> None:
    pids = tmp_path / "pids"
    argv = [sys.executable, str(CHAOS), seed, str(pids)]
    command = ["sh", "-c", shlex.join(argv) + "; true"] if wrap else argv
    # A high cutoff, so the schedule is played out instead of ending at the first streak.
    adapter = WorkerAdapter("chaos", command, timeout=TIMEOUT, broken_after=10_000)
    requests: list[Request] = [
        {"id": f"r{i}", "domain": "echo", "input": {"n": i}} for i in range(REQUESTS)
    ]
    faults = {r["id"]: fault(seed, r["id"]) for r in requests}
    assert {"crash", "hang", "duplicate", "garble", "swap"} & set(faults.values())
    hangs = sum(kind == "hang" for kind in faults.values())
    bound = hangs * (TIMEOUT + 2) + REQUESTS * 0.5 + 10

    began = time.monotonic()
    try:
        adapter.start()
        half = REQUESTS // 2  # two batches: stray lines between batches are exercised too
        responses = within(
            bound, lambda: adapter.run(requests[:half]) + adapter.run(requests[half:])
        )
    finally:
        within(10, adapter.stop)
    assert time.monotonic() - began < bound

    assert [r["id"] for r in responses] == [r["id"] for r in requests]
    for request, response in zip(requests, responses, strict=True):
        assert set(response) in ({"id", "output"}, {"id", "crash"}), response
        if "output" in response:  # never another request's answer
            assert response["output"] == {"echo": request["input"]}, (request, response)
        elif faults[request["id"]] in (None, "duplicate"):
            pytest.fail(f"{request['id']} did nothing wrong and got {response}")
    assert survivors(pids) == []


def test_through_the_cli_every_case_ends_with_exactly_one_outcome(
    capsys: pytest.CaptureFixture[str], write_vectors: Any, tmp_path: Path
) -> None:
    pids, results = tmp_path / "pids", tmp_path / "results.json"
    ids = [f"case-{i}" for i in range(12)]
    path = write_vectors(vector_document([hello_case(id=i) for i in ids]))  # with rechunking
    worker = "chaos=" + shlex.join([sys.executable, str(CHAOS), "7", str(pids)])
    argv = ["run", "--no-default-vectors", "--vectors", str(path), "--platform", "chaos"]
    argv += ["--worker", worker, "--case-timeout", str(TIMEOUT), "--format", "json"]
    code = within(120, lambda: main([*argv, "--output", str(results)]))
    capsys.readouterr()
    assert code == 1
    doc = json.loads(results.read_text(encoding="utf-8"))
    results_validator().validate(doc)
    assert [r["case"] for r in doc["results"]] == ids
    assert {r["status"] for r in doc["results"]} <= {"fail", "error"}
    assert survivors(pids) == []
