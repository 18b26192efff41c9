"""Compare a platform's output with a vector's expectation, under the domain's declared rules.

Exact JSON equality (an integer-valued float equals the integer; booleans are not
numbers), except where a vector file's ``comparison`` rules say otherwise:

* ``ignore``: skip the value at ``path`` (``*`` matches any index or key), when the
  object holding it in the expected output has every key/value in ``where``;
* ``at-most``: the expected value is an upper bound, ``0 <= actual <= expected``,
  for cases whose input matches ``when`` and has none of the pointers in ``unless``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ._pointer import MISSING, format_pointer, resolve
from ._pointer import parse as parse_pointer

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
        if any(not _same_scalar(resolve(case_input, p), v) for p, v in when.items()):
            continue
        if any(resolve(case_input, p) is not MISSING for p in rule.get("unless", ())):
            continue
        active.append(rule)
    return active


def _matches(pattern: list[str], path: list[str]) -> bool:
    return len(pattern) == len(path) and all(
        p in ("*", s) for p, s in zip(pattern, path, strict=True)
    )


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _same_scalar(a: Any, b: Any) -> bool:
    if _is_number(a) and _is_number(b):
        if max(abs(a), abs(b)) > 2**53:
            # Beyond I-JSON's exact range a JSON number means a double (JS prints the
            # double 2^64 as 18446744073709552000): compare the doubles.
            return float(a) == float(b)
        return bool(a == b)
    return type(a) is type(b) and bool(a == b)


def _holder_matches(holder: Any, where: Mapping[str, Any]) -> bool:
    return isinstance(holder, Mapping) and all(
        _same_scalar(holder.get(k, MISSING), v) for k, v in where.items()
    )


def diff(expected: Any, actual: Any, rules: Sequence[Mapping[str, Any]] = ()) -> list[Difference]:
    """Every difference between expected and actual, as (pointer, expected, actual)."""
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
            if not (_is_number(act) and _is_number(exp) and 0 <= act <= exp):
                out.append(Difference(here, exp, act))
            return
        if isinstance(exp, Mapping) and isinstance(act, Mapping):
            for key in list(exp) + [k for k in act if k not in exp]:
                walk(exp.get(key, MISSING), act.get(key, MISSING), [*path, key], exp)
        elif isinstance(exp, list) and isinstance(act, list):
            for i in range(max(len(exp), len(act))):
                e = exp[i] if i < len(exp) else MISSING
                a = act[i] if i < len(act) else MISSING
                walk(e, a, [*path, str(i)], exp)
        elif not _same_scalar(exp, act):
            out.append(Difference(here, exp, act))

    walk(expected, actual, [], None)
    return out
