"""A worker for docs/protocol.md in plain Python, with switches that make it misbehave.

Domains: ``echo`` (output ``{"echo": input}``) and ``fail`` (contract error
``fake_error``). Each ``--<fault>-on ID`` switch triggers when a request with
that id arrives (``*`` matches every id):

  --crash-on ID        write "fake worker: dying on ID" to stderr, exit with --exit-code
  --raise-on ID        raise an uncaught exception (Python traceback on stderr, exit 1)
  --hang-on ID         stop answering (sleep)
  --garbage-on ID      answer with a line that is not JSON
  --wrong-id-on ID     answer with another case's id
  --bad-shape-on ID    answer with the right id but a response the schema rejects
  --skip-on ID         answer skip ("not applicable") with a reason
  --domains D,...      domains it claims in the handshake (default echo,fail)
  --exit-after N       exit 0 after answering N requests
  --no-handshake       never answer start
  --versions V,...     protocol versions spoken (default 1)
"""

from __future__ import annotations

import argparse
import json
import sys
import time

parser = argparse.ArgumentParser()
for fault in ("crash", "raise", "hang", "garbage", "wrong-id", "bad-shape", "skip"):
    parser.add_argument(f"--{fault}-on", default=None)
parser.add_argument("--exit-code", type=int, default=3)
parser.add_argument("--exit-after", type=int, default=None)
parser.add_argument("--no-handshake", action="store_true")
parser.add_argument("--versions", default="1")
parser.add_argument("--domains", default="echo,fail")
args = parser.parse_args()
versions = [int(v) for v in args.versions.split(",")]


def hits(switch: str | None, case_id: str) -> bool:
    return switch is not None and switch in ("*", case_id)


def answer(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


answered = 0
started = False
for line in sys.stdin:
    request = json.loads(line)
    if not started:
        if args.no_handshake:
            time.sleep(3600)
        if request.get("version") not in versions:
            answer(
                {
                    "ok": False,
                    "error": {"code": "unsupported_version", "message": "no"},
                    "versions": versions,
                }
            )
            continue
        started = True
        answer(
            {
                "ok": True,
                "implementation": {
                    "name": "fake",
                    "version": "0.0.0",
                    "language": "python",
                    "domains": args.domains.split(","),
                },
            }
        )
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
    if hits(args.hang_on, case_id):
        time.sleep(3600)
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
        answer({"id": case_id, "error": {"code": "fake_error", "message": "as requested"}})
    else:
        answer({"id": case_id, "output": {"echo": request["input"]}})
    answered += 1
    if args.exit_after is not None and answered >= args.exit_after:
        sys.exit(0)
