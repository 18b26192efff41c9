"""A case writes only inside its case root (issue 32): a tree entry under or on a symlink,
a hooks cwd outside {root} and a `record` name that is a path are refused on every
platform at run time (the cases are sent straight to the platforms, past `validate`),
and `validate` refuses what it can see statically, naming file, case and pointer."""

from __future__ import annotations

import copy
import json
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from adapters import isolation
from adapters.protocol import Adapter
from adapters.registry import create
from runners._cli import main

ROOT = Path(__file__).resolve().parents[1]

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
    # The running worker's own temporary folder (adapters/isolation.py) is all there is,
    # and it is empty: no case root, nothing made beside one.
    assert [p.parent for p in scratch.rglob("*")] == [scratch]
    assert [p.name.startswith(isolation.TEMP_PREFIX) for p in scratch.iterdir()] == [True]


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


# validate: the same escapes, seen in the data


def project_case(domain: str, having: str | None = None) -> dict[str, Any]:
    """A copy of the project's first case of ``domain`` (whose input has ``having``),
    to be made to escape."""
    document = json.loads((ROOT / "vectors" / f"{domain}.json").read_text(encoding="utf-8"))
    cases = document["cases"]
    return copy.deepcopy(next(c for c in cases if having is None or having in c["input"]))


def validated(
    capsys: pytest.CaptureFixture[str], write_vectors: Any, domain: str, case: dict[str, Any]
) -> tuple[int, str, Path]:
    document = json.loads((ROOT / "vectors" / f"{domain}.json").read_text(encoding="utf-8"))
    document["cases"] = [case]
    path = write_vectors(document, name=f"{domain}.json")
    code = main(["validate", "--no-default-vectors", "--vectors", str(path)])
    return code, capsys.readouterr().err, path


def detect_case() -> dict[str, Any]:
    cases = json.loads((ROOT / "vectors" / "sandbox-paths.json").read_text(encoding="utf-8"))
    return copy.deepcopy(next(c for c in cases["cases"] if c["input"]["op"] == "detect_container"))


ESCAPING_TREES = {
    "symlink-then-file": (
        [
            {"path": "out", "kind": "symlink", "target": "/tmp"},
            {"path": "out/PWNED", "kind": "file"},
        ],
        1,
        "lies under 'out'",
    ),
    "file-on-symlink": (
        [
            {"path": "victim", "kind": "symlink", "target": "/etc/hostname"},
            {"path": "victim", "kind": "file", "content": "x"},
        ],
        1,
        "is 'victim'",
    ),
    "absolute": ([{"path": "/etc/x", "kind": "dir"}], 0, "is absolute"),
    "dotdot": ([{"path": "ws/../../x", "kind": "dir"}], 0, "'..'"),
}


@pytest.mark.parametrize("domain", ["sandbox-paths", "tool-call-pipeline"])
@pytest.mark.parametrize("shape", sorted(ESCAPING_TREES))
def test_validate_refuses_an_escaping_tree(
    capsys: pytest.CaptureFixture[str], write_vectors: Any, domain: str, shape: str
) -> None:
    tree, bad, words = ESCAPING_TREES[shape]
    if domain == "sandbox-paths":
        case, at = detect_case(), "/tree"
        case["input"]["tree"] = tree
    else:
        case, at = project_case(domain), "/sandbox/tree"
        case["input"]["sandbox"]["tree"] = tree
    code, err, path = validated(capsys, write_vectors, domain, case)
    assert code == 2
    assert f"{path}: case {case['id']!r} at /cases/0/input{at}/{bad}/path:" in err, err
    assert words in err and "case root" in err, err


def test_validate_accepts_a_symlink_pointing_out_of_the_root(
    capsys: pytest.CaptureFixture[str], write_vectors: Any
) -> None:
    case = detect_case()
    case["input"]["tree"] = [
        {"path": "out", "kind": "symlink", "target": "/etc"},
        {"path": "outside", "kind": "file"},
        {"path": "out-too", "kind": "symlink", "target": "{root}/../x"},
    ]
    code, err, _ = validated(capsys, write_vectors, "sandbox-paths", case)
    assert code == 0, err


@pytest.mark.parametrize("cwd", ["/tmp/x", "{root}/../x", "{root}/a//b", "{fixtures}", "{root}x"])
def test_validate_refuses_a_hooks_cwd_outside_the_root(
    capsys: pytest.CaptureFixture[str], write_vectors: Any, cwd: str
) -> None:
    case = project_case("hooks")
    case["input"]["cwd"] = cwd
    code, err, path = validated(capsys, write_vectors, "hooks", case)
    assert code == 2
    assert f"{path}: case {case['id']!r} at /cases/0/input/cwd:" in err, err


@pytest.mark.parametrize("domain", ["hooks", "tool-call-pipeline"])
@pytest.mark.parametrize("name", ["/tmp/abs", "..", "../up", "sub/x"])
def test_validate_refuses_a_record_name_that_is_a_path(
    capsys: pytest.CaptureFixture[str], write_vectors: Any, domain: str, name: str
) -> None:
    case = project_case(domain, having="hooks")
    case["input"]["hooks"] = [
        {"event": "pre_tool_use", "command": "true", "tool_pattern": "*"},
        {
            "event": "pre_tool_use",
            "command": f"{{fixtures}}/record '{name}' 0",
            "tool_pattern": "*",
        },
    ]
    code, err, path = validated(capsys, write_vectors, domain, case)
    assert code == 2
    assert f"{path}: case {case['id']!r} at /cases/0/input/hooks/1/command:" in err, err
    assert repr(name) in err, err


def test_run_refuses_the_file_and_writes_nothing(
    capsys: pytest.CaptureFixture[str], write_vectors: Any, outside: Path
) -> None:
    case = detect_case()
    case["input"]["tree"] = [
        {"path": "out", "kind": "symlink", "target": str(outside)},
        {"path": "out/PWNED", "kind": "file"},
    ]
    document = json.loads((ROOT / "vectors" / "sandbox-paths.json").read_text(encoding="utf-8"))
    document["cases"] = [case]
    path = write_vectors(document, name="sandbox-paths.json")
    assert main(["run", "-q", "--no-default-vectors", "--vectors", str(path)]) == 2
    assert "lies under 'out'" in capsys.readouterr().err
    untouched(outside)


# The schema's bounds (issue 32: a 2.3 KB fill took a platform to 2.6 GiB)


def test_tool_call_pipeline_tree_is_sandbox_paths_tree() -> None:
    """One definition of a tree entry: the pipeline's copy is the same."""
    sandbox, pipeline = (
        json.loads((ROOT / "schemas" / f"{d}.schema.json").read_text(encoding="utf-8"))
        for d in ("sandbox-paths", "tool-call-pipeline")
    )
    assert pipeline["$defs"]["tree"] == sandbox["$defs"]["tree"]
    properties = pipeline["$defs"]["input"]["properties"]["sandbox"]["properties"]
    assert properties["tree"] == {"$ref": "#/$defs/tree"}


@pytest.mark.parametrize(
    ("shape", "at"),
    [
        ("entries", "/cases/0/input/tree"),
        ("depth", "/cases/0/input/tree/0/path"),
        ("content", "/cases/0/input/tree/0/content"),
    ],
)
def test_validate_refuses_a_tree_past_the_bounds(
    capsys: pytest.CaptureFixture[str], write_vectors: Any, shape: str, at: str
) -> None:
    case = detect_case()
    case["input"]["tree"] = {
        "entries": [{"path": f"d{i}", "kind": "dir"} for i in range(257)],
        "depth": [{"path": "/".join(["d"] * 33), "kind": "dir"}],
        "content": [{"path": "f", "kind": "file", "content": "x" * 131073}],
    }[shape]
    code, err, path = validated(capsys, write_vectors, "sandbox-paths", case)
    assert code == 2
    assert f"{path}: case {case['id']!r} at {at}:" in err, err


def test_validate_refuses_a_fill_past_the_bound(
    capsys: pytest.CaptureFixture[str], write_vectors: Any
) -> None:
    document = json.loads((ROOT / "vectors" / "hooks.json").read_text(encoding="utf-8"))
    case = copy.deepcopy(next(c for c in document["cases"] if "tool_input_fill" in c["input"]))
    case["input"]["tool_input_fill"]["text"] = "x" * 17
    code, err, path = validated(capsys, write_vectors, "hooks", case)
    assert code == 2
    assert f"{path}: case {case['id']!r} at /cases/0/input/tool_input_fill/text:" in err, err
