"""Tool permission rules (HIP-301 §7, docs/domains/permission-policy.md).

A :class:`PermissionPolicy` is an ordered list of :class:`PermissionRule`; the first
rule whose glob ``tool_pattern`` matches the whole tool name decides (PERM-4), and
no match means ``prompt`` (PERM-5). Globs use this project's own dialect (PERM-11..
PERM-19), matched by hand: no regex translation and no ``fnmatch``.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum
from typing import TypeAlias

from impl_python.errors import HanzoError

__all__ = [
    "AuditRecord",
    "Decision",
    "Glob",
    "InvalidModeError",
    "PermissionMode",
    "PermissionPolicy",
    "PermissionRule",
    "PolicyError",
    "glob_match",
]


class PolicyError(HanzoError):
    """Base of the permission-policy contract errors."""


class InvalidModeError(PolicyError):
    """A rule's mode is not exactly ``allow``, ``deny`` or ``prompt`` (PERM-2)."""

    code = "invalid_mode"


class PermissionMode(Enum):
    """What the agent loop does with a tool call (HIP-301 §7)."""

    ALLOW = "allow"
    DENY = "deny"
    PROMPT = "prompt"

    @classmethod
    def parse(cls, value: object) -> PermissionMode:
        """``value`` itself if a mode, else the mode spelled exactly ``value`` (PERM-2)."""
        if isinstance(value, PermissionMode):
            return value
        if isinstance(value, str) and (mode := _MODES.get(value)) is not None:
            return mode
        raise InvalidModeError(f"invalid permission mode {value!r}")


# Every mode by its spelling: looked up per rule (reading an Enum member's value is an
# attribute lookup through a descriptor, several times slower than this).
_MODES = {mode.value: mode for mode in PermissionMode}


# --- globs (PERM-11..PERM-19) ---------------------------------------------------------


class _Wild(Enum):
    STAR = "*"  # any run of code points (PERM-12)
    ANY = "?"  # exactly one code point (PERM-13)


@dataclass(frozen=True)
class _CharSet:
    """``[...]`` or ``[!...]``: literal code points and inclusive ranges (PERM-15, PERM-16)."""

    negated: bool
    chars: frozenset[str]
    ranges: tuple[tuple[str, str], ...]

    def matches(self, ch: str) -> bool:
        hit = ch in self.chars or any(lo <= ch <= hi for lo, hi in self.ranges)
        return hit != self.negated


_Token: TypeAlias = "_Wild | _CharSet | str"  # str: one literal code point (PERM-18)


def _parse_set(pattern: str, start: int) -> tuple[_CharSet, int] | None:
    """Parse the set opening at ``pattern[start] == "["``; None if it never closes (PERM-17)."""
    i = start + 1
    negated = i < len(pattern) and pattern[i] == "!"
    if negated:
        i += 1
    body_start = i
    if i < len(pattern) and pattern[i] == "]":
        i += 1  # a "]" first in the set is a member, not the end (PERM-16)
    end = pattern.find("]", i)
    if end < 0:
        return None
    chars: set[str] = set()
    ranges: list[tuple[str, str]] = []
    k = body_start
    while k < end:
        if k + 2 < end and pattern[k + 1] == "-":
            lo, hi = pattern[k], pattern[k + 2]
            if lo <= hi:  # a reversed range matches nothing (PERM-15)
                ranges.append((lo, hi))
            k += 3
        else:
            chars.add(pattern[k])
            k += 1
    return _CharSet(negated, frozenset(chars), tuple(ranges)), end + 1


@functools.lru_cache(maxsize=4096)
def _compiled(pattern: str) -> tuple[_Token, ...]:
    """The tokens of ``pattern`` (immutable, so one tuple serves every Glob of it)."""
    tokens: list[_Token] = []
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "*":
            if not tokens or tokens[-1] is not _Wild.STAR:  # "**" is "*"
                tokens.append(_Wild.STAR)
            i += 1
        elif ch == "?":
            tokens.append(_Wild.ANY)
            i += 1
        elif ch == "[" and (parsed := _parse_set(pattern, i)) is not None:
            tokens.append(parsed[0])
            i = parsed[1]
        else:
            tokens.append(ch)
            i += 1
    return tuple(tokens)


class Glob:
    """A compiled pattern of the PERM-11..PERM-19 dialect, matched against whole names."""

    __slots__ = ("_tokens", "pattern")

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self._tokens: tuple[_Token, ...] = _compiled(pattern)

    def __repr__(self) -> str:
        return f"Glob({self.pattern!r})"

    @staticmethod
    def _one(token: _Token, ch: str) -> bool:
        if isinstance(token, _CharSet):
            return token.matches(ch)
        if isinstance(token, str):
            return token == ch
        return token is _Wild.ANY

    def matches(self, name: str) -> bool:
        """True if the pattern matches all of ``name`` (PERM-11).

        Two pointers with backtracking to the last ``*`` only: O(len(pattern) *
        len(name)) in the worst case, never exponential (PERM-19).
        """
        tokens = self._tokens
        p = s = 0
        star_p = -1
        star_s = 0
        while s < len(name):
            if p < len(tokens) and tokens[p] is _Wild.STAR:
                star_p, star_s = p, s
                p += 1
            elif p < len(tokens) and self._one(tokens[p], name[s]):
                p += 1
                s += 1
            elif star_p >= 0:
                star_s += 1
                p, s = star_p + 1, star_s
            else:
                return False
        while p < len(tokens) and tokens[p] is _Wild.STAR:
            p += 1
        return p == len(tokens)


def glob_match(pattern: str, name: str) -> bool:
    """True if glob ``pattern`` matches the whole of ``name`` (PERM-11..PERM-19)."""
    return Glob(pattern).matches(name)


# --- policy ---------------------------------------------------------------------------


@dataclass(frozen=True, init=False)
class PermissionRule:
    """One rule; ``mode`` may be given as its string and is checked here (PERM-2)."""

    tool_pattern: str
    mode: PermissionMode
    reason: str | None = None

    def __init__(
        self, tool_pattern: str, mode: PermissionMode | str, reason: str | None = None
    ) -> None:
        object.__setattr__(self, "tool_pattern", tool_pattern)
        object.__setattr__(self, "mode", PermissionMode.parse(mode))
        object.__setattr__(self, "reason", reason)


@dataclass(frozen=True)
class AuditRecord:
    """HIP-301's audit record minus ``timestamp`` and ``session_id`` (PERM-6)."""

    tool_name: str
    mode: PermissionMode
    rule_matched: int | None
    reason: str | None


@dataclass(frozen=True)
class Decision:
    """The outcome of one evaluation (PERM-4, PERM-5, PERM-6)."""

    mode: PermissionMode
    rule_index: int | None
    reason: str | None
    audit: AuditRecord


def _default_denial(index: int) -> str:
    return f"denied by permission rule {index}"


class PermissionPolicy:
    """Evaluates permission rules for tool execution requests (HIP-301 §7)."""

    def __init__(self, rules: Iterable[PermissionRule]) -> None:
        self._rules: tuple[tuple[Glob, PermissionRule], ...] = tuple(
            (Glob(rule.tool_pattern), rule) for rule in rules
        )

    def decide(self, tool_name: str) -> Decision:
        """The full decision for ``tool_name``: mode, matched rule, reason, audit record."""
        for index, (glob, rule) in enumerate(self._rules):
            if glob.matches(tool_name):
                audit_reason = None
                if rule.mode is PermissionMode.DENY:
                    audit_reason = rule.reason
                    if audit_reason is None:
                        audit_reason = _default_denial(index)
                audit = AuditRecord(tool_name, rule.mode, index, audit_reason)
                return Decision(rule.mode, index, rule.reason, audit)
        audit = AuditRecord(tool_name, PermissionMode.PROMPT, None, None)
        return Decision(PermissionMode.PROMPT, None, None, audit)

    def evaluate(self, tool_name: str) -> PermissionMode:
        """The mode for ``tool_name``: first matching rule wins; default is PROMPT (HIP-301 §7)."""
        return self.decide(tool_name).mode
