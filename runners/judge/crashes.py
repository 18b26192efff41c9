"""What crashed: a crash's cluster kind, ``crash CAUSE``, read from its message.

The rule (which causes the harness names, which the platform's error class names) is
``runners/judge/clusters.py``'s module docstring; ``runners/judge/keys.py`` keys a
crash by it.
"""

from __future__ import annotations

import functools
import re
import signal
from collections.abc import Mapping
from typing import Any

# The harness's crash messages (adapters/worker.py, adapters/*.py, the repo's workers,
# runners/run/batches.py, runners/run/jobs.py), each matched at the start of the message; a
# platform name in front is matched as text without a colon (an error class has one).
_HARNESS_CAUSES = (
    (r"no response within ", "timeout"),
    (r"worker wrote invalid JSON ", "not JSON"),
    (
        r"expected response for id |worker response for case .* does not match the protocol"
        r"|rust extension (?:broke the protocol|rejected the request)"
        r"|request is not (?:JSON|a JSON object)|unknown command |run request without "
        r"|[^:]*? returned (?:no|a malformed) response",
        "protocol",
    ),
    (r"[^:]*? adapter raised \w+: ", "adapter bug"),
    (r"output (?:of \S+ )?is not JSON", "output not JSON"),
    (r"[^:]*? does not implement |unknown domain\b", "not implemented"),
    (r"[^:]*? (?:did not start: |adapter raised \w+ in start\(\))", "did not start"),
    (
        r"worker could not be restarted|cannot run worker |worker ['\"]|[^:]*? is broken: ",
        "unavailable",
    ),
    (r"[^:]*? declared broken after |not run: ", "not run"),
    (r"not sent: ", "input not sent"),
    (r"the harness job running ", "harness job"),
    (r"harness bug: ", "harness bug"),
)
# One pattern, one group per cause (one match per message, not one per cause).
_HARNESS = re.compile("|".join(f"(?P<c{i}>{p})" for i, (p, _) in enumerate(_HARNESS_CAUSES)))
# The JS platform runs hooks and tool-call-pipeline cases in a worker thread
# (impl_js/conformance/run-in-thread.js), whose failures come wrapped in an Error.
_JS_THREAD = re.compile(
    r"Error: \S+ (?:(?P<crashed>case crashed in its worker thread:\n)"
    r"|(?P<timeout>worker thread gave no answer in )|(?P<protocol>worker thread answered nothing))"
)
_EXITED = re.compile(r"worker exited with code (-?[0-9]+|None) while running ")
_PANIC = re.compile(r"(thread '.*' )?panicked at ")
_ERROR_CLASS = re.compile(r"((?:[A-Za-z_$][\w$]*\.)*[A-Z][\w$]*)(?=[:(]|$)")


def _exit_cause(code: str) -> str:
    if code == "None":
        return "closed stdout"
    number = int(code)
    if number >= 0:
        return f"exit {number}"
    try:
        return f"signal {signal.Signals(-number).name}"
    except ValueError:
        return f"signal {-number}"


def crash_cause(message: str, detail: str = "") -> str | None:
    """What crashed, from a crash's message (and detail); None if it names no cause.
    The rule is the module docstring's."""
    if detail.startswith("panicked"):  # a Rust panic caught by hanzo-conformance's batch
        return "panic"
    thread = _JS_THREAD.match(message)
    if thread:  # the stack the thread posted begins with the error's own class
        crashed = thread.lastgroup == "crashed"
        return crash_cause(message[thread.end() :]) if crashed else thread.lastgroup
    # The error class first: the quickest test, and no message the harness makes
    # starts with a name followed by ":" or "(".
    named = _ERROR_CLASS.match(message)
    if named:
        return named.group(1)[:80]
    exited = _EXITED.match(message)
    if exited:
        return _exit_cause(exited.group(1))
    harness = _HARNESS.match(message)
    if harness:
        return _HARNESS_CAUSES[int(str(harness.lastgroup)[1:])][1]
    return "panic" if _PANIC.match(message) else None


def crash_kind(message: str, detail: str = "") -> str:
    """``crash CAUSE``, or ``crash`` for a message that names no cause."""
    cause = crash_cause(message, detail)
    return f"crash {cause}" if cause else "crash"


def is_crash(kind: str) -> bool:
    return kind == "crash" or kind.startswith("crash ")


def result_crash_kind(result: Mapping[str, Any]) -> str:
    """A crash result's kind: its message is "PLATFORM crashed[ (chunking V)]: MESSAGE"
    (runners/judge/outcomes.py), or the harness's own ("PLATFORM did not start: ...")."""
    panicked = str(result.get("detail") or "").startswith("panicked")
    return _result_kind(result["platform"], str(result.get("message") or ""), panicked)


@functools.lru_cache(maxsize=1024)  # a run's crashes often share a message
def _result_kind(platform: str, message: str, panicked: bool) -> str:
    said = f"{platform} crashed"
    if message.startswith(said):
        rest = message[len(said) :]
        if rest.startswith(" (chunking "):
            rest = rest[rest.find(")") + 1 :]
        if rest.startswith(": "):
            message = rest[2:]
    return crash_kind(message, "panicked" if panicked else "")
