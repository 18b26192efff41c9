"""A worker (docs/protocol.md) whose platform lacks two output fields: partial answers.

It serves permission-policy with the Python reference (adapters.python) and leaves
out ``rule_index`` and ``audit``, declaring them absent in its handshake, as a worker
around a package without them would. Switches (an id, or a prefix ending in ``*``):

  --per-response       declare the fields absent on each answer instead of the handshake
  --wrong-mode-on ID   answer a wrong ``mode`` (a field it has): a plain failure
  --keep-audit-on ID   answer ``audit`` all the same (a field it declared absent)
  --skip-on ID         answer skip, with --skip-reason (default "no glob patterns";
                       "{id}" in it stands for the request id)
"""

from __future__ import annotations

import argparse
import json
import sys

from adapters.python import PythonAdapter

ABSENT = ["/rule_index", "/audit"]
DOMAIN = "permission-policy"

parser = argparse.ArgumentParser()
parser.add_argument("--per-response", action="store_true")
parser.add_argument("--wrong-mode-on", default=None)
parser.add_argument("--keep-audit-on", default=None)
parser.add_argument("--skip-on", default=None)
parser.add_argument("--skip-reason", default="no glob patterns")
args = parser.parse_args()


def hits(switch: str | None, case_id: str) -> bool:
    if switch is None:
        return False
    return case_id.startswith(switch[:-1]) if switch.endswith("*") else case_id == switch


def answer(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


reference = PythonAdapter()
reference.start()
started = False
for line in sys.stdin:
    request = json.loads(line)
    if not started:
        implementation = {
            "name": "partial-fake",
            "version": "0.0.0",
            "language": "python",
            "domains": [DOMAIN],
        }
        if not args.per_response:
            implementation["absent"] = {DOMAIN: ABSENT}
        answer({"ok": True, "implementation": implementation})
        started = True
        continue
    if request["cmd"] == "stop":
        break
    case_id = request["id"]
    if hits(args.skip_on, case_id):
        answer({"id": case_id, "skip": {"reason": args.skip_reason.replace("{id}", case_id)}})
        continue
    [response] = reference.run([{k: request[k] for k in ("id", "domain", "input")}])
    output = response.get("output")
    if isinstance(output, dict):
        audit = output.pop("audit", None)
        output.pop("rule_index", None)
        if hits(args.wrong_mode_on, case_id):
            output["mode"] = "allow" if output.get("mode") != "allow" else "deny"
        if hits(args.keep_audit_on, case_id):
            output["audit"] = audit
        if args.per_response:
            response["absent"] = ABSENT
    answer(response)
