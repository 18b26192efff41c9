"""The mutation script's own logic (mutation/mutate_python.py); no mutant is run here."""

from __future__ import annotations

import ast
import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def script() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "mutate_python", ROOT / "mutation" / "mutate_python.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_depth_decrement_becomes_each_of_its_mutants(script: ModuleType) -> None:
    tree = ast.parse("def f(depth):\n    depth -= 1\n    return depth > 64\n")
    operators = [op for _node, _kind, op in script._points(tree)]
    assert operators == [  # breadth-first, as ast.walk goes
        "aug Sub->Add",
        "delete AugAssign",
        "delete Return",
        "const 1->2",
        "Gt->GtE",
        "const 64->65",
    ]
    changed = {
        op: script.mutated_source(tree, i).splitlines()[1].strip()
        for i, op in enumerate(operators)
        if op in ("aug Sub->Add", "const 1->2", "delete AugAssign")
    }
    assert changed == {
        "aug Sub->Add": "depth += 1",
        "const 1->2": "depth -= 2",
        "delete AugAssign": "pass",
    }


def test_messages_and_docstrings_are_not_mutated(script: ModuleType) -> None:
    tree = ast.parse('def f():\n    """Doc."""\n    raise ValueError("message")\n')
    assert [op for _n, _k, op in script._points(tree)] == ["delete Raise"]


def test_every_library_module_is_reached_by_some_domain(script: ModuleType) -> None:
    coverage = script.domains_by_module()
    assert sorted(m for m, domains in coverage.items() if not domains) == []
    assert "hooks" in coverage["hooks.py"]
    assert "tool-call-pipeline" in coverage["pipeline.py"]
    assert "sandbox-paths" in coverage["sandbox.py"]
    assert {"hooks", "tool-call-pipeline"} <= set(coverage["permissions.py"])


def test_the_shadow_copys_layers_are_pointed_at_the_hook_fixtures(
    script: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The shadow copy has no fixtures/ beside it; a value set elsewhere must not win either.
    monkeypatch.setenv(script.FIXTURES_ENV, "/nonexistent")
    script.export_fixtures()
    fixtures = Path(os.environ[script.FIXTURES_ENV])
    assert fixtures == ROOT / "fixtures" / "hooks"
    assert any(fixtures.iterdir())


def test_listing_mutants_gets_past_the_harness_imports() -> None:
    """The harness imports the reference's case-root rule; the script must still fork clean."""
    import subprocess

    result = subprocess.run(
        [sys.executable, str(ROOT / "mutation" / "mutate_python.py"), "--list", "--module", "pkce"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    keys = result.stdout.splitlines()
    assert keys and all(k.startswith("pkce.py:") for k in keys), result.stdout


@pytest.mark.slow
def test_a_mutant_is_seen_by_the_confined_os_domain_child() -> None:
    """OS-domain cases run in a confined `python -m adapters.serve` child: it must import
    the mutated copy too (sandbox-paths' cgroup path built with * instead of / crashes)."""
    import subprocess

    script = [sys.executable, str(ROOT / "mutation" / "mutate_python.py")]
    listed = subprocess.run(
        [*script, "--list", "--module", "sandbox"],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout.splitlines()
    source = (ROOT / "impl_python" / "sandbox.py").read_text(encoding="utf-8").splitlines()
    keys = [
        k
        for k in listed
        if k.endswith(":Div->Mult") and '"proc/1/cgroup"' in source[int(k.split(":")[1]) - 1]
    ]
    assert len(keys) == 1, keys
    result = subprocess.run(
        [*script, "--mutant", keys[0]],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert "| sandbox.py | 1 | 1 |" in result.stdout, result.stdout + result.stderr


def test_every_vector_file_of_a_domain_is_run(script: ModuleType) -> None:
    """mcp-stdio's cases are in two files; files keyed by domain alone kept only the last."""
    from runners import load_vectors

    by_domain = script.files_by_domain(load_vectors([ROOT / "vectors"]))
    assert sorted(f.path.name for f in by_domain["mcp-stdio"]) == [
        "mcp-stdio-client.json",
        "mcp-stdio.json",
    ]
    assert all(len(files) == 1 for domain, files in by_domain.items() if domain != "mcp-stdio")
