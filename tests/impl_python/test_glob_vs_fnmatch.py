"""The PERM-11..PERM-19 glob dialect agrees with ``fnmatch.fnmatchcase`` on ordinary patterns.

docs/domains/permission-policy.md claims agreement except where a set contains a
reversed (empty) range, which CPython's regex translation handles differently.
Patterns are drawn from an alphabet rich in glob syntax; any pattern with
``x-y`` where ``x > y`` anywhere is excluded (a superset of the documented
difference, decided without using the matcher under test).
"""

from __future__ import annotations

import fnmatch

from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from impl_python.permissions import glob_match

PATTERN_ALPHABET = "ab-_.*?[]!^\\{},/😀"
NAME_ALPHABET = "ab-_.[]!^\\{},/😀é"


def has_reversed_range(pattern: str) -> bool:
    return any(
        pattern[i + 1] == "-" and pattern[i] > pattern[i + 2] for i in range(len(pattern) - 2)
    )


@settings(max_examples=3000, deadline=None)
@given(
    pattern=st.text(alphabet=PATTERN_ALPHABET, max_size=10),
    name=st.text(alphabet=NAME_ALPHABET, max_size=8),
)
@example(pattern="[]-a]", name="_")
@example(pattern="[!]]", name="]")
@example(pattern="[a-]", name="-")
@example(pattern="[!]", name="[!]")
@example(pattern="\\*", name="\\xyz")
def test_agrees_with_fnmatchcase(pattern: str, name: str) -> None:
    assume(not has_reversed_range(pattern))
    assert glob_match(pattern, name) == fnmatch.fnmatchcase(name, pattern)


@settings(max_examples=1500, deadline=None)
@given(pattern=st.text(alphabet=PATTERN_ALPHABET, max_size=10), data=st.data())
def test_names_built_to_match_do_match(pattern: str, data: st.DataObject) -> None:
    """Names drawn from the pattern's own literals hit the interesting (matching) side."""
    assume(not has_reversed_range(pattern))
    pieces = [c for c in pattern if c not in "*?[]!"] or ["a"]
    name = "".join(data.draw(st.lists(st.sampled_from(pieces), max_size=8)))
    assert glob_match(pattern, name) == fnmatch.fnmatchcase(name, pattern)


def test_documented_difference_empty_range_then_bang() -> None:
    """PERM-15: ``[z-a!]`` is an empty range plus ``!``; CPython matches any character."""
    assert glob_match("[z-a!]", "!")
    assert not glob_match("[z-a!]", "x")
    assert fnmatch.fnmatchcase("x", "[z-a!]")


def test_pathological_pattern_terminates() -> None:
    """PERM-19: no exponential backtracking (a backtracking matcher would not finish
    this in the lifetime of the CI run; speed itself is measured in bench/, not here)."""
    assert not glob_match("*a*a*a*a*a*a*a*a*a*a*b", "a" * 3000)
