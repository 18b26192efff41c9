"""WorkerAdapter survives its worker: every request ends with a response.

The fake worker (tests/fake_workers/fake_worker.py) misbehaves on one chosen
case; that case must get a precise ``crash`` and every other case of the batch
its normal answer, from a restarted worker where needed.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from adapters.protocol import Request, Response
from adapters.worker import WorkerAdapter, WorkerStartError

ROOT = Path(__file__).resolve().parent.parent
FAKE = Path(__file__).resolve().parent / "fake_workers" / "fake_worker.py"
FAST = 0.5  # per-case timeout for the fakes, seconds


def fake(*switches: str, timeout: float = FAST, **kwargs: Any) -> WorkerAdapter:
    return WorkerAdapter("fake", [sys.executable, str(FAKE), *switches], timeout=timeout, **kwargs)


@pytest.fixture
def batch() -> list[Request]:
    return [{"id": f"c{i}", "domain": "echo", "input": {"n": i}} for i in range(6)]


@pytest.fixture
def adapter_factory() -> Iterator[Any]:
    made: list[WorkerAdapter] = []

    def make(*switches: str, **kwargs: Any) -> WorkerAdapter:
        adapter = fake(*switches, **kwargs)
        made.append(adapter)
        return adapter

    yield make
    for adapter in made:
        adapter.stop()


def assert_echoed(responses: list[Response], batch: list[Request], *, except_ids: set[str]) -> None:
    assert [r["id"] for r in responses] == [r["id"] for r in batch]
    for request, response in zip(batch, responses, strict=True):
        if request["id"] not in except_ids:
            assert response == {"id": request["id"], "output": {"echo": request["input"]}}


def crash_of(response: Response) -> dict[str, str]:
    assert "crash" in response, response
    return response["crash"]  # type: ignore[typeddict-item]


def test_healthy_worker_answers_outputs_and_errors(adapter_factory: Any) -> None:
    adapter = adapter_factory()
    implementation = adapter.start()
    assert implementation.name == "fake"
    assert implementation.domains == frozenset({"echo", "fail"})
    responses = adapter.run(
        [
            {"id": "a", "domain": "echo", "input": [1, "two"]},
            {"id": "b", "domain": "fail", "input": None},
        ]
    )
    assert responses == [
        {"id": "a", "output": {"echo": [1, "two"]}},
        {"id": "b", "error": {"code": "fake_error", "message": "as requested"}},
    ]
    assert adapter.restarts == 0


def test_big_pipelined_batch_does_not_deadlock(adapter_factory: Any) -> None:
    # ~4 MB each way, far beyond the pipe buffers: only pipelining gets through.
    adapter = adapter_factory(timeout=10.0)
    adapter.start()
    payload = "x" * 2000
    requests: list[Request] = [
        {"id": f"big{i}", "domain": "echo", "input": payload} for i in range(2000)
    ]
    responses = adapter.run(requests)
    assert len(responses) == 2000
    assert all(
        r == {"id": q["id"], "output": {"echo": payload}}
        for q, r in zip(requests, responses, strict=True)
    )


def test_worker_exits_mid_batch(adapter_factory: Any, batch: list[Request]) -> None:
    adapter = adapter_factory("--crash-on", "c2", "--exit-code", "3")
    adapter.start()
    responses = adapter.run(batch)
    failure = crash_of(responses[2])
    assert failure["message"] == "worker exited with code 3 while running case c2"
    assert "fake worker: dying on c2" in failure["detail"]
    assert_echoed(responses, batch, except_ids={"c2"})
    assert adapter.restarts == 1


def test_stderr_before_dying_is_in_the_detail(adapter_factory: Any, batch: list[Request]) -> None:
    adapter = adapter_factory("--raise-on", "c4")
    adapter.start()
    responses = adapter.run(batch)
    failure = crash_of(responses[4])
    assert failure["message"] == "worker exited with code 1 while running case c4"
    assert "Traceback (most recent call last)" in failure["detail"]
    assert "RuntimeError: unexpected trouble in c4" in failure["detail"]
    assert_echoed(responses, batch, except_ids={"c4"})


def test_worker_hangs_on_one_case(adapter_factory: Any, batch: list[Request]) -> None:
    adapter = adapter_factory("--hang-on", "c1")
    adapter.start()
    began = time.monotonic()
    responses = adapter.run(batch)
    assert time.monotonic() - began < 5 * FAST + 3  # one timeout, not one per case
    assert crash_of(responses[1])["message"] == f"no response within {FAST} s for case c1"
    assert_echoed(responses, batch, except_ids={"c1"})
    assert adapter.restarts == 1


def test_worker_writes_garbage(adapter_factory: Any, batch: list[Request]) -> None:
    adapter = adapter_factory("--garbage-on", "c3")
    adapter.start()
    responses = adapter.run(batch)
    message = crash_of(responses[3])["message"]
    assert message.startswith("worker wrote invalid JSON while running case c3: ")
    assert "'this is not JSON {'" in message
    assert_echoed(responses, batch, except_ids={"c3"})
    assert adapter.restarts == 1


def test_worker_answers_the_wrong_id(adapter_factory: Any, batch: list[Request]) -> None:
    adapter = adapter_factory("--wrong-id-on", "c0")
    adapter.start()
    responses = adapter.run(batch)
    # The first time it looks like a stray line (restart, send again); the second time it
    # is clearly c0's own answer.
    assert crash_of(responses[0])["message"] == "expected response for id c0, got c0-other"
    assert_echoed(responses, batch, except_ids={"c0"})
    assert adapter.restarts == 2
    assert [p["kind"] for p in adapter.problems] == ["stray-line"]


def test_response_off_schema_is_a_crash_without_restart(
    adapter_factory: Any, batch: list[Request]
) -> None:
    adapter = adapter_factory("--bad-shape-on", "c5")
    adapter.start()
    responses = adapter.run(batch)
    message = crash_of(responses[5])["message"]
    assert message.startswith("worker response for case c5 does not match the protocol: ")
    assert_echoed(responses, batch, except_ids={"c5"})
    assert adapter.restarts == 0


def test_worker_failing_every_case_is_declared_broken(
    adapter_factory: Any, batch: list[Request]
) -> None:
    adapter = adapter_factory("--crash-on", "*", broken_after=3)
    adapter.start()
    responses = adapter.run(batch)
    messages = [crash_of(r)["message"] for r in responses]
    assert messages[:3] == [f"worker exited with code 3 while running case c{i}" for i in range(3)]
    assert adapter.broken is not None
    assert adapter.broken.startswith("fake declared broken after 3 consecutive worker failures")
    assert messages[3:] == [adapter.broken] * 3
    # Later batches are not sent at all: the same shared message, at once.
    assert [crash_of(r)["message"] for r in adapter.run(batch[:2])] == [adapter.broken] * 2
    assert adapter.restarts == 2


def test_worker_that_died_idle_is_restarted_before_the_batch(
    adapter_factory: Any, batch: list[Request]
) -> None:
    adapter = adapter_factory("--exit-after", "2")
    adapter.start()
    assert_echoed(adapter.run(batch[:2]), batch[:2], except_ids=set())
    assert adapter._worker is not None
    adapter._worker.proc.wait(timeout=5)  # the worker is gone before the next batch
    assert_echoed(adapter.run(batch[2:4]), batch[2:4], except_ids=set())
    assert adapter.restarts == 1


def test_handshake_never_completes(adapter_factory: Any) -> None:
    adapter = adapter_factory("--no-handshake", start_timeout=FAST)
    with pytest.raises(WorkerStartError, match=r"did not answer the start request within 0\.5 s"):
        adapter.start()


def test_handshake_refused_version(adapter_factory: Any) -> None:
    adapter = adapter_factory("--versions", "2,3")
    with pytest.raises(WorkerStartError, match=r"refused protocol version 1 .*speaks \[2, 3\]"):
        adapter.start()


def test_handshake_exit_carries_stderr(adapter_factory: Any) -> None:
    adapter = adapter_factory("--not-a-switch")
    with pytest.raises(WorkerStartError) as info:
        adapter.start()
    assert "exited with code 2 before completing the handshake" in info.value.message
    assert "unrecognized arguments: --not-a-switch" in info.value.stderr


def test_restart_that_fails_crashes_the_rest(tmp_path: Path, batch: list[Request]) -> None:
    # The worker dies on c1; its replacement cannot start (the script is gone by then).
    script = tmp_path / "worker.py"
    script.write_text(FAKE.read_text(encoding="utf-8"), encoding="utf-8")
    adapter = WorkerAdapter("fake", [sys.executable, str(script), "--crash-on", "c1"], timeout=FAST)
    try:
        adapter.start()
        script.unlink()
        responses = adapter.run(batch)
    finally:
        adapter.stop()
    assert "output" in responses[0]
    assert crash_of(responses[1])["message"] == "worker exited with code 3 while running case c1"
    assert crash_of(responses[2])["message"].startswith("worker could not be restarted: worker ")
    for response in responses[3:]:
        assert crash_of(response)["message"].startswith("fake is broken: worker could not be ")


# -- the real JS worker ----------------------------------------------------------


@pytest.fixture(scope="module")
def js() -> Iterator[WorkerAdapter]:
    from adapters import js as js_platform

    # No Node is a failure here, not a skip: ci/bootstrap always provides one.
    adapter = js_platform.create(timeout=10.0)
    yield adapter
    adapter.stop()


def test_js_worker_handshake(js: WorkerAdapter) -> None:
    implementation = js.start()
    package = json.loads((ROOT / "impl_js" / "package.json").read_text(encoding="utf-8"))
    assert (implementation.name, implementation.version) == (package["name"], package["version"])
    assert implementation.language == "javascript"


def test_js_worker_reports_unknown_domain_as_crash(js: WorkerAdapter) -> None:
    js.start()
    [response] = js.run([{"id": "u", "domain": "no-such-domain", "input": {}}])
    assert crash_of(response)["message"] == 'unknown domain "no-such-domain"'


def _vector_cases() -> list[tuple[str, dict[str, Any]]]:
    """The first output case and first error case of every vector file without comparison rules."""
    picked: list[tuple[str, dict[str, Any]]] = []
    for path in sorted((ROOT / "vectors").glob("*.json")):
        document = json.loads(path.read_text(encoding="utf-8"))
        if document.get("comparison"):
            continue
        for kind in ("expected", "error"):
            case = next((c for c in document["cases"] if kind in c), None)
            if case is not None:
                picked.append((document["domain"], case))
    return picked


def test_js_worker_runs_vector_cases(js: WorkerAdapter) -> None:
    implementation = js.start()
    cases = _vector_cases()
    assert cases and {d for d, _ in cases} <= implementation.domains
    responses = js.run(
        [{"id": f"{d}/{c['id']}", "domain": d, "input": c["input"]} for d, c in cases]
    )
    for (domain, case), response in zip(cases, responses, strict=True):
        if "expected" in case:
            assert response == {"id": f"{domain}/{case['id']}", "output": case["expected"]}
        else:
            assert response.get("error", {}).get("code") == case["error"], response


@pytest.mark.parametrize(
    "answer",
    [
        {"id": "a", "output": None},
        {"id": "a", "output": {"x": [1]}},
        {"id": "a", "error": {"code": "bad_input", "message": "m"}},
        {"id": "a", "crash": {"message": "m", "detail": "d"}},
        {"id": "a", "error": {"code": "Bad", "message": "m"}},
        {"id": "a", "error": {"code": "ok", "message": 1}},
        {"id": "a", "error": {"code": "ok", "message": "m", "x": 1}},
        {"id": "a", "crash": {"message": "m"}},
        {"id": "a", "output": 1, "crash": {"message": "m", "detail": "d"}},
        {"id": 1, "output": 1},
        {"output": 1, "x": 1},
        {"id": "a"},
        ["id", "output"],
    ],
)
def test_fast_response_check_never_accepts_what_the_schema_rejects(answer: Any) -> None:
    from adapters.messages import plainly_valid_response, validator

    schema_ok = validator("response").is_valid(answer)
    assert not plainly_valid_response(answer) or schema_ok
    if schema_ok and "error" not in answer:  # the common shapes take the fast path
        assert plainly_valid_response(answer)


def test_a_skip_answer_is_passed_through(adapter_factory: Any, batch: list[Request]) -> None:
    """Protocol `skip`: the case does not apply to this implementation; it is not a crash."""
    adapter = adapter_factory("--skip-on", "c2")
    adapter.start()
    responses = adapter.run(batch)
    assert responses[2] == {"id": "c2", "skip": {"reason": "this fake supports no such input"}}
    assert_echoed(responses, batch, except_ids={"c2"})


def test_a_worker_whose_child_holds_its_stdout_is_diagnosed(
    adapter_factory: Any, batch: list[Request]
) -> None:
    """It exited, but a child it left keeps the pipe open: a timeout, said as what it is
    (it was reported as no response from the worker alone, issue 32)."""
    adapter = adapter_factory("--orphan-on", "c1")
    adapter.start()
    try:
        responses = adapter.run(batch[:2])
    finally:
        adapter.stop()
    message = crash_of(responses[1])["message"]
    assert message.startswith(f"no response within {FAST} s for case c1")
    assert "(the worker exited with code 0, but a child holds its stdout)" in message


def test_a_worker_that_closes_stdout_before_the_handshake_is_diagnosed() -> None:
    """It was reported as "exited with code None" (issue 32)."""
    command = ["sh", "-c", "exec 1>&-; sleep 5"]
    adapter = WorkerAdapter("closer", command, timeout=FAST)
    with pytest.raises(WorkerStartError) as info:
        adapter.start()
    adapter.stop()
    assert "closed its stdout (still running) before completing the handshake" in info.value.message
