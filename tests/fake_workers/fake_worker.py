"""A worker for docs/protocol.md in plain Python, with switches that make it misbehave.

Domains: ``echo`` (output ``{"echo": input}``) and ``fail`` (contract error
``fake_error``). Each ``--<fault>-on ID`` switch triggers when a request with
that id arrives (``PREFIX*`` matches ids starting with PREFIX, ``*`` every id):

  --crash-on ID        write "fake worker: dying on ID" to stderr, exit with --exit-code
  --raise-on ID        raise an uncaught exception (Python traceback on stderr, exit 1)
  --kill-on ID         kill itself with SIGKILL
  --hang-on ID         stop answering (sleep)
  --garbage-on ID      answer with a line that is not JSON
  --wrong-id-on ID     answer with another case's id
  --bad-shape-on ID    answer with the right id but a response the schema rejects
  --duplicate-on ID    answer twice
  --orphan-on ID       start a child that holds stdout (sleep 30), then exit 0
  --skip-on ID         answer skip ("not applicable") with a reason
  --domains D,...      domains it claims in the handshake (default echo,fail)
  --exit-after N       exit 0 after answering N requests
  --no-handshake       never answer start
  --no-flush           never flush stdout (answers sit in the buffer until exit)
  --no-flush-after-start  flush the handshake only
  --versions V,...     protocol versions spoken (default 1)
  --pid-file PATH      append "<pid> <session id>" when started (to check for survivors)
  --hang-marker PATH   create this file a second after starting to hang

  --reference          also serve the vector domains, answered by the Python reference
                       (adapters.python), so the fake can stand in for a real platform
"""

from __future__ import annotations

import argparse
import atexit
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

parser = argparse.ArgumentParser()
FAULTS = (
    "crash",
    "raise",
    "kill",
    "hang",
    "garbage",
    "wrong-id",
    "bad-shape",
    "skip",
    "duplicate",
    "orphan",
)
for fault in FAULTS:
    parser.add_argument(f"--{fault}-on", default=None)
parser.add_argument("--reference", action="store_true")
parser.add_argument("--no-flush", action="store_true")
parser.add_argument("--no-flush-after-start", action="store_true")
parser.add_argument("--pid-file", default=None)
parser.add_argument("--hang-marker", default=None)
parser.add_argument("--exit-code", type=int, default=3)
parser.add_argument("--exit-after", type=int, default=None)
parser.add_argument("--no-handshake", action="store_true")
parser.add_argument("--versions", default="1")
parser.add_argument("--domains", default="echo,fail")
args = parser.parse_args()
versions = [int(v) for v in args.versions.split(",")]
if args.no_flush or args.no_flush_after_start:
    # Block-buffered whatever PYTHONUNBUFFERED says; the buffer is written at exit.
    sys.stdout = open(sys.stdout.fileno(), "w", buffering=65536, closefd=False)  # noqa: SIM115
    atexit.register(sys.stdout.flush)
if args.pid_file:
    with open(args.pid_file, "a", encoding="utf-8") as pids:
        pids.write(f"{os.getpid()} {os.getsid(0)}\n")


def reference_domains() -> list[str]:
    from adapters.python import PythonAdapter

    return sorted(PythonAdapter().start().domains)


def reference(request: dict) -> dict:
    from adapters.python import PythonAdapter

    adapter = PythonAdapter()
    adapter.start()
    [response] = adapter.run([{k: request[k] for k in ("id", "domain", "input")}])
    return response


def hang() -> None:
    if args.hang_marker:
        time.sleep(1.0)  # time for the harness to take in the answers written before
        Path(args.hang_marker).touch()
    time.sleep(3600)


def hits(switch: str | None, case_id: str) -> bool:
    """``switch`` is an id, or a prefix ending in ``*`` (``*`` alone: every id)."""
    if switch is None:
        return False
    if switch.endswith("*"):
        return case_id.startswith(switch[:-1])
    return switch == case_id


def answer(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    if not args.no_flush and not (args.no_flush_after_start and started):
        sys.stdout.flush()


answered = 0
started = False
for line in sys.stdin:
    request = json.loads(line)
    if not started:
        if args.no_handshake:
            hang()
        if request.get("version") not in versions:
            answer(
                {
                    "ok": False,
                    "error": {"code": "unsupported_version", "message": "no"},
                    "versions": versions,
                }
            )
            continue
        answer(
            {
                "ok": True,
                "implementation": {
                    "name": "fake",
                    "version": "0.0.0",
                    "language": "python",
                    "domains": [
                        *args.domains.split(","),
                        *(reference_domains() if args.reference else []),
                    ],
                },
            }
        )
        started = True
        continue
    if request["cmd"] == "stop":
        break
    case_id = request["id"]
    if hits(args.crash_on, case_id):
        sys.stderr.write(f"fake worker: dying on {case_id}\n")
        sys.stderr.flush()
        sys.exit(args.exit_code)
    if hits(args.raise_on, case_id):
        raise RuntimeError(f"unexpected trouble in {case_id}")
    if hits(args.kill_on, case_id):
        os.kill(os.getpid(), signal.SIGKILL)
    if hits(args.orphan_on, case_id):
        subprocess.Popen(["sleep", "30"], stdout=sys.stdout)
        sys.exit(0)
    if hits(args.hang_on, case_id):
        hang()
    if hits(args.garbage_on, case_id):
        sys.stdout.write("this is not JSON {\n")
        sys.stdout.flush()
        continue
    if hits(args.wrong_id_on, case_id):
        answer({"id": case_id + "-other", "output": None})
        continue
    if hits(args.bad_shape_on, case_id):
        answer({"id": case_id, "output": 1, "error": {"code": "x", "message": ""}})
        continue
    if hits(args.skip_on, case_id):
        answer({"id": case_id, "skip": {"reason": "this fake supports no such input"}})
        continue
    if request["domain"] == "fail":
        response = {"id": case_id, "error": {"code": "fake_error", "message": "as requested"}}
    elif args.reference and request["domain"] not in ("echo", "fail"):
        response = reference(request)
    else:
        response = {"id": case_id, "output": {"echo": request["input"]}}
    answer(response)
    if hits(args.duplicate_on, case_id):
        answer(response)
    answered += 1
    if args.exit_after is not None and answered >= args.exit_after:
        sys.exit(0)
