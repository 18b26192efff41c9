"""Properties docs/domains/mcp-normalization.md states about impl_python.mcp_names."""

from __future__ import annotations

import re

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from impl_python.mcp_names import (
    build_tool_table,
    normalize_name_part,
    normalize_tool_name,
    parse_tool_name,
    server_part,
)
from impl_python.permissions import glob_match

MODEL_TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
parts = st.text(alphabet=st.characters(exclude_categories=["Cs"]), min_size=1, max_size=80)
short_parts = st.text(
    alphabet=st.sampled_from("aZ09-_. /\u00e9\U0001f600"), min_size=0, max_size=25
)


@settings(max_examples=1000, deadline=None)
@given(server=parts, tool=parts)
def test_every_name_is_a_valid_model_tool_name(server: str, tool: str) -> None:
    """MCP-4: at most 64 characters of [A-Za-z0-9_-], always starting with mcp__."""
    name = normalize_tool_name(server, tool)
    assert MODEL_TOOL_NAME.fullmatch(name)
    assert name.startswith("mcp__")


@settings(max_examples=1000, deadline=None)
@given(part=parts)
def test_one_character_per_code_point(part: str) -> None:
    """MCP-1: length is preserved in code points."""
    assert len(normalize_name_part(part)) == len(part)


@settings(max_examples=1000, deadline=None)
@given(head=short_parts, last=st.sampled_from("aZ9-"), tool=short_parts.filter(bool))
def test_round_trip(head: str, last: str, tool: str) -> None:
    """MCP-6b: parse undoes normalize when the server has no __, no trailing _, and fits."""
    server = head + last
    n_server, n_tool = normalize_name_part(server), normalize_name_part(tool)
    assume("__" not in n_server)
    assume(len("mcp__") + len(n_server) + 2 + len(n_tool) <= 64)
    ref = parse_tool_name(normalize_tool_name(server, tool))
    assert (ref.server, ref.tool) == (n_server, n_tool)


@settings(max_examples=500, deadline=None)
@given(server=parts, tools=st.lists(parts, min_size=1, max_size=4))
def test_server_wide_glob_matches_every_tool(server: str, tools: list[str]) -> None:
    """MCP-4a, MCP-4d: every name of one server starts with one mcp__<S>__, which a glob covers."""
    prefix = "mcp__" + server_part(server) + "__"
    for tool in tools:
        name = normalize_tool_name(server, tool)
        assert name.startswith(prefix)
        assert glob_match(prefix + "*", name)


# Few, short names from a small alphabet, so that collisions of both kinds are common.
colliding = st.text(alphabet=st.sampled_from("ab_. "), min_size=1, max_size=4)
server_lists = st.lists(
    st.tuples(colliding, st.lists(colliding, max_size=4, unique=True)),
    max_size=4,
    unique_by=lambda pair: pair[0],
)


@settings(max_examples=500, deadline=None)
@given(servers=server_lists, data=st.data())
def test_tool_table_keeps_every_tool_under_a_unique_name(
    servers: list[tuple[str, list[str]]], data: st.DataObject
) -> None:
    """MCP-8: one row per tool, names unique and valid, prefixes kept, lookup exact, order-free."""
    table = build_tool_table(servers)
    expected = [(server, tool) for server, tools in servers for tool in tools]
    assert [(e.server, e.tool) for e in table.entries] == expected
    assert len({e.name for e in table.entries}) == len(table.entries)
    for e in table.entries:
        assert MODEL_TOOL_NAME.fullmatch(e.name)
        assert e.name.startswith("mcp__" + server_part(e.server) + "__")
        assert table.resolve(e.name) == e
    shuffled = data.draw(st.permutations(servers))
    again = {(e.server, e.tool): e.name for e in build_tool_table(shuffled).entries}
    assert again == {(e.server, e.tool): e.name for e in table.entries}
