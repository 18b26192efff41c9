"""The Stainless Python SDKs as http-retry platforms: openai 3.57.0, anthropic 2.15.0
and hanzoai 2.1.3 (PyPI, the test extra), each through its real client's retry loop
on a scripted transport (examples/*-retry/worker.py). Each diverges without its
ledger and gates green with it; the divergences that are bugs are asserted by name.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from runners._cli import main

ROOT = Path(__file__).resolve().parent.parent


def run_example(
    tmp_path: Path, folder: str, name: str, ledger: bool
) -> tuple[int, dict[str, Any], dict[str, Any]]:
    """``run`` on the worker of ``examples/FOLDER/``: the exit code, the results by case
    and the summary counts."""
    worker = f"{name}={sys.executable} {ROOT / 'examples' / folder / 'worker.py'}"
    output = tmp_path / f"{name}-{ledger}.json"
    argv = ["run", "--worker", worker, "--platform", name, "--domain", "http-retry"]
    # The handshake waits as long as a case: importing an SDK on a loaded machine can
    # take longer than the default 10 s.
    argv += ["--case-timeout", "60"]
    argv += ["--format", "json", "--output", str(output)]
    if ledger:
        argv += ["--expectations", str(ROOT / "examples" / folder / "expectations.json")]
    code = main(argv)
    results = json.loads(output.read_text(encoding="utf-8"))["results"]
    counts = Counter(r["status"] for r in results)
    return code, {r["case"]: r for r in results}, dict(counts)


def delays(result: dict[str, Any]) -> Any:
    return {d["pointer"]: d.get("actual") for d in result.get("diff", [])}.get("/delay_ms")


def test_openai_python_gives_up_above_120_s_and_gates_green_on_its_ledger(tmp_path):
    code, by_case, _ = run_example(tmp_path, "openai-python-retry", "openai-py", ledger=False)
    assert code == 1
    # Honoured up to its own 120 s bound; 121 s is refused, as the contract refuses 61 s.
    assert delays(by_case["openai-py-table-row06-120"]) == 120_000
    assert by_case["openai-py-table-row07-121"]["status"] == "pass"
    # RFC 9110 5.6.7: "72" read in 2023 is 2072; email.utils makes it 1972 (a backoff).
    assert delays(by_case["date-rfc850-year-window-72"]) == 250
    # An unkeyed POST's 500 is retried (RFC 9110 9.2.2).
    assert delays(by_case["post-500"]) == 250
    code, _, counts = run_example(tmp_path, "openai-python-retry", "openai-py", ledger=True)
    assert code == 0
    assert counts == {"pass": 140, "skip": 3, "xfail": 94}


def test_anthropic_python_waits_any_retry_after_and_gates_green_on_its_ledger(tmp_path):
    code, by_case, _ = run_example(tmp_path, "anthropic-python-retry", "anthropic-py", False)
    assert code == 1
    # Retry-After 3600 is slept, an hour; 'inf' 49.7 days (its sleep limit).
    assert delays(by_case["retry-after-3600"]) == 3_600_000
    assert delays(by_case["openai-py-table-row16-inf"]) == 4_294_967_000
    # A year out of range escapes _parse_retry_after_header as ValueError.
    crashed = by_case["openai-py-table-row19-fri-29-sep-100000-162657-gmt"]
    assert crashed["status"] == "error" and "ValueError" in json.dumps(crashed)
    code, _, counts = run_example(tmp_path, "anthropic-python-retry", "anthropic-py", True)
    assert code == 0
    assert counts == {"pass": 124, "skip": 3, "xfail": 110}


def test_hanzoai_backs_off_instead_of_waiting_and_gates_green_on_its_ledger(tmp_path):
    code, by_case, _ = run_example(tmp_path, "hanzoai-retry", "hanzoai-retry", ledger=False)
    assert code == 1
    # Above 60 s it retries after its short backoff, long before the server said.
    assert delays(by_case["retry-after-3600"]) == 250
    code, _, counts = run_example(tmp_path, "hanzoai-retry", "hanzoai-retry", ledger=True)
    assert code == 0
    assert counts == {"pass": 136, "skip": 3, "xfail": 98}
