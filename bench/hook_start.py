"""What starting one hook costs the python runner: wall time and the runner's own CPU.

    python3 bench/hook_start.py [--impl-root DIR] [--hooks N]

Runs ``impl_python.hooks.run_hook`` N times on ``exit 0`` and prints milliseconds per
hook: wall, and this process's CPU (every thread; the hooks' own CPU is not in it).
``--impl-root`` imports ``impl_python`` from another checkout, e.g. main exported
with ``git archive main impl_python | tar -x -C /tmp/main``, so that old and new run
with the same interpreter; run them as interleaved pairs and take medians.
The Rust runner has its own: ``cargo run --release -p hanzo-hooks --example
hook_start -- MB N`` (bench/history-2026-11.md, "Starting a hook").
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--impl-root", type=Path, default=Path(__file__).resolve().parents[1])
    parser.add_argument("--hooks", type=int, default=300)
    args = parser.parse_args()
    sys.path.insert(0, str(args.impl_root))
    from impl_python.hooks import HookConfig, run_hook

    hook = HookConfig("pre_tool_use", "exit 0", "*")
    env = {"PATH": "/usr/bin:/bin"}
    cpu, wall = time.process_time(), time.perf_counter()
    for _ in range(args.hooks):
        if run_hook(0, hook, env, None).outcome != "allow":
            raise SystemExit("a hook did not allow")
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    print(
        f"{wall * 1e3 / args.hooks:.3f} ms/hook wall, "
        f"{cpu * 1e3 / args.hooks:.3f} ms/hook runner CPU ({args.hooks} hooks)"
    )


if __name__ == "__main__":
    main()
