"""A case writes only inside its case root (issue 32): a tree entry under or on a symlink,
a hooks cwd outside {root} and a `record` name that is a path are refused on every
platform at run time (the cases are sent straight to the platforms, past `validate`),
and `validate` refuses what it can see statically, naming file, case and pointer."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from adapters.protocol import Adapter
from adapters.registry import create

PLATFORMS = ["python", "rust", "js"]


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Where every platform makes its case roots (TMPDIR), so that a path beside a
    case root is found here and nowhere else."""
    folder = tmp_path_factory.mktemp("scratch")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TMPDIR", str(folder))
        patch.setattr(tempfile, "tempdir", None)
        yield folder


@pytest.fixture(scope="module", params=PLATFORMS)
def platform(request: pytest.FixtureRequest, scratch: Path) -> Iterator[Adapter]:
    adapter = create(request.param)
    adapter.start()
    try:
        yield adapter
    finally:
        adapter.stop()


def run_one(adapter: Adapter, domain: str, case_input: dict[str, Any]) -> dict[str, Any]:
    [response] = adapter.run([{"id": "probe", "domain": domain, "input": case_input}])
    return response


def detect(tree: list[dict[str, Any]]) -> dict[str, Any]:
    return {"op": "detect_container", "tree": tree, "env": {}}


def pipeline(tree: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "rules": [{"tool_pattern": "fs.*", "mode": "allow", "reason": None}],
        "prompter": {"answer": "allow", "reason": None},
        "hooks": [],
        "sandbox": {
            "tree": [{"path": "ws", "kind": "dir"}, *tree],
            "workspace": "{root}/ws",
            "config": {"mode": "workspace", "allowed_paths": []},
        },
        "call": {"tool_name": "fs.write", "input": {"path": ""}, "origin": "agent", "paths": []},
        "tool_output": {"output": "done", "error": None, "is_error": False},
        "session_id": "sess-1",
    }


def hooks_case(command: str, cwd: str = "{root}") -> dict[str, Any]:
    return {
        "hooks": [{"event": "pre_tool_use", "command": command, "tool_pattern": "*"}],
        "event": "pre_tool_use",
        "tool_name": "t",
        "tool_input": {},
        "session_id": "",
        "env": {"PATH": "/usr/bin:/bin"},
        "cwd": cwd,
        "observe": [],
    }


def refused(response: dict[str, Any], *words: str) -> None:
    """The case was answered as malformed (a crash, never an output or a contract
    error), with a message naming the entry."""
    assert "crash" in response, response
    message = response["crash"]["message"]
    assert "case root" in message, message
    for word in words:
        assert word in message, message


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A directory outside every case root, which nothing may touch."""
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "victim.txt").write_text("original", encoding="utf-8")
    return folder


def untouched(outside: Path) -> None:
    assert sorted(p.name for p in outside.iterdir()) == ["victim.txt"]
    assert (outside / "victim.txt").read_text(encoding="utf-8") == "original"


@pytest.mark.parametrize("domain", ["sandbox-paths", "tool-call-pipeline"])
@pytest.mark.parametrize("kind", ["file", "dir", "symlink"])
def test_an_entry_under_a_symlink_is_refused(
    platform: Adapter, outside: Path, domain: str, kind: str
) -> None:
    tree = [
        {"path": "out", "kind": "symlink", "target": str(outside)},
        {"path": "out/PWNED", "kind": kind, **({"target": "/"} if kind == "symlink" else {})},
    ]
    first = len(tree) - 1 if domain == "sandbox-paths" else len(tree)
    case_input = detect(tree) if domain == "sandbox-paths" else pipeline(tree)
    refused(run_one(platform, domain, case_input), f"tree[{first}]", "out/PWNED", "symlink")
    untouched(outside)


@pytest.mark.parametrize("target", ["victim.txt", "new.txt"])
def test_a_file_is_never_written_through_a_symlink(
    platform: Adapter, outside: Path, target: str
) -> None:
    tree = [
        {"path": "victim", "kind": "symlink", "target": str(outside / target)},
        {"path": "victim", "kind": "file", "content": "overwritten"},
    ]
    refused(run_one(platform, "sandbox-paths", detect(tree)), "tree[1]", "victim")
    untouched(outside)


@pytest.mark.parametrize("path", ["/abs", "a/../b", "a//b", "./a"])
def test_an_entry_path_that_is_not_plain_is_refused(platform: Adapter, path: str) -> None:
    refused(run_one(platform, "sandbox-paths", detect([{"path": path, "kind": "dir"}])), "tree[0]")


def test_a_symlink_pointing_out_of_the_root_is_still_test_material(
    platform: Adapter, outside: Path
) -> None:
    """Links leaving the root are what SBX-5..SBX-8 test: only writing through one is refused."""
    case_input = {
        "op": "check_path",
        "tree": [
            {"path": "ws", "kind": "dir"},
            {"path": "ws/out", "kind": "symlink", "target": str(outside)},
            {"path": "ws/dangling", "kind": "symlink", "target": str(outside / "nothing")},
        ],
        "workspace": "{root}/ws",
        "config": {"mode": "workspace", "allowed_paths": []},
        "path": "{root}/ws/out/victim.txt",
    }
    response = run_one(platform, "sandbox-paths", case_input)
    assert response.get("output") == {"allowed": False, "reason": "outside", "resolved": None}
    untouched(outside)


@pytest.mark.parametrize("shape", ["absolute", "dotdot"])
def test_a_hooks_cwd_outside_the_root_is_refused(
    platform: Adapter, scratch: Path, outside: Path, shape: str
) -> None:
    cwd = str(outside / "made") if shape == "absolute" else "{root}/../made-beside-the-root"
    refused(run_one(platform, "hooks", hooks_case("true", cwd)), "input.cwd")
    untouched(outside)
    assert sorted(scratch.iterdir()) == []


def test_a_hooks_cwd_under_the_root_is_made(platform: Adapter) -> None:
    response = run_one(platform, "hooks", hooks_case("{fixtures}/record a", "{root}/ws/deeper"))
    assert response["output"]["saw"]["a"]["cwd"] == "{root}/ws/deeper", response


@pytest.mark.parametrize("shape", ["absolute", "dotdot", "slash"])
def test_the_record_fixture_refuses_a_name_that_is_a_path(
    platform: Adapter, outside: Path, shape: str
) -> None:
    name = {"absolute": f"{outside}/abs", "dotdot": "..", "slash": "sub/x"}[shape]
    response = run_one(platform, "hooks", hooks_case(f"{{fixtures}}/record '{name}'"))
    output = response["output"]
    assert output["saw"] == {}, response
    assert [r["exit_code"] for r in output["log"]] == [125], response
    untouched(outside)
