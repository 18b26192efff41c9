"""Compare a platform's output with a vector's expectation, under the domain's declared rules.

JSON sameness (``adapters._json.same_json``: an integer-valued float equals the
integer; booleans are not numbers), except where a vector file's ``comparison`` rules
say otherwise (two arrays of different lengths may be aligned first,
``diff(align=True)``, which changes only which pointers are named, never whether there
is a difference):

* ``ignore``: skip the value at ``path`` (``*`` matches any index or key), when the
  object holding it in the expected output has every key/value in ``where``;
* ``at-most``: the expected value is an upper bound, ``0 <= actual <= expected``,
  for cases whose input matches ``when`` and has none of the pointers in ``unless``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from adapters._json import is_number, same_json, same_scalar

from ..vectors.pointer import MISSING, format_pointer, resolve
from ..vectors.pointer import parse as parse_pointer

__all__ = ["MISSING", "Difference", "diff", "parse_pointer", "resolve", "rules_for"]


@dataclass(frozen=True)
class Difference:
    pointer: str
    expected: Any
    actual: Any
    variant: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"pointer": self.pointer}
        if self.expected is not MISSING:
            out["expected"] = self.expected
        if self.actual is not MISSING:
            out["actual"] = self.actual
        if self.variant is not None:
            out["variant"] = self.variant
        return out


def rules_for(rules: Sequence[Mapping[str, Any]], case_input: Any) -> list[Mapping[str, Any]]:
    """The rules that apply to one case, given its input."""
    active = []
    for rule in rules:
        when = rule.get("when", {})
        if any(not same_scalar(resolve(case_input, p), v) for p, v in when.items()):
            continue
        if any(resolve(case_input, p) is not MISSING for p in rule.get("unless", ())):
            continue
        active.append(rule)
    return active


def _matches(pattern: list[str], path: list[str]) -> bool:
    return len(pattern) == len(path) and all(
        p in ("*", s) for p, s in zip(pattern, path, strict=True)
    )


def _holder_matches(holder: Any, where: Mapping[str, Any]) -> bool:
    return isinstance(holder, Mapping) and all(
        same_scalar(holder.get(k, MISSING), v) for k, v in where.items()
    )


# Element pairs between the first and last difference; past this, arrays are compared
# position by position (the table below costs about 10 us a pair in CPython).
ALIGN_LIMIT = 10_000


def _unlikeness(e: Any, a: Any) -> float:
    """0 for equal elements, 1 for unrelated ones; two objects in between, by the share
    of their members that differ (so a frame with one field changed is nearly alike)."""
    if same_json(e, a):
        return 0.0
    if isinstance(e, Mapping) and isinstance(a, Mapping):
        keys = set(e) | set(a)
        differ = sum(not same_json(e.get(k, MISSING), a.get(k, MISSING)) for k in keys)
        return differ / len(keys)
    return 1.0


def _alignment(
    exp: list[Any], act: list[Any], pairs_first: bool = True
) -> list[tuple[int | None, int | None]]:
    """Index pairs of two arrays (None: no partner, a missing or an extra element): an
    alignment of least cost, an element alone costing 1 and a pair its unlikeness. Of
    several such alignments, the one that pairs earliest (``pairs_first``), or latest.
    Equal elements at either end are paired as they stand; only what lies between the
    first and the last difference is searched."""
    n, m = len(exp), len(act)
    head = 0
    while head < min(n, m) and same_json(exp[head], act[head]):
        head += 1
    tail = 0
    while tail < min(n, m) - head and same_json(exp[n - 1 - tail], act[m - 1 - tail]):
        tail += 1
    core_n, core_m = n - head - tail, m - head - tail
    if core_n * core_m > ALIGN_LIMIT:
        return [(i if i < n else None, i if i < m else None) for i in range(max(n, m))]
    core = _least_cost(exp[head : n - tail], act[head : m - tail], pairs_first)
    return [
        *((i, i) for i in range(head)),
        *((None if i is None else head + i, None if j is None else head + j) for i, j in core),
        *((n - tail + k, m - tail + k) for k in range(tail)),
    ]


def _least_cost(
    exp: list[Any], act: list[Any], pairs_first: bool
) -> list[tuple[int | None, int | None]]:
    n, m = len(exp), len(act)
    unlike = [[_unlikeness(exp[i], act[j]) for j in range(m)] for i in range(n)]
    # cost[i][j]: the least cost of aligning exp[i:] with act[j:]
    cost = [
        [float(n - i + m - j) if i == n or j == m else 0.0 for j in range(m + 1)]
        for i in range(n + 1)
    ]
    for i in range(n - 1, -1, -1):
        for j in range(m - 1, -1, -1):
            cost[i][j] = min(
                unlike[i][j] + cost[i + 1][j + 1], 1 + cost[i + 1][j], 1 + cost[i][j + 1]
            )
    pairs: list[tuple[int | None, int | None]] = []
    i = j = 0
    while i < n or j < m:
        pair = i < n and j < m and cost[i][j] == unlike[i][j] + cost[i + 1][j + 1]
        alone = i < n and (j == m or cost[i][j] == 1 + cost[i + 1][j])
        alone_extra = j < m and (i == n or cost[i][j] == 1 + cost[i][j + 1])
        if pair and (pairs_first or not (alone or alone_extra)):
            pairs.append((i, j))
            i, j = i + 1, j + 1
        elif alone:
            pairs.append((i, None))
            i += 1
        else:
            pairs.append((None, j))
            j += 1
    return pairs


def diff(
    expected: Any,
    actual: Any,
    rules: Sequence[Mapping[str, Any]] = (),
    align: bool = False,
    pairs_first: bool = True,
) -> list[Difference]:
    """Every difference between expected and actual, as (pointer, expected, actual).

    Arrays are compared position by position; with ``align``, two arrays of different
    lengths are aligned first (``_alignment``), so one element too few or too many is one
    ``missing`` or ``extra`` difference rather than every later element differing (an
    element's pointer is its index in ``expected``, an extra one's in ``actual``; of two
    alignments that cost the same, ``pairs_first`` picks as ``_alignment`` says)."""
    compiled = [(parse_pointer(r["path"]), r) for r in rules]
    out: list[Difference] = []

    def rule_at(path: list[str], holder: Any) -> Mapping[str, Any] | None:
        for pattern, rule in compiled:
            if not _matches(pattern, path):
                continue
            where = rule.get("where")
            if rule["kind"] == "ignore" and where and not _holder_matches(holder, where):
                continue
            return rule
        return None

    def walk(exp: Any, act: Any, path: list[str], holder: Any) -> None:
        rule = rule_at(path, holder) if compiled else None
        here = format_pointer(path)
        if rule is not None and rule["kind"] == "ignore":
            return
        if rule is not None and rule["kind"] == "at-most":
            if not (is_number(act) and is_number(exp) and 0 <= act <= exp):
                out.append(Difference(here, exp, act))
            return
        if isinstance(exp, Mapping) and isinstance(act, Mapping):
            for key in list(exp) + [k for k in act if k not in exp]:
                walk(exp.get(key, MISSING), act.get(key, MISSING), [*path, key], exp)
        elif isinstance(exp, list) and isinstance(act, list):
            if align and len(exp) != len(act):
                for ie, ia in _alignment(exp, act, pairs_first):
                    e = exp[ie] if ie is not None else MISSING
                    a = act[ia] if ia is not None else MISSING
                    walk(e, a, [*path, str(ie if ie is not None else ia)], exp)
                return
            for i in range(max(len(exp), len(act))):
                e = exp[i] if i < len(exp) else MISSING
                a = act[i] if i < len(act) else MISSING
                walk(e, a, [*path, str(i)], exp)
        elif not same_scalar(exp, act):
            out.append(Difference(here, exp, act))

    walk(expected, actual, [], None)
    return out
