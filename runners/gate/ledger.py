"""Expectations ledger: a platform's known divergences, so it can gate before it is perfect.

A ledger (``schemas/expectations.schema.json``) belongs to one platform. Applied to a
run's results, it turns each divergence it records into status ``xfail`` (shown as
such everywhere, never as a pass), and the gate fails on anything else:

* a divergence no entry records (the result stays ``fail`` / ``error``);
* an entry whose case now passes (stale: the message says which entry to delete);
* an entry whose case fails differently than it records;
* an entry past its expiry date;
* an entry naming a case, a content hash or a platform that does not exist.

A **case entry** records how one case fails: the differing JSON pointers, the
contract error code the platform returns, or a crash and its cause (``{"crash":
"TypeError"}``; ``{"crash": true}``, any cause, is what a message naming none gets);
or the fields a partial answer lacks (``{"absent": [...]}``: the platform declared
them absent, docs/protocol.md). A partial result an entry records stays ``partial``
(with the entry as its ``expectation``): it is counted and shown as partial, and the
gate passes it; one no entry records fails the gate.
A **cluster entry** covers one systematic difference (its cluster key, pointer pattern
+ kind: ``runners/judge/keys.py``) and lists every case it covers; each listed case
must still diverge in that cluster. A crash is a cluster by its cause (kind ``crash
UnicodeDecodeError``, ``crash timeout``, ...): a case listed there must still crash
with that cause.

A platform that failed as a whole (it did not start, could not be restarted, or was
given up on: ``PLATFORM_FAILURES``) says nothing about any case. No entry may record
such a crash, or a platform that never ran would gate green; its results stay errors,
and each ledger of it gets one ``unchecked`` problem instead of one per entry.
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

from .._input_files import loads_unique, not_regular
from .._textsafe import bound
from ..exceptions import HarnessError
from ..judge.crashes import result_crash_kind
from ..judge.keys import Divergence, case_key, divergences, unledgered_status
from ..vectors.schemas import SCHEMAS_DIR, pointer

UNREVIEWED = "unreviewed: written by `hanzo-conformance expectations --update`"
# Crash kinds (runners/judge/clusters.py) that the platform as a whole gives its cases.
PLATFORM_FAILURES = frozenset({"crash did not start", "crash unavailable", "crash not run"})
# A case entry's crash recorded without its cause (as before causes were read): any cause.
ANY_CRASH = {"crash": True}


class LedgerFileError(HarnessError):
    """A ledger file is unreadable or does not match its schema (exit 2)."""


@dataclass(frozen=True)
class Entry:
    index: int  # position in the ledger's entries, as the messages name it
    raw: Mapping[str, Any]

    @property
    def cluster(self) -> tuple[str, str] | None:
        c = self.raw.get("cluster")
        return (c["pattern"], c["kind"]) if c else None

    @property
    def cases(self) -> list[Mapping[str, Any]]:
        return list(self.raw["cases"]) if self.cluster else [self.raw]

    def describe(self) -> str:
        if self.cluster:
            pattern, kind = self.cluster
            return f"entry #{self.index} (cluster {pattern or '(whole output)'}: {kind})"
        return f"entry #{self.index} ({self.raw['domain']}::{self.raw['case']})"


@dataclass
class Ledger:
    path: Path
    platform: str
    entries: list[Entry]
    description: str | None = None


@dataclass(frozen=True)
class GateProblem:
    """A reason the gate fails that is not an unexpected divergence of a result."""

    # stale | changed | expired | unknown-case | changed-hash | unknown-platform | unchecked
    kind: str
    ledger: str
    platform: str
    message: str
    cases: tuple[str, ...] = ()  # for stale, and changed of a cluster: its cases (domain::case)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "kind": self.kind,
            "ledger": self.ledger,
            "platform": self.platform,
            "message": self.message,
        }
        if self.cases:
            out["cases"] = list(self.cases)
        return out


def _validator() -> Draft202012Validator:
    schema = json.loads((SCHEMAS_DIR / "expectations.schema.json").read_text(encoding="utf-8"))
    return Draft202012Validator(schema)


def load_ledger(path: Path) -> Ledger:
    if (refused := not_regular(path)) is not None:
        raise LedgerFileError(f"{path}: {refused}")
    try:
        doc = loads_unique(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise LedgerFileError(f"{path}: no such expectations file") from None
    except (OSError, UnicodeDecodeError, ValueError) as e:
        raise LedgerFileError(
            f"{path}: not a JSON expectations file: {bound(str(e), 200)}"
        ) from None
    errors = sorted(_validator().iter_errors(doc), key=lambda e: list(e.absolute_path))
    if errors:
        lines = [f"{pointer(e.absolute_path) or '(root)'}: {bound(e.message, 300)}" for e in errors]
        raise LedgerFileError(f"{path}: invalid expectations file:\n  " + "\n  ".join(lines[:20]))
    for i, raw in enumerate(doc["entries"]):
        where, kind = _recorded_crash(raw)
        if kind in PLATFORM_FAILURES:
            raise LedgerFileError(
                f"{path}: invalid expectations file:\n  /entries/{i}/{where}: {kind!r} "
                "is the platform failing as a whole, not a case diverging; a ledger cannot "
                "record it (make the platform run, then record what its cases do)"
            )
        try:
            if "expires" in raw:
                datetime.date.fromisoformat(raw["expires"])
        except ValueError:
            raise LedgerFileError(
                f"{path}: invalid expectations file:\n  /entries/{i}/expires: "
                f"{raw['expires']!r} is not a date (YYYY-MM-DD)"
            ) from None
    entries = [Entry(i, e) for i, e in enumerate(doc["entries"])]
    return Ledger(path, doc["platform"], entries, doc.get("description"))


def _recorded_crash(raw: Mapping[str, Any]) -> tuple[str, str | None]:
    """Where an entry records a crash's kind, and the kind (None if it records none)."""
    if "cluster" in raw:
        return "cluster/kind", raw["cluster"]["kind"]
    cause = raw["fails"].get("crash")
    return "fails/crash", f"crash {cause}" if isinstance(cause, str) else None


def _today() -> datetime.date:
    return datetime.datetime.now(datetime.timezone.utc).date()


def _signature(
    result: Mapping[str, Any],
    ignore: set[tuple[str, str]],
    found: Sequence[Divergence] | None = None,
) -> dict[str, Any]:
    """How a result fails, in a case entry's terms (divergences in ``ignore`` clusters
    aside; ``found``: its ``divergences``, when the caller has them)."""
    if result["status"] == "partial":
        return {"absent": sorted(result.get("absent", ()))}
    each = divergences(result) if found is None else found
    rest = [d for d in each if (d.pattern, d.kind) not in ignore]
    if not rest:
        return {"pointers": []}
    if unledgered_status(result) == "error":
        kind = result_crash_kind(result)  # "crash CAUSE", or "crash" for a cause not named
        return {"crash": kind[len("crash ") :] if kind != "crash" else True}
    actual = result.get("actual")
    if isinstance(actual, Mapping) and set(actual) == {"error"}:
        code = actual["error"].get("code") if isinstance(actual["error"], Mapping) else None
        if code:
            return {"error": code}
    return {"pointers": sorted({p for d in rest for p in d.pointers})}


@dataclass
class _Coverage:
    case_entry: Entry | None = None
    cluster_entries: list[Entry] = field(default_factory=list)


@dataclass
class _Applied:
    """One ledger as the gate applies it: the case references of its live entries."""

    ledger: Ledger
    where: str
    live: bool  # its platform is in the run
    expired: dict[int, str] = field(default_factory=dict)  # entry index -> its problem
    refs: dict[str, list[tuple[Entry, str]]] = field(default_factory=dict)  # key -> entry, hash
    result_problems: list[GateProblem] = field(default_factory=list)
    stale: dict[int, list[str]] = field(default_factory=dict)  # entry index -> cases now passing
    # (cluster entry index, how they fail now) -> its cases that left the cluster
    left: dict[tuple[int, str], list[str]] = field(default_factory=dict)
    unchecked: int = 0  # results of cases it names that the platform failed as a whole
    unchecked_why: str = ""  # the first of those results' messages

    def problem(self, kind: str, message: str, cases: tuple[str, ...] = ()) -> GateProblem:
        where = self.where
        return GateProblem(kind, where, self.ledger.platform, f"{where}: {message}", cases)

    def stale_problem(self, entry: Entry) -> GateProblem:
        """One problem for all of ``entry``'s cases that now pass (not one line per case)."""
        keys, total, platform = self.stale[entry.index], len(entry.cases), self.ledger.platform
        if len(keys) == 1:
            what = (
                f"remove case {keys[0]} from {entry.describe()}"
                if entry.cluster and total > 1
                else f"delete {entry.describe()}"
            )
            message = f"{keys[0]} now passes on {platform}: {what}"
        elif len(keys) == total:
            message = f"all {total} cases of {entry.describe()} now pass on {platform}: delete it"
        else:
            message = (
                f"{len(keys)} of the {total} cases of {entry.describe()} now pass on "
                f"{platform}: remove them from it ({_listed(keys)})"
            )
        return self.problem("stale", message, tuple(keys))

    def left_problem(self, entry: Entry, now: str) -> GateProblem:
        """One problem for the cases that left ``entry``'s cluster and now fail as ``now``."""
        keys, platform = self.left[(entry.index, now)], self.ledger.platform
        if len(keys) == 1:
            message = (
                f"{keys[0]} no longer diverges in {entry.describe()} on {platform}: "
                f"remove it from that entry (it now fails as {now})"
            )
        else:
            message = (
                f"{len(keys)} cases no longer diverge in {entry.describe()} on {platform}: "
                f"remove them from that entry (they now fail as {now}: {_listed(keys)})"
            )
        return self.problem("changed", message, tuple(keys))


def _listed(keys: Sequence[str], shown: int = 5) -> str:
    """The first few case keys, and how many more (the JSON problem lists them all)."""
    more = f" and {len(keys) - shown} more" if len(keys) > shown else ""
    return ", ".join(keys[:shown]) + more


class LedgerGate:
    """The ledgers applied one result at a time (a run streams its results through it).

    ``see_case`` is told every case that exists (``domain::case`` and its content
    hash), also those outside the run's domains or shard; only the ones the ledgers
    name are kept. ``judge`` marks an expected divergence ``xfail`` in place;
    ``problems`` is the gate's other problems once every case and result went through.
    """

    def __init__(
        self,
        ledgers: Sequence[Ledger],
        platforms: Iterable[str],
        today: datetime.date | None = None,
    ) -> None:
        today = today or _today()
        names = set(platforms)
        self._applied: list[_Applied] = []
        self._by_platform: dict[str, list[_Applied]] = {}
        self._known: dict[str, str] = {}
        for ledger in ledgers:
            applied = _Applied(ledger, str(ledger.path), ledger.platform in names)
            self._applied.append(applied)
            if not applied.live:
                continue
            self._by_platform.setdefault(ledger.platform, []).append(applied)
            for entry in ledger.entries:
                expires = entry.raw.get("expires")
                if expires and datetime.date.fromisoformat(expires) < today:
                    applied.expired[entry.index] = (
                        f"{entry.describe()} expired on {expires}: fix or renew it"
                    )
                    continue
                for ref in entry.cases:
                    key = case_key(ref["domain"], ref["case"])
                    applied.refs.setdefault(key, []).append((entry, ref["hash"]))
        self._named = {key for a in self._applied for key in a.refs}
        self._platforms = sorted(names)

    def names(self, domain: str, case: str) -> bool:
        """Whether a ledger names this case (its results must go through ``judge``)."""
        return bool(self._named) and case_key(domain, case) in self._named

    def see_case(self, key: str, content_hash: str) -> None:
        if key in self._named:
            self._known[key] = content_hash

    def judge(self, result: dict[str, Any], found: Sequence[Divergence] | None = None) -> None:
        """Mark ``result`` xfail if a ledger records exactly how it fails; note stale
        entries. ``found``: its ``divergences``, when the caller has them."""
        for applied in self._by_platform.get(result["platform"], ()):
            if result["status"] in ("skip", "not_run"):
                return
            key = case_key(result["domain"], result["case"])
            refs = applied.refs.get(key)
            if not refs:
                continue
            cover = _Coverage()
            for entry, recorded_hash in refs:
                if recorded_hash != result["case_hash"]:
                    continue  # a changed-hash problem (reported once, by ``problems``)
                if entry.cluster:
                    cover.cluster_entries.append(entry)
                else:
                    cover.case_entry = entry
            if cover.case_entry is None and not cover.cluster_entries:
                continue
            if result["status"] == "error" and result_crash_kind(result) in PLATFORM_FAILURES:
                applied.unchecked += 1
                applied.unchecked_why = applied.unchecked_why or str(result.get("message"))
                continue

            if result["status"] == "pass":
                case_entries = [cover.case_entry] if cover.case_entry else []
                for entry in [*case_entries, *cover.cluster_entries]:
                    applied.stale.setdefault(entry.index, []).append(key)
                continue
            _judge_expected(
                result, key, cover, applied, tuple(divergences(result)) if found is None else found
            )

    def problems(self) -> list[GateProblem]:
        """Per ledger, in entry order: its entries' problems, the cases of each entry that
        now pass, then its results' other problems."""
        out: list[GateProblem] = []
        for applied in self._applied:
            if not applied.live:
                out.append(
                    applied.problem(
                        "unknown-platform",
                        f"names platform {applied.ledger.platform!r}, which is not in this run "
                        f"(platforms: {', '.join(self._platforms) or 'none'})",
                    )
                )
                continue
            out.extend(self._entry_problems(applied))
            entries = applied.ledger.entries
            out.extend(applied.stale_problem(e) for e in entries if e.index in applied.stale)
            out.extend(applied.left_problem(entries[i], now) for i, now in sorted(applied.left))
            out.extend(applied.result_problems)
            if applied.unchecked:
                out.append(
                    applied.problem(
                        "unchecked",
                        f"{applied.unchecked} result(s) of cases it records were not checked, "
                        f"because the platform failed as a whole: {bound(applied.unchecked_why)}",
                    )
                )
        return out

    def _entry_problems(self, applied: _Applied) -> Iterator[GateProblem]:
        for entry in applied.ledger.entries:
            if entry.index in applied.expired:
                yield applied.problem("expired", applied.expired[entry.index])
                continue
            for ref in entry.cases:
                key = case_key(ref["domain"], ref["case"])
                known = self._known.get(key)
                if known is None:
                    yield applied.problem(
                        "unknown-case", f"{entry.describe()} names case {key}, which does not exist"
                    )
                elif known != ref["hash"]:
                    yield applied.problem(
                        "changed-hash",
                        f"{entry.describe()} names case {key} with hash {ref['hash'][:12]}…, but "
                        f"the case now hashes to {known[:12]}… (the vector changed): "
                        "check the case again and re-record the entry",
                    )


def apply_ledgers(
    doc: dict[str, Any],
    ledgers: Sequence[Ledger],
    known_cases: Mapping[str, str],
    today: datetime.date | None = None,
) -> list[GateProblem]:
    """Mark expected divergences ``xfail`` in ``doc`` (in place); the gate's other problems.

    ``known_cases`` maps ``domain::case`` to the content hash of every case that
    exists (also those outside this run's domains or shard, which are not judged).
    """
    gate = LedgerGate(ledgers, doc["summary"]["platforms"], today)
    for key, content_hash in known_cases.items():
        gate.see_case(key, content_hash)
    for result in doc["results"]:
        gate.judge(result)
    return gate.problems()


def _judge_expected(
    result: dict[str, Any],
    key: str,
    cover: _Coverage,
    applied: _Applied,
    found: Sequence[Divergence],
) -> None:
    """A failing result covered by entries: xfail if they record exactly how it fails."""
    ledger = applied.ledger
    keys = {(d.pattern, d.kind) for d in found}
    matched = True
    for entry in cover.cluster_entries:
        if entry.cluster not in keys:
            matched = False
            applied.left.setdefault((entry.index, _describe_keys(keys)), []).append(key)
    clustered = {e.cluster for e in cover.cluster_entries if e.cluster}
    rest = _signature(result, clustered, found)
    if cover.case_entry is not None:
        recorded = _normalized(cover.case_entry.raw["fails"])
        if recorded != rest and not (recorded == ANY_CRASH and "crash" in rest):
            matched = False
            changed = (
                f"{key} fails differently than {cover.case_entry.describe()} records: "
                f"recorded {json.dumps(recorded)}, now {bound(json.dumps(rest), 400)}"
            )
            applied.result_problems.append(applied.problem("changed", changed))
    elif rest != {"pointers": []}:
        matched = False  # divergences outside every recorded cluster: unexpected
    if matched:
        entries = [*([cover.case_entry] if cover.case_entry else []), *cover.cluster_entries]
        if result["status"] != "partial":  # a recorded partial stays partial, never xfail
            result["expected_status"] = result["status"]
            result["status"] = "xfail"
        result["expectation"] = {
            "ledger": str(ledger.path),
            "entries": [e.index for e in entries],
            "reason": "; ".join(dict.fromkeys(e.raw["reason"] for e in entries)),
        }


def unjudged(result: dict[str, Any]) -> None:
    """Undo ``LedgerGate.judge`` on a saved result (in place): an ``xfail`` is its status
    before the ledgers again (``merge`` judges the shards' results again)."""
    if "expected_status" in result:
        result["status"] = result.pop("expected_status")
    result.pop("expectation", None)


def _normalized(fails: Mapping[str, Any]) -> dict[str, Any]:
    """A case entry's ``fails`` as ``_signature`` spells it (pointers sorted)."""
    out = dict(fails)
    for key in ("pointers", "absent"):
        if key in out:
            out[key] = sorted(out[key])
    return out


def _describe_keys(keys: Iterable[tuple[str, str]]) -> str:
    return ", ".join(f"{p or '(whole output)'}: {k}" for p, k in sorted(keys)) or "nothing"


def ledger_from_results(
    doc: Mapping[str, Any],
    platform: str,
    previous: Ledger | None = None,
    cluster_threshold: int = 3,
) -> dict[str, Any]:
    """A ledger recording every current divergence of ``platform`` in ``doc``.

    Differences shared by at least ``cluster_threshold`` cases become one cluster
    entry; the rest are case entries. Reviews (reason, link, owner, expires) of a
    previous ledger's entries that still describe the same thing are kept, and a new
    cluster entry takes the review its cases' previous case entries all share. What the
    previous ledger says of a domain ``doc`` did not run is kept as it was: its case
    entries, and its cases in a cluster (a ledger may span domains, a run need not).
    """
    ran = {r["domain"] for r in doc["results"]}
    # The previous ledger's cluster cases and case entries of domains this run left out.
    carried: dict[tuple[str, str], list[dict[str, Any]]] = {}
    carried_entries: list[dict[str, Any]] = []
    for entry in previous.entries if previous else []:
        if entry.cluster:
            others = [dict(c) for c in entry.cases if c["domain"] not in ran]
            if others:
                carried[entry.cluster] = others
        elif entry.raw["domain"] not in ran:
            carried_entries.append(dict(entry.raw))
    failing = [
        r
        for r in doc["results"]
        if r["platform"] == platform
        and r["status"] in ("fail", "error", "xfail", "partial")
        and not (r["status"] == "error" and result_crash_kind(r) in PLATFORM_FAILURES)
    ]
    by_key: dict[tuple[str, str], list[Mapping[str, Any]]] = {}
    # each key's symptoms: the keys its divergences had alone (``Divergence.symptoms``)
    symptoms: dict[tuple[str, str], dict[tuple[str, str], None]] = {}
    for r in failing:
        for d in divergences(r):
            k = (d.pattern, d.kind)
            cases = by_key.setdefault(k, [])
            if not cases or cases[-1] is not r:
                cases.append(r)
            symptoms.setdefault(k, {}).update(dict.fromkeys(d.symptoms()))
    # A crash whose message names no cause (kind plain "crash") may share nothing with
    # another such crash: those stay case entries. A cluster the previous ledger has
    # stays one while any case still diverges in it, however few (a reviewer made it).
    kept = {e.cluster for e in previous.entries if e.cluster} if previous else set()
    big = {
        k
        for k, rs in by_key.items()
        if (len(rs) >= cluster_threshold or k in kept) and k[1] != "crash"
    } | set(carried)
    reviews = _previous_reviews(previous)
    case_reviews = _previous_case_reviews(previous)
    entries: list[dict[str, Any]] = []
    # Largest first; between clusters of one size, the previous ledger's order (no churn).
    place = (
        {c: i for i, c in enumerate(e.cluster for e in previous.entries if e.cluster)}
        if previous
        else {}
    )
    refs = {
        k: [
            *({"domain": r["domain"], "case": r["case"], "hash": r["case_hash"]} for r in rs),
            *carried.get(k, ()),
        ]
        for k, rs in by_key.items()
    }
    for k in carried.keys() - refs.keys():
        refs[k] = carried[k]
    for k in sorted(big, key=lambda k: (-len(refs[k]), place.get(k, len(place)), k)):
        review = _symptoms_review([k, *symptoms.get(k, ())], reviews) or _shared_case_review(
            by_key.get(k, ()), case_reviews
        )
        entries.append({"cluster": {"pattern": k[0], "kind": k[1]}, "cases": refs[k], **review})
    for r in failing:
        fails = _signature(r, big)
        if fails == {"pointers": []}:
            continue
        key = case_key(r["domain"], r["case"])
        # A crash reviewed before its cause was recorded keeps that review.
        review = (
            reviews.get(("case", key, json.dumps(fails, sort_keys=True)))
            or ("crash" in fails and reviews.get(("case", key, json.dumps(ANY_CRASH))))
            or _unreviewed()
        )
        entries.append(
            {
                "domain": r["domain"],
                "case": r["case"],
                "hash": r["case_hash"],
                "fails": fails,
                **review,
            }
        )
    entries.extend(carried_entries)
    ledger: dict[str, Any] = {"platform": platform}
    if previous is not None and previous.description:
        ledger["description"] = previous.description
    ledger["entries"] = entries
    return ledger


def _unreviewed() -> dict[str, str]:
    return {"reason": UNREVIEWED, "link": "", "owner": ""}


def _review(raw: Mapping[str, Any]) -> dict[str, str]:
    return {k: raw[k] for k in ("reason", "link", "owner", "expires") if k in raw}


def _symptoms_review(
    symptoms: Iterable[tuple[str, str]], reviews: Mapping[tuple[str, ...], dict[str, str]]
) -> dict[str, str] | None:
    """A cluster's review: that of the previous cluster entries keyed by its key or
    by one of its symptoms (when a difference and its schema violation, or one map
    key each, became one cause). Every reviewed reason is kept, its own key's first."""
    keys = dict.fromkeys(("cluster", *k) for k in symptoms)
    found = [reviews[k] for k in keys if k in reviews]
    reviewed = [r for r in found if r.get("reason") != UNREVIEWED]
    if not reviewed:
        return found[0] if found else None
    reasons = list(dict.fromkeys(r["reason"] for r in reviewed))
    joined = reasons[0]
    for reason in reasons[1:]:
        joined += (" " if joined.endswith((".", "!", "?")) else "; ") + reason
    return {**reviewed[0], "reason": joined}


def _previous_case_reviews(previous: Ledger | None) -> dict[str, dict[str, str]]:
    """The previous ledger's case entries' reviews by case key (built once per ledger)."""
    return {
        case_key(e.raw["domain"], e.raw["case"]): _review(e.raw)
        for e in (previous.entries if previous else [])
        if not e.cluster
    }


def _shared_case_review(
    results: Sequence[Mapping[str, Any]], by_case: Mapping[str, dict[str, str]]
) -> dict[str, str]:
    """A new cluster's review: the one review that the previous case entries of all its
    cases share (as when crashes recorded case by case become a cluster of their cause)."""
    found = [by_case.get(case_key(r["domain"], r["case"])) for r in results]
    if not found:
        return _unreviewed()
    first = found[0]
    if first is not None and all(review == first for review in found):
        return first
    return _unreviewed()


def _previous_reviews(previous: Ledger | None) -> dict[tuple[str, ...], dict[str, str]]:
    reviews: dict[tuple[str, ...], dict[str, str]] = {}
    for entry in previous.entries if previous else []:
        review = _review(entry.raw)
        if entry.cluster:
            pattern, kind = entry.cluster
            reviews[("cluster", pattern, kind)] = review
        else:
            key = case_key(entry.raw["domain"], entry.raw["case"])
            fails = _normalized(entry.raw["fails"])
            reviews[("case", key, json.dumps(fails, sort_keys=True))] = review
    return reviews


def ledger_text(ledger: Mapping[str, Any]) -> str:
    """A ledger as JSON, indented, with each case reference on one line (reviewable diffs).

    The text is built in one pass (a case reference is written on its line as it comes),
    so a ledger of many cluster cases costs time linear in its size."""
    parts: list[str] = []
    _indented(ledger, 0, parts, ("entries", "cases"), ())
    parts.append("\n")
    return "".join(parts)


def _indented(
    value: Any, level: int, out: list[str], one_line_at: tuple[str, ...], at: tuple[str, ...]
) -> None:
    """``value`` as ``json.dumps(value, indent=2, ensure_ascii=False)`` writes it, except
    that the items of a list reached through the keys ``one_line_at`` go on one line each."""
    if isinstance(value, dict) and value:
        out.append("{")
        for i, (key, item) in enumerate(value.items()):
            out.append("," if i else "")
            out.append("\n" + "  " * (level + 1) + json.dumps(key, ensure_ascii=False) + ": ")
            _indented(item, level + 1, out, one_line_at, (*at, key))
        out.append("\n" + "  " * level + "}")
    elif isinstance(value, list) and value:
        inline = at == one_line_at
        out.append("[")
        for i, item in enumerate(value):
            out.append("," if i else "")
            out.append("\n" + "  " * (level + 1))
            if inline:
                out.append(json.dumps(item, ensure_ascii=False))
            else:
                _indented(item, level + 1, out, one_line_at, at)
        out.append("\n" + "  " * level + "]")
    else:
        out.append(json.dumps(value, ensure_ascii=False))
