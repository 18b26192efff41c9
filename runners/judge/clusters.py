"""Divergences grouped by cause: the 2 causes behind 103 failures, not 103 blocks.

A divergence is one differing pointer, one output-schema violation, or one crash.
Its cause is approximated by a **cluster key**: the pointer pattern (array indices
replaced by ``*``) and the kind of difference (``null -> string``, ``missing``,
``extra``, ``error invalid_x -> output``, ``crash UnicodeDecodeError``, ...).
Divergences of one platform with the same key form a cluster. Every report shows
the clusters, largest first; the JSON results carry the cluster id on each
divergence, and an expectations ledger entry may name a cluster (``runners/gate/ledger.py``).

A crash's kind is ``crash CAUSE`` (pattern ``""``), the cause read from its message
(``crash_cause``), never with a variable part (a position, a byte, an address):

* where the harness made the crash, its own lower-case class: ``timeout`` (no answer
  in time), ``exit N`` (the worker exited with code N), ``signal SIGNAME`` (killed by
  a signal), ``closed stdout`` (end of output, no exit), ``not JSON`` (an answer line
  that is not JSON), ``protocol`` (an answer out of turn or not in the protocol's
  shape, a request the platform's side refused), ``output not JSON``, ``not
  implemented`` (the platform lacks the domain), ``did not start`` / ``unavailable``
  (the platform did not start / could not be restarted), ``not run`` (given up after
  earlier failures), ``input not sent``, ``adapter bug`` (an adapter's run() raised),
  ``harness job``, ``harness bug``;
* else the platform's own error class: ``panic`` for a Rust panic (``panicked at``
  in the message, or a detail starting ``panicked``), or a leading (dotted) name whose
  last part starts upper-case, followed by ``:``, ``(`` or the end of the message:
  ``UnicodeDecodeError: ...``, ``UnicodeDecodeError('utf-8', ...)`` (a ``repr``),
  JS ``TypeError: ...`` all name their class (a JS case run in a worker thread: the
  class its stack names, after the thread's wrapper);
* else plain ``crash``: a cause the message does not name. Such crashes may have
  nothing in common, so ``expectations --update`` records them per case.
"""

from __future__ import annotations

import functools
import hashlib
import re
import signal
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from .._textsafe import bound, shown
from .keys import case_key, violation_kind

_INDEX = re.compile(r"^(0|[1-9][0-9]*)$")


def pointer_pattern(pointer: str) -> str:
    """``/frames/3/data`` -> ``/frames/*/data``: which element differs does not matter."""
    if not pointer:
        return ""
    return "/" + "/".join("*" if _INDEX.match(s) else s for s in pointer[1:].split("/"))


def json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def _envelope_side(value: Any) -> str | None:
    """For a whole-output difference: ``error CODE`` or ``output`` (None if not an envelope)."""
    if isinstance(value, Mapping) and len(value) == 1:
        if "error" in value:
            return f"error {value['error']}"
        if "output" in value:
            return "output"
    return None


def difference_kind(d: Mapping[str, Any]) -> str:
    """The kind of one difference (a ``diff`` entry of the results document)."""
    if "actual" not in d:
        return "missing"
    if "expected" not in d:
        return "extra"
    expected, actual = d["expected"], d["actual"]
    if d["pointer"] == "":
        sides = _envelope_side(expected), _envelope_side(actual)
        if None not in sides:
            return f"{sides[0]} -> {sides[1]}"
    te, ta = json_type(expected), json_type(actual)
    if te != ta:
        return f"{te} -> {ta}"
    return f"other {te}"


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


@functools.lru_cache(maxsize=4096)
def cluster_id(pattern: str, kind: str) -> str:
    """A short stable id of a (pattern, kind) key: the same on every run and platform."""
    return "c" + hashlib.sha256(f"{pattern}\0{kind}".encode()).hexdigest()[:8]


@dataclass(frozen=True)
class Divergence:
    """One divergence of one result, with its cluster key."""

    pattern: str
    kind: str
    entry: Mapping[str, Any]  # the diff / schema_errors entry, or the result for a crash


def unledgered_status(result: Mapping[str, Any]) -> str:
    """The status without any ledger: an ``xfail`` is what it records in
    ``expected_status`` (a recorded crash is still a crash)."""
    status: str = result["status"]
    return result.get("expected_status", "fail") if status == "xfail" else status


def divergences(result: Mapping[str, Any]) -> Iterator[Divergence]:
    """Every divergence of a failing or erroring result (none for pass, skip, not_run)."""
    if unledgered_status(result) == "error":
        yield Divergence("", result_crash_kind(result), result)
        return
    for d in result.get("diff", ()):
        yield Divergence(pointer_pattern(d["pointer"]), difference_kind(d), d)
    for s in result.get("schema_errors", ()):
        yield Divergence(pointer_pattern(s["pointer"]), violation_kind(s), s)


def result_keys(result: Mapping[str, Any]) -> set[tuple[str, str]]:
    """The (pattern, kind) keys a result's divergences fall in."""
    return {(d.pattern, d.kind) for d in divergences(result)}


@dataclass
class Cluster:
    platform: str
    pattern: str
    kind: str
    cases: list[str] = field(default_factory=list)  # domain::case, each once (the first `keep`)
    divergences: int = 0
    clauses: set[str] = field(default_factory=set)
    example: Mapping[str, Any] | None = None
    expected: int = 0  # cases whose result is xfail (a ledger records them)
    size: int = 0  # cases in the cluster (``cases`` may list only the first ``keep``)
    keep: int | None = None  # None: list every case (the HTML report's members)
    _last: str | None = field(default=None, repr=False)

    def add(
        self, case: str, clauses: Sequence[str], entry: Mapping[str, Any], xfail: bool = False
    ) -> None:
        self.divergences += 1
        # A case has one result per platform and its divergences are added together, so
        # a case new to the cluster is one other than the last added: no set of every case.
        if case != self._last:
            self._last = case
            self.size += 1
            if self.keep is None or len(self.cases) < self.keep:
                self.cases.append(case)
            self.expected += xfail
        self.clauses.update(clauses)
        if self.example is None:
            self.example = entry

    @property
    def id(self) -> str:
        return cluster_id(self.pattern, self.kind)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "platform": self.platform,
            "pattern": self.pattern,
            "kind": self.kind,
            "cases": self.size,
            "divergences": self.divergences,
            "clauses": sorted(self.clauses),
            "examples": self.cases[:3],
        }


def _considered(result: Mapping[str, Any]) -> bool:
    # An expected divergence (xfail) still belongs to its cluster: that is how a
    # ledger entry covering a cluster is reviewed.
    return result["status"] in ("fail", "error", "xfail")


class ClusterTally:
    """Clusters built one result at a time; ``keep`` bounds the case names each one lists."""

    def __init__(self, keep: int | None = None) -> None:
        self.keep = keep
        self._by_key: dict[tuple[str, str, str], Cluster] = {}

    def add(self, result: Mapping[str, Any], clauses: Sequence[str] = ()) -> None:
        if not _considered(result):
            return
        platform = result["platform"]
        name = case_key(result["domain"], result["case"])
        xfail = result["status"] == "xfail"
        for d in divergences(result):
            key = (platform, d.pattern, d.kind)
            c = self._by_key.get(key)
            if c is None:
                c = self._by_key[key] = Cluster(platform, d.pattern, d.kind, keep=self.keep)
            c.add(name, clauses, d.entry, xfail)

    def clusters(self) -> list[Cluster]:
        """Largest (most cases) first."""
        return sorted(self._by_key.values(), key=lambda c: (-c.size, c.platform, c.pattern, c.kind))


def clusters(
    results: Sequence[Mapping[str, Any]], cases: Mapping[str, Mapping[str, Any]] | None = None
) -> list[Cluster]:
    """Clusters of every platform, largest (most cases) first."""
    tally = ClusterTally()
    for r in results:
        info = (cases or {}).get(case_key(r["domain"], r["case"]), {})
        tally.add(r, info.get("clauses", ()))
    return tally.clusters()


def _example_line(c: Cluster) -> str:
    e = c.example or {}
    if is_crash(c.kind) or c.kind in ("output schema", "not I-JSON"):
        return f"e.g. {bound(str(e.get('message', '')), 160)}"
    expected = shown(e["expected"], 80) if "expected" in e else "(absent)"
    actual = shown(e["actual"], 80) if "actual" in e else "(absent)"
    return f"e.g. expected {expected}, actual {actual}"


def _clause_list(clauses: set[str], limit: int = 6) -> str:
    listed = sorted(clauses)
    more = f" and {len(listed) - limit} more" if len(listed) > limit else ""
    return ", ".join(listed[:limit]) + more


def render_clusters(
    cluster_list: Sequence[Cluster],
    limit: int | None = 12,
    marks: ClusterMarks | None = None,
    rest: str = "see --format json",
) -> str:
    """The text report's "divergences by cause" section: the first ``limit`` clusters
    (None: all), ``rest`` saying where the others are. With ``marks``
    (``runners/judge/marks.py``), each cluster's marked clauses are shown and one
    touching a security-relevant clause is never cut (the caller orders them first)."""
    if not cluster_list:
        return ""
    kept = [
        c
        for i, c in enumerate(cluster_list)
        if limit is None or i < limit or (marks is not None and marks.security(c))
    ]
    first = marks is not None and any(marks.security(c) for c in kept)
    order = "security-relevant first, then largest first" if first else "largest first"
    lines = [f"divergences by cause ({order}):"]
    for c in kept:
        where = c.pattern or "(whole output)"
        n = c.size
        ledgered = ""
        if c.expected:
            ledgered = " (all xfail)" if c.expected == n else f" ({c.expected} xfail)"
        lines.append(
            f"  [{c.id}] {c.platform}: {n} case{'s' if n != 1 else ''}{ledgered}, "
            f"{where}: {c.kind}" + (f"  (clauses {_clause_list(c.clauses)})" if c.clauses else "")
        )
        if marks is not None:
            lines.extend(f"      {bound(note, 400)}" for note in marks.notes(c))
        lines.append(f"      {_example_line(c)}")
        more = f" and {n - 3} more" if n > 3 else ""
        lines.append(f"      cases: {', '.join(c.cases[:3])}{more}")
    if len(cluster_list) > len(kept):
        lines.append(f"  … {len(cluster_list) - len(kept)} smaller clusters ({rest})")
    return "\n".join(lines)


def unannotated(r: dict[str, Any]) -> None:
    """Take ``annotate_result``'s cluster ids off a result again (in place): a saved result
    as it was before (``merge`` judges the shards' results again)."""
    r.pop("cluster", None)
    for d in r.get("diff", ()):
        d.pop("cluster", None)
    for s in r.get("schema_errors", ()):
        s.pop("cluster", None)


class ClusterMarks(Protocol):
    """What ``render_clusters`` asks of a cluster's marked clauses (``marks.MarkTally``)."""

    def security(self, c: Cluster) -> list[str]: ...

    def notes(self, c: Cluster) -> list[str]: ...


def annotate_result(r: dict[str, Any]) -> None:
    """Put the cluster id on each divergence of one result (in place)."""
    if unledgered_status(r) == "error":
        r["cluster"] = cluster_id("", result_crash_kind(r))
        return
    for d in r.get("diff", ()):
        d["cluster"] = cluster_id(pointer_pattern(d["pointer"]), difference_kind(d))
    for s in r.get("schema_errors", ()):
        s["cluster"] = cluster_id(pointer_pattern(s["pointer"]), violation_kind(s))
