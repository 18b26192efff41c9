"""permission-policy: glob metacharacters, bracket sets and ranges (open, negated,
unclosed), astral and combining characters, and rule lists where order matters."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hypothesis import strategies as st

from . import Property, Response, body, described, joined, records

# `*` and `?` are listed several times: most patterns should have a wildcard.
PATTERN_PIECES = (
    "",
    "*",
    "?",
    "a",
    "[a-z]",
    "?",
    "**",
    "*",
    "?",
    "\U0001f600",
    "[",
    "]",
    "[!",
    "[^",
    "[!a]",
    "[]]",
    "[-a]",
    "[a-]",
    "[a-a]",
    "[z-a]",
    "-",
    "!",
    "\\",
    "b",
    ".",
    "_",
    "fs",
    "read",
    "mcp__",
    "é",
    "e\u0301",
    "[\U0001f600]",
    "[\U0001f600-\U0001f64f]",
)
GLOB_PIECES = tuple(p for p in PATTERN_PIECES if "[" not in p)
NAME_PIECES = (
    "",
    "a",
    "b",
    "z",
    "fs",
    ".",
    "read",
    "_",
    "mcp__",
    "-",
    "]",
    "[",
    "*",
    "?",
    "!",
    "é",
    "e\u0301",
    "\U0001f600",
    "\U0001f601",
    "\ud7ff",
    "\ue000",
)
MODES = ("allow", "deny", "prompt")


def pattern() -> st.SearchStrategy[str]:
    return joined(PATTERN_PIECES, 4)


def tool_name() -> st.SearchStrategy[str]:
    return joined(NAME_PIECES, 4)


MODE_CHOICES = (*MODES, *MODES, *MODES, "Allow", "", "deny ")  # mostly valid (PERM-2)
REASONS = (None, "absent", None, "", "no", "r\u00e9ason")


def _rule(raw: bytes, valid_only: bool) -> dict[str, Any]:
    # One byte string per rule: 4 pattern pieces, the mode (its high bit: bracket sets
    # allowed; else `*` and `?` alone, which a set in any rule would hide), the reason.
    modes = MODES if valid_only else MODE_CHOICES
    pieces = PATTERN_PIECES if raw[4] & 0x80 else GLOB_PIECES
    found: dict[str, Any] = {
        "tool_pattern": "".join([pieces[x % len(pieces)] for x in raw[:4]]),
        "mode": modes[raw[4] % len(modes)],
    }
    reason = REASONS[raw[5] % len(REASONS)]
    if reason != "absent":
        found["reason"] = reason
    return found


def rule(valid_only: bool = False) -> st.SearchStrategy[dict[str, Any]]:
    return st.binary(min_size=6, max_size=6).map(lambda raw: _rule(raw, valid_only))


SINGLE = ("a", "\U0001f600", "é", "-", "]", "\U0001f601", "z")


def instance(pattern: str, raw: bytes) -> str:
    """A name the pattern (nearly) matches: `*` and `?` filled in, a set's first member.

    Random names almost never match a random pattern; names made from the patterns
    reach the matcher's interesting paths (a `?` against an astral character, say).
    Every `*` gets the same fill, every `?` and every set its own, from raw[0:3]: so
    dropping part of the pattern (shrinking) leaves the other fills as they were.
    """
    star, single, member = (raw + bytes(3))[:3]
    out, i = [], 0
    while i < len(pattern):
        c = pattern[i]
        if c == "*":
            out.append(NAME_PIECES[star % len(NAME_PIECES)])
        elif c == "?":
            out.append(SINGLE[single % len(SINGLE)])
        elif c == "[":
            close = pattern.find("]", i + 2)
            if close < 0:
                out.append(c)
            else:
                members = pattern[i + 1 : close].lstrip("!^") or "a"
                out.append(members[member % len(members)])
                i = close
        else:
            out.append(c)
        i += 1
    return "".join(out)


# Built once: strategies built inside a draw cost more than the drawing itself.
_VALID_RULES = st.lists(rule(valid_only=True), min_size=1, max_size=5)
_NAME = tool_name()
_VALID_RULE = rule(valid_only=True)


# Mostly one or two rules: with more, some pattern nearly always has a bracket set.
# (Hypothesis's cost is per byte drawn, and every record holds room for the most.)
RULE_COUNTS = (0, 1, 1, 1, 1, 2, 2, 3, 3)
MAX_RULES = max(RULE_COUNTS)
# The rule count, MAX_RULES 6-byte rules (the first `count` used), the name's 5 bytes.
RECORD = 1 + MAX_RULES * 6 + 5


def decode(record: bytes) -> dict[str, Any]:
    count = RULE_COUNTS[record[0] % len(RULE_COUNTS)]
    rules = [_rule(record[1 + 6 * i : 7 + 6 * i], False) for i in range(count)]
    raw = record[1 + MAX_RULES * 6 : RECORD]
    if rules and raw[0] % 4:
        # Mostly a name made from one of the patterns (see instance()).
        name = instance(rules[raw[0] % len(rules)]["tool_pattern"], raw[1:])
    else:
        name = "".join([NAME_PIECES[x % len(NAME_PIECES)] for x in raw[1:]])
    return {"rules": rules, "tool_name": name}


def inputs() -> st.SearchStrategy[dict[str, Any]]:
    return records(RECORD, decode)


def clauses(case_input: Any, response: Response) -> set[str]:
    if "error" in response:
        return {"PERM-2"}
    found = {"PERM-3", "PERM-6"}
    output = response.get("output") or {}
    found.add("PERM-5" if output.get("rule_index") is None else "PERM-4")
    for r in case_input["rules"]:
        p = r["tool_pattern"]
        if p == "":
            found.add("PERM-19")
        if "*" in p:
            found.add("PERM-12")
        if "?" in p:
            found.add("PERM-13")
        if "[" in p:
            found.add("PERM-14")
            close = p.find("]", p.find("[") + 2)
            if close < 0:
                found.add("PERM-17")
            elif "-" in p[p.find("[") : close]:
                found.add("PERM-15")
        if any(ord(c) > 0x7F for c in p):
            found.add("PERM-18")
    return found


@st.composite
def _insertion(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, Any]]:
    base = {
        "rules": draw(_VALID_RULES),
        "tool_name": draw(_NAME),
    }
    return base, draw(_VALID_RULE)


# The rule count, five valid 6-byte rules (the first 1 + count used), the name's 4
# bytes, the inserted rule.
INSERTION_RECORD = 1 + 5 * 6 + 4 + 6


def _decode_insertion(record: bytes) -> tuple[dict[str, Any], dict[str, Any]]:
    count = 1 + record[0] % 5
    rules = [_rule(record[1 + 6 * i : 7 + 6 * i], True) for i in range(count)]
    name = "".join([NAME_PIECES[x % len(NAME_PIECES)] for x in record[31:35]])
    return {"rules": rules, "tool_name": name}, _rule(record[35:41], True)


def _with_rule_at(probe: tuple[dict[str, Any], dict[str, Any]], at: int) -> dict[str, Any]:
    base, extra = probe
    rules = list(base["rules"])
    rules.insert(at, extra)
    return {**base, "rules": rules}


def _insertions(probe: tuple[dict[str, Any], dict[str, Any]]) -> list[Any]:
    base = probe[0]
    return [base] + [_with_rule_at(probe, at) for at in range(1, len(base["rules"]) + 1)]


def _unchanged_after_first_match(
    probe: tuple[dict[str, Any], dict[str, Any]], responses: Sequence[Response]
) -> str | None:
    first, *inserted = responses
    index = (first.get("output") or {}).get("rule_index")
    if index is None:
        return None  # no match: a rule added anywhere may match, nothing to check
    for at, response in enumerate(inserted, start=1):
        if at > index and body(response) != body(first):
            return f"rule inserted at {at}: {described(response)}; without: {described(first)}"
    return None


PROPERTIES = (
    Property(
        name="rule-after-first-match-changes-nothing",
        clauses=("PERM-4",),
        probes=_insertion(),
        requests=_insertions,
        check=_unchanged_after_first_match,
        record=INSERTION_RECORD,
        decode=_decode_insertion,
    ),
)
