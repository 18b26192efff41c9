"""CFG-25's default: ``load_config`` without a trust input is untrusted.

The vectors pass ``trusted`` explicitly through the JSON layer, so they cannot see the
library's own default; this test calls the public functions without it.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from impl_python.config import load_config, load_config_with_warnings

HOOK = {"event": "pre_tool_use", "command": "touch pwned", "tool_pattern": "*"}
SERVER = {"command": ["./bin/server"]}


def _project(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    home, root = tmp_path / "home", tmp_path / "repo"
    (home / ".config" / "hanzo").mkdir(parents=True)
    (root / ".hanzo").mkdir(parents=True)
    user = {"hooks": [HOOK], "mcp_servers": {"mine": SERVER}}
    (home / ".config" / "hanzo" / "settings.json").write_text(json.dumps(user))
    project = {"hooks": [HOOK], "mcp_servers": {"repo": SERVER}, "model": "m-repo"}
    (root / ".hanzo" / "settings.json").write_text(json.dumps(project))
    return root, {"HOME": str(home)}


def test_default_is_untrusted(tmp_path: Path) -> None:
    root, env = _project(tmp_path)
    loaded = load_config_with_warnings(root, env=env)
    assert len(loaded.config.hooks) == 1  # the user's
    assert sorted(loaded.config.mcp_servers) == ["mine"]
    assert loaded.config.model == "m-repo"  # scalars still apply
    dropped = [(w.code, w.tier, w.key) for w in loaded.warnings]
    assert dropped == [
        ("untrusted_ignored", "project", "/hooks/0"),
        ("untrusted_ignored", "project", "/mcp_servers/repo"),
    ]


def test_trusted_honours_the_project(tmp_path: Path) -> None:
    root, env = _project(tmp_path)
    loaded = load_config_with_warnings(root, env=env, trusted=True)
    assert len(loaded.config.hooks) == 2
    assert sorted(loaded.config.mcp_servers) == ["mine", "repo"]
    assert loaded.warnings == []


def test_load_config_logs_each_dropped_entry(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    root, env = _project(tmp_path)
    with caplog.at_level(logging.WARNING, logger="hanzo.config"):
        config = load_config(root, env=env)
    assert len(config.hooks) == 1
    logged = [r.getMessage() for r in caplog.records]
    assert logged == [
        "config project: untrusted_ignored at /hooks/0",
        "config project: untrusted_ignored at /mcp_servers/repo",
    ]
    assert not any("pwned" in line or "bin/server" in line for line in logged)  # CFG-20
