"""A worker that misbehaves on a seeded schedule, for the chaos test.

    chaos_worker.py SEED PID_FILE

Domains ``echo`` and ``sse-frames``, both answered ``{"echo": input}`` (so in a
real run every case it answers fails, and every case it breaks errors). Each
request's fault is a function of SEED and its id, so a run is reproducible and a
request sent again after a restart misbehaves again:

  crash      exit 3 without answering
  hang       stop answering
  duplicate  answer twice
  garble     write a line that is not JSON instead of the answer
  swap       read the next request and answer it first (out of order)

Every start appends "<pid> <session id>" to PID_FILE.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time

FAULTS = ("crash", "hang", "duplicate", "garble", "swap")


def fault(seed: str, case_id: str) -> str | None:
    """The fault for ``case_id``: about one request in four misbehaves."""
    roll = int(hashlib.sha256(f"{seed}:{case_id}".encode()).hexdigest(), 16)
    return FAULTS[(roll // 100) % len(FAULTS)] if roll % 100 < 25 else None


def main() -> None:
    seed, pid_file = sys.argv[1], sys.argv[2]
    with open(pid_file, "a", encoding="utf-8") as pids:
        pids.write(f"{os.getpid()} {os.getsid(0)}\n")

    def write(message: object) -> None:
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()

    def answer(request: dict) -> None:
        write({"id": request["id"], "output": {"echo": request["input"]}})

    lines = iter(sys.stdin)
    for line in lines:
        request = json.loads(line)
        if request["cmd"] == "start":
            implementation = {
                "name": "chaos",
                "version": seed,
                "language": "python",
                "domains": ["echo", "sse-frames"],
            }
            write({"ok": True, "implementation": implementation})
            continue
        if request["cmd"] != "run":
            return
        kind = fault(seed, request["id"])
        if kind == "crash":
            sys.exit(3)
        if kind == "hang":
            time.sleep(3600)
        if kind == "garble":
            write("{not json")
            continue
        if kind == "swap":
            following = json.loads(next(lines, '{"cmd": "stop"}'))
            if following["cmd"] == "run":
                answer(following)
            answer(request)
            if following["cmd"] != "run":
                return
            continue
        answer(request)
        if kind == "duplicate":
            answer(request)


if __name__ == "__main__":
    main()
