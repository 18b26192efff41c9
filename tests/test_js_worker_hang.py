"""A JS case that never returns fails alone: the worker writes answers between cases
only (one thread), so a hang can leave the answers before it unwritten; the harness
then runs the unanswered cases one at a time and blames the one that hangs again,
not the first case left unanswered (adapters/js.py MAX_HELD, held_while_running)."""

from __future__ import annotations

import os
import uuid
from pathlib import Path
from typing import Any

from adapters import js
from adapters.protocol import Request
from runners import Case, load_vector_file

ROOT = Path(__file__).resolve().parents[1]


def _case(domain: str, case_id: str | None = None) -> Case:
    cases = load_vector_file(ROOT / "vectors" / f"{domain}.json").cases
    return next(c for c in cases if case_id is None or c.id == case_id)


def _processes_running(text: str) -> list[int]:
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/cmdline", "rb") as cmdline:
                    if text.encode() in cmdline.read():
                        found.append(int(name))
            except OSError:
                pass
    return found


def test_a_hanging_case_is_blamed_not_the_cases_answered_before_it(tmp_path: Path) -> None:
    quick = _case("oauth-pkce")
    hook = _case("hooks", "timeout-shell-sleep")
    # A hook that outlives the case limit (its own limit is 60 s); the unique duration
    # finds its process afterwards.
    duration = f"59.{uuid.uuid4().int % 10**6:06d}"
    hanging = dict(hook.input)
    hanging["hooks"] = [dict(hook.input["hooks"][0], command=f"sleep {duration}", timeout_ms=60000)]
    hanging["cwd"] = "{root}"  # a case writes only inside its own root
    batch = [Request(id=f"before-{i}", domain="oauth-pkce", input=quick.input) for i in range(5)]
    batch.append(Request(id="hangs", domain="hooks", input=hanging))
    batch += [Request(id=f"after-{i}", domain="oauth-pkce", input=quick.input) for i in range(3)]
    adapter = js.create(timeout=1.0)
    adapter.start()
    try:
        responses = adapter.run(batch)
    finally:
        adapter.stop()
    by_id: dict[str, Any] = {r["id"]: r for r in responses}
    assert [r["id"] for r in responses] == [r["id"] for r in batch]
    for request in batch:
        if request["id"] != "hangs":
            assert by_id[request["id"]].get("output") == quick.expected, by_id[request["id"]]
    assert "no response within 1.0 s for case hangs" in by_id["hangs"]["crash"]["message"]
    assert adapter.broken is None
    # The hook ran in a session of its own; killing the worker ended it too.
    assert _processes_running(f"sleep {duration}") == []
