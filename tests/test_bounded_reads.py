"""A case cannot make a platform read without end: `proc/1/cgroup` linked to /dev/zero
is read up to SBX-14's 65,536 bytes on every platform, then says nothing (it was read
until memory ran out, issue 32)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conftest import vector_document

from runners._cli import main


def test_a_cgroup_file_linked_to_dev_zero_is_read_to_the_limit_only(
    write_vectors: Any, tmp_path: Path
) -> None:
    assert Path("/dev/zero").exists()
    case = {
        "id": "cgroup-is-dev-zero",
        "description": "A link to an endless device: bounded, then nothing found.",
        "tags": [],
        "source": {"kind": "issue", "ref": "issue 32"},
        "clauses": ["SBX-14"],
        "input": {
            "op": "detect_container",
            "tree": [{"path": "proc/1/cgroup", "kind": "symlink", "target": "/dev/zero"}],
            "env": {},
        },
        "expected": {"runtime": None, "default_mode": "workspace"},
    }
    doc = vector_document([case], domain="sandbox-paths", tags={}, variants=[])
    path = write_vectors(doc)
    out = tmp_path / "results.json"
    argv = ["run", "-q", "--no-default-vectors", "--vectors", str(path), "--case-timeout", "20"]
    assert main([*argv, "--format", "json", "--output", str(out)]) == 0
    results = json.loads(out.read_text(encoding="utf-8"))["results"]
    assert {r["platform"]: r["status"] for r in results} == dict.fromkeys(
        ("python", "rust", "js"), "pass"
    )
