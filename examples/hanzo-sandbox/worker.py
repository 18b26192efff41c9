"""A conformance worker for hanzo-sandbox 0.1.0 (Hanzo's published sandbox package,
"ported from claw-code sandbox.rs"; Python >= 3.12) on sandbox-paths:

    python3.12 -m venv examples/hanzo-sandbox/.venv
    examples/hanzo-sandbox/.venv/bin/pip install -r examples/hanzo-sandbox/requirements.txt
    hanzo-conformance run --platform hanzo-sandbox --domain sandbox-paths --worker \
        hanzo-sandbox='examples/hanzo-sandbox/.venv/bin/python examples/hanzo-sandbox/worker.py' \
        --expectations examples/hanzo-sandbox/expectations.json

- ``detect_container``: the harness builds the case's tree in a fresh case root and
  sends ``{op, root, env}`` (docs/protocol.md "Harness-laid cases"), and
  the package's ``detect_container_environment_from`` is given what its own
  ``detect_container_environment`` reads, read the same way under that directory
  instead of ``/`` (which the package hard-codes): ``proc/1/cgroup``'s text (None when
  reading it raises OSError), whether ``.dockerenv`` and ``run/.containerenv``
  ``exists()``, and the case's environment as ``env_pairs``. The package answers
  ``in_container`` and a sorted set of markers, not a runtime: each marker names one
  runtime (MARKER_RUNTIMES); no marker is ``runtime`` null, markers that all name one
  runtime are that runtime. Markers that name several runtimes, or one the contract has
  no runtime for (a ``containerd`` cgroup, a ``container`` variable), leave the runtime
  unanswered: the package gives no order to choose by, and this worker makes none up
  (``runtime`` is declared absent, PARTIAL_ANSWERS; until the harness takes partial
  answers the case is skipped, naming the markers). ``default_mode`` is the filesystem mode
  of ``SandboxConfig().resolve_request()``, the package's default.
- ``check_path``: skip. hanzo-sandbox has no path check: its filesystem mode goes to
  the sandboxed command's environment (``SANDBOX_FILESYSTEM_MODE``) and no function
  decides whether a path is inside the sandbox.

It speaks docs/protocol.md on stdin/stdout and is self-contained, so it can be copied
into the package's own repository with its ledger.
"""

from __future__ import annotations

import json
import sys
import traceback
from importlib import metadata
from pathlib import Path
from typing import Any

try:
    from hanzo_sandbox import (
        SandboxConfig,
        SandboxDetectionInputs,
        detect_container_environment_from,
    )
except ImportError as missing:
    raise SystemExit(
        f"hanzo-sandbox is not installed ({missing}): "
        "pip install -r examples/hanzo-sandbox/requirements.txt"
    ) from None

NO_CHECK = (
    "hanzo-sandbox 0.1.0 has no path check: its filesystem mode is passed to the "
    "sandboxed command's environment, never checked per path (SBX-9..SBX-13)"
)
PARTIAL_ANSWERS = True
"""Whether to send partial answers: a case whose markers name no single runtime is
then answered with ``runtime`` declared absent; without, it is skipped."""
MARKER_RUNTIMES = {
    "/.dockerenv": "docker",
    "/run/.containerenv": "podman",
    "/proc/1/cgroup:docker": "docker",
    "/proc/1/cgroup:kubepods": "k8s",
    "/proc/1/cgroup:podman": "podman",
    "/proc/1/cgroup:libpod": "podman",
}
ENV_RUNTIMES = {"kubernetes_service_host": "k8s", "docker": "docker", "podman": "podman"}
MODES = {"off": "off", "workspace-only": "workspace", "allow-list": "allowlist"}


class NotApplicable(Exception):
    """The case needs something hanzo-sandbox does not have; answered skip."""


class Partial(Exception):
    """The package's answer without ``runtime`` (see PARTIAL_ANSWERS)."""

    def __init__(self, output: dict[str, Any], lacking: str) -> None:
        super().__init__(lacking)
        self.output = output


def marker_runtime(marker: str) -> str | None:
    if marker.startswith("env:"):
        return ENV_RUNTIMES.get(marker[4:].split("=", 1)[0].lower())
    return MARKER_RUNTIMES.get(marker)


def detect_in(root: Path, env: dict[str, str]) -> dict[str, Any]:
    """What the package answers for a container tree at root: detect_container_environment
    reads these three paths under / (hard-coded); here they are read under root."""
    try:
        cgroup: str | None = (root / "proc/1/cgroup").read_text()
    except OSError:
        cgroup = None
    found = detect_container_environment_from(
        SandboxDetectionInputs(
            env_pairs=list(env.items()),
            dockerenv_exists=(root / ".dockerenv").exists(),
            containerenv_exists=(root / "run/.containerenv").exists(),
            proc_1_cgroup=cgroup,
        )
    )
    default = MODES[SandboxConfig().resolve_request().filesystem_mode.value]
    runtimes = {marker_runtime(m) for m in found.markers}
    if len(runtimes) > 1 or None in runtimes:
        raise Partial(
            {"default_mode": default},
            "hanzo-sandbox 0.1.0 reports container markers, not a runtime, and these "
            f"name no single one: {', '.join(found.markers)}",
        )
    return {"runtime": runtimes.pop() if runtimes else None, "default_mode": default}


def detect_container(case_input: dict[str, Any]) -> dict[str, Any]:
    return detect_in(Path(case_input["root"]), case_input["env"])


def sandbox_paths(case_input: dict[str, Any]) -> dict[str, Any]:
    if case_input["op"] == "detect_container":
        return detect_container(case_input)
    raise NotApplicable(NO_CHECK)


DOMAINS = {"sandbox-paths": sandbox_paths}


def answer(request: dict[str, Any]) -> dict[str, Any]:
    if request.get("cmd") == "start":
        started: dict[str, Any] = {
            "ok": True,
            "implementation": {
                "name": "hanzo-sandbox",
                "version": metadata.version("hanzo-sandbox"),
                "language": f"python {sys.version.split()[0]}",
                "domains": sorted(DOMAINS),
            },
        }
        # The harness builds each case's tree and sends its root: no layout here.
        started["harness_lays_out"] = sorted(DOMAINS)
        return started
    run = DOMAINS.get(request.get("domain", ""))
    if run is None:
        return {"id": request.get("id", ""), "crash": {"message": "unknown domain", "detail": ""}}
    try:
        return {"id": request["id"], "output": run(request["input"])}
    except Partial as e:
        if PARTIAL_ANSWERS:
            return {"id": request["id"], "output": e.output, "absent": ["/runtime"]}
        return {"id": request["id"], "skip": {"reason": str(e)}}
    except NotApplicable as e:
        return {"id": request["id"], "skip": {"reason": str(e)}}
    except Exception as e:  # a crash answers this case; the worker goes on
        crash = {"message": repr(e), "detail": traceback.format_exc()}
        return {"id": request["id"], "crash": crash}


def main() -> None:
    for line in sys.stdin:
        request = json.loads(line)
        if request.get("cmd") == "stop":
            break
        sys.stdout.write(json.dumps(answer(request)) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
