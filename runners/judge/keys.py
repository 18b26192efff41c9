"""How reports, ledgers and clusters name a case, a divergence and its cause.

This module owns the **cluster key** (pointer pattern, kind): the clusters
(``runners/judge/clusters.py``), the cluster ids on a results document's
divergences, the expectations ledger (``runners/gate/ledger.py``) and ``generate``'s
known causes (``runners/generate/known.py``) all key divergences with ``divergences``.

A divergence is one cause in one result: a differing pointer, together with the
output-schema (or I-JSON) violations at that pointer or one covering it or covered by
it (an over-long name is both a differing ``/name`` and a ``maxLength`` violation:
one cause, not two); a violation no difference accounts for; or a crash.

Its pattern is its pointer with every array index, and every key of an object the
domain's output schema declares a map, replaced by ``*``: ``/config/mcp_servers/<name>``
is ``/config/mcp_servers/*`` because the schema gives ``mcp_servers`` an
``additionalProperties`` schema and no fixed property of that name (``_MapKeys``).
The schema decides, not the look of the key: a fixed property keeps its name.
"""

from __future__ import annotations

import bisect
import functools
import hashlib
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..vectors.pointer import is_index, parse
from ..vectors.schemas import Checker, domain_schema
from .crashes import result_crash_kind

_MAX_REFS = 64  # a guard against $ref cycles; real schemas are far shallower


def case_key(domain: str, case: str) -> str:
    """A case's key in results documents and ledgers: ``<domain>::<case id>``."""
    return f"{domain}::{case}"


def violation_kind(violation: Mapping[str, Any]) -> str:
    """A ``schema_errors`` entry's kind: the output schema's, or I-JSON's (a lone surrogate)."""
    return "not I-JSON" if violation.get("rule") == "i-json" else "output schema"


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


def pointer_pattern(pointer: str, domain: str | None = None) -> str:
    """``/frames/3/data`` -> ``/frames/*/data``: which element differs does not matter.
    With ``domain``, a key of an object its output schema declares a map is ``*`` too."""
    if not pointer:
        return ""
    schema = domain_schema(domain) if domain is not None else None
    if schema is None:
        return "/" + "/".join("*" if is_index(s) else s for s in pointer[1:].split("/"))
    return _schema_pattern(schema.output, pointer)


@functools.lru_cache(maxsize=8192)  # a run's divergences share few pointers
def _schema_pattern(output: Checker, pointer: str) -> str:
    raw = pointer[1:].split("/")
    general = _MapKeys(output.schema).generalised(parse(pointer))
    return "/" + "/".join("*" if g else s for s, g in zip(raw, general, strict=True))


class _MapKeys:
    """Which segments of a pointer are array indices or map keys, by the output schema.

    A key is a map key where some schema that applies at its object gives it no fixed
    ``properties`` entry and a value schema by ``patternProperties`` (a pattern matching
    it) or by an ``additionalProperties`` schema (an object schema: a bare ``true`` only
    tolerates extra keys, it declares no map), and no schema that applies there fixes it.
    The walk follows local ``$ref``, ``allOf``/``anyOf``/``oneOf``, ``properties``,
    ``patternProperties``, ``additionalProperties``, ``prefixItems`` and ``items``.
    """

    def __init__(self, root: Mapping[str, Any]) -> None:
        self.root = root
        defs = root.get("$defs", {})
        self.defs: Mapping[str, Any] = defs if isinstance(defs, Mapping) else {}

    def generalised(self, segments: Sequence[str]) -> list[bool]:
        here: list[Mapping[str, Any]] = [self.root]
        out = []
        for segment in segments:
            applying = [s for schema in here for s in self._applying(schema, 0)]
            children, fixed, mapped = self._children(applying, segment)
            out.append(is_index(segment) or (mapped and not fixed))
            here = children
        return out

    def _applying(self, schema: Any, refs: int) -> Iterator[Mapping[str, Any]]:
        """``schema`` and every subschema that applies at the same place."""
        if not isinstance(schema, Mapping):
            return
        yield schema
        ref = schema.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/") and refs < _MAX_REFS:
            yield from self._applying(self.defs.get(ref.removeprefix("#/$defs/")), refs + 1)
        for key in ("allOf", "anyOf", "oneOf"):
            branches = schema.get(key)
            if isinstance(branches, list):
                for branch in branches:
                    yield from self._applying(branch, refs)

    @staticmethod
    def _children(
        applying: Sequence[Mapping[str, Any]], segment: str
    ) -> tuple[list[Mapping[str, Any]], bool, bool]:
        """The schemas of the value at ``segment``; whether a schema fixes it as a
        property; whether one declares it a map key."""
        children: list[Any] = []
        fixed = mapped = False
        for s in applying:
            properties = s.get("properties")
            if isinstance(properties, Mapping) and segment in properties:
                fixed = True
                children.append(properties[segment])
            else:
                matching = [v for p, v in _items(s.get("patternProperties")) if _search(p, segment)]
                additional = s.get("additionalProperties")
                if matching:
                    children.extend(matching)
                elif isinstance(additional, Mapping):
                    children.append(additional)
                mapped = mapped or bool(matching) or isinstance(additional, Mapping)
            if is_index(segment):
                prefix = s.get("prefixItems")
                position = int(segment)
                if isinstance(prefix, list) and position < len(prefix):
                    children.append(prefix[position])
                else:
                    children.append(s.get("items"))
        return [c for c in children if isinstance(c, Mapping)], fixed, mapped


def _items(value: Any) -> list[tuple[str, Any]]:
    return list(value.items()) if isinstance(value, Mapping) else []


def _search(pattern: str, key: str) -> bool:
    try:
        return re.search(pattern, key) is not None
    except re.error:  # a pattern Python cannot read: it names no map key
        return False


@functools.lru_cache(maxsize=4096)
def cluster_id(pattern: str, kind: str) -> str:
    """A short stable id of a (pattern, kind) key: the same on every run and platform."""
    return "c" + hashlib.sha256(f"{pattern}\0{kind}".encode()).hexdigest()[:8]


@dataclass(frozen=True)
class Divergence:
    """One cause in one result, with its cluster key."""

    pattern: str
    kind: str
    entry: Mapping[str, Any]  # the diff / schema_errors entry, or the result for a crash
    # the schema_errors entries this difference accounts for (the same cause)
    violations: tuple[Mapping[str, Any], ...] = ()

    @property
    def id(self) -> str:
        return cluster_id(self.pattern, self.kind)

    @property
    def pointers(self) -> list[str]:
        """The pointers of its entries (none for a crash)."""
        if "pointer" not in self.entry:
            return []
        return [self.entry["pointer"], *(v["pointer"] for v in self.violations)]

    def symptoms(self) -> list[tuple[str, str]]:
        """The key each of its entries has alone, array indices its only ``*``: how
        clusters were keyed before a cause joined its violations and map keys
        (``expectations --update`` carries an old entry's review to the new key)."""
        if "pointer" not in self.entry:
            return [(self.pattern, self.kind)]
        first = (pointer_pattern(self.entry["pointer"]), self.kind)
        return [
            first,
            *((pointer_pattern(v["pointer"]), violation_kind(v)) for v in self.violations),
        ]


def unledgered_status(result: Mapping[str, Any]) -> str:
    """The status without any ledger: an ``xfail`` is what it records in
    ``expected_status`` (a recorded crash is still a crash)."""
    status: str = result["status"]
    return result.get("expected_status", "fail") if status == "xfail" else status


class _Pointers:
    """The differences of one result by pointer, to find the one a violation goes with:
    the difference at its pointer, else the nearest covering it, else the nearest inside
    it (the first of equals), in time logarithmic in the differences, not linear."""

    def __init__(self, diffs: Sequence[Mapping[str, Any]]) -> None:
        self.first: dict[str, int] = {}
        for i, d in enumerate(diffs):
            self.first.setdefault(d["pointer"], i)
        self.sorted = sorted(self.first)

    def nearest(self, at: str) -> int | None:
        found = self.first.get(at)
        if found is not None:
            return found
        ancestor = at
        while ancestor:
            ancestor = ancestor[: ancestor.rindex("/")]
            found = self.first.get(ancestor)
            if found is not None:
                return found
        prefix = at + "/"
        start = bisect.bisect_left(self.sorted, prefix)
        inside = []
        for pointer in self.sorted[start:]:
            if not pointer.startswith(prefix):
                break
            inside.append((pointer.count("/"), self.first[pointer]))
        return min(inside)[1] if inside else None


def divergences(result: Mapping[str, Any]) -> Iterator[Divergence]:
    """Every divergence of a failing or erroring result (none for pass, skip, not_run):
    each difference with the violations it accounts for, then the violations no
    difference accounts for. A violation goes with the difference at its pointer, else
    the nearest one covering it, else the nearest one inside it (``_Pointers``)."""
    if unledgered_status(result) == "error":
        yield Divergence("", result_crash_kind(result), result)
        return
    domain = result.get("domain")
    diffs = result.get("diff", ())
    joined: list[list[Mapping[str, Any]]] = [[] for _ in diffs]
    alone = []
    by_pointer = _Pointers(diffs) if diffs else None
    for s in result.get("schema_errors", ()):
        target = by_pointer.nearest(s["pointer"]) if by_pointer is not None else None
        if target is None:
            alone.append(s)
        else:
            joined[target].append(s)
    for d, violations in zip(diffs, joined, strict=True):
        yield Divergence(
            pointer_pattern(d["pointer"], domain), difference_kind(d), d, tuple(violations)
        )
    for s in alone:
        yield Divergence(pointer_pattern(s["pointer"], domain), violation_kind(s), s)


def result_keys(result: Mapping[str, Any]) -> set[tuple[str, str]]:
    """The (pattern, kind) keys a result's divergences fall in."""
    return {(d.pattern, d.kind) for d in divergences(result)}
