"""Clusters name causes, not symptoms (issue 29): a difference and the schema violation
at its pointer are one cause; a map's keys are ``*`` where the output schema says the
object is a map; a cluster's clauses are those all its cases cite; each cluster shows
its smallest case as a reproducer. The cluster key has one owner, runners/judge/keys.py,
and the ledger keys by it too."""

from __future__ import annotations

import json
from typing import Any

from jsonschema import Draft202012Validator

from runners.gate.ledger import Entry, Ledger, apply_ledgers, ledger_from_results
from runners.judge.clusters import ClusterTally, annotate_result, clusters, render_clusters
from runners.judge.keys import divergences, pointer_pattern, result_keys
from runners.reports.html import page_data
from runners.reports.markdown import render_markdown
from runners.vectors.schemas import results_validator


def failing(case: str, diff: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {
        "domain": extra.pop("domain", "mcp-normalization"),
        "case": case,
        "case_hash": "h-" + case,
        "platform": "pkg",
        "status": "fail",
        "diff": diff,
        **extra,
    }


def too_long(case: str, name: str, violation_at: str = "/name") -> dict[str, Any]:
    """An over-long normalised name: a differing /name and its maxLength violation."""
    return failing(
        case,
        [{"pointer": "/name", "expected": name[:64], "actual": name}],
        schema_errors=[{"pointer": violation_at, "message": f"{name!r} is too long"}],
        input={"op": "normalize", "server": "s", "tool": name},
        actual={"name": name},
    )


# -- a difference and its schema violation: one cause --------------------------------


def test_a_difference_and_the_violation_at_its_pointer_are_one_cause() -> None:
    results = [too_long(f"long-{i}", "x" * (70 + i)) for i in range(4)]
    found = clusters(results)
    assert [(c.pattern, c.kind, c.size) for c in found] == [("/name", "other string", 4)]
    assert found[0].violations == 4 and found[0].divergences == 4
    assert "too long" in render_clusters(found)  # the violation is shown with its cause


def test_a_violation_at_a_covering_pointer_joins_the_nearest_difference() -> None:
    """A oneOf output schema reports at the root (""): it covers /name."""
    r = too_long("long", "x" * 80, violation_at="")
    r["diff"].insert(0, {"pointer": "/other/deep/field", "expected": 1, "actual": 2})
    found = list(divergences(r))
    assert [(d.pattern, d.kind, len(d.violations)) for d in found] == [
        ("/other/deep/field", "other number", 0),
        ("/name", "other string", 1),
    ]  # both covered; /name is nearer the root
    # A violation inside a differing value belongs to it too.
    inner = failing(
        "inner",
        [{"pointer": "/servers", "expected": [], "actual": {"a": 1}}],
        schema_errors=[{"pointer": "/servers/a", "message": "1 is not of type 'object'"}],
    )
    assert result_keys(inner) == {("/servers", "array -> object")}


def test_a_violation_no_difference_accounts_for_stays_its_own_cluster() -> None:
    r = failing(
        "ignored-field",
        [{"pointer": "/a", "expected": 1, "actual": 2}],
        schema_errors=[{"pointer": "/b", "message": "'' is too short"}],
    )
    assert result_keys(r) == {("/a", "other number"), ("/b", "output schema")}


def test_each_entry_carries_the_id_of_its_cause() -> None:
    r = too_long("long", "x" * 80)
    annotate_result(r)
    assert r["schema_errors"][0]["cluster"] == r["diff"][0]["cluster"]


# -- map keys generalise where the schema says map -----------------------------------


def test_map_keys_generalise_where_the_output_schema_declares_a_map() -> None:
    # config-merge: mcp_servers and permissions are additionalProperties maps.
    p = "/config/mcp_servers/alpha/command"
    assert pointer_pattern(p, "config-merge") == "/config/mcp_servers/*/command"
    assert pointer_pattern("/config/permissions/Bash", "config-merge") == "/config/permissions/*"
    # hooks: saw is a map of hooks, each with an env map.
    assert pointer_pattern("/saw/pre/env/HOME", "hooks") == "/saw/*/env/*"
    assert pointer_pattern("/saw/pre/cwd", "hooks") == "/saw/*/cwd"
    # mcp-stdio: an object in one oneOf branch.
    assert pointer_pattern("/env/HOME", "mcp-stdio") == "/env/*"


def test_fixed_properties_and_schemaless_objects_keep_their_keys() -> None:
    # A fixed property keeps its name, even inside a map's value.
    assert pointer_pattern("/config/api_key", "config-merge") == "/config/api_key"
    assert pointer_pattern("/saw/x/stdin", "hooks") == "/saw/*/stdin"
    # oauth_credentials is an object with no value schema: the schema says no map.
    p = "/config/oauth_credentials/token"
    assert pointer_pattern(p, "config-merge") == p
    # Without a domain (or with one that has no schema) only array indices go.
    assert pointer_pattern("/config/mcp_servers/alpha/7") == "/config/mcp_servers/alpha/*"
    assert pointer_pattern("/a/b/3", "no-such-domain") == "/a/b/*"


def test_one_cause_across_map_keys_is_one_cluster() -> None:
    results = [
        failing(
            f"env-{var}",
            [{"pointer": f"/saw/{hook}/env/{var}", "expected": "v"}],
            domain="hooks",
        )
        for hook, var in [("pre", "HOME"), ("post", "PATH"), ("pre", "LANG")]
    ]
    found = clusters(results)
    assert [(c.pattern, c.kind, c.size) for c in found] == [("/saw/*/env/*", "missing", 3)]


# -- clauses: those its cases share; the rest apart ----------------------------------


def test_a_clusters_clauses_are_those_all_its_cases_cite() -> None:
    tally = ClusterTally(keep=3)
    tally.add(too_long("a", "x" * 70), ["MCP-3", "MCP-1"])
    tally.add(too_long("b", "x" * 71), ["MCP-3", "MCP-7"])
    (c,) = tally.clusters()
    assert c.clauses == {"MCP-3"} and c.other_clauses == {"MCP-1", "MCP-7"}
    text = render_clusters([c])
    assert "(clauses MCP-3)" in text
    assert "also cited by some cases: MCP-1, MCP-7" in text
    assert c.to_json()["clauses"] == ["MCP-3"]
    assert c.to_json()["also_cited"] == ["MCP-1", "MCP-7"]


# -- the smallest case as a reproducer -----------------------------------------------


def _doc(results: list[dict[str, Any]]) -> dict[str, Any]:
    cases = {
        f"{r['domain']}::{r['case']}": {
            "description": "",
            "clauses": ["MCP-3"],
            "input": r["input"],
            "expected": {"name": r["diff"][0]["expected"]},
        }
        for r in results
    }
    return {"results": results, "cases": cases}


def test_each_cluster_shows_its_smallest_case_as_a_reproducer() -> None:
    results = [too_long("long-90", "y" * 90), too_long("long-65", "z" * 65)]
    results.append(too_long("long-300", "w" * 300))
    doc = _doc(results)
    (c,) = clusters(doc["results"], doc["cases"])
    assert c.reproducer == {
        "case": "mcp-normalization::long-65",
        "input": {"op": "normalize", "server": "s", "tool": "z" * 65},
        "expected": {"name": "z" * 64},
        "actual": {"name": "z" * 65},
    }
    text = render_clusters([c])
    assert "smallest case: mcp-normalization::long-65" in text
    assert f"expected: {json.dumps({'name': 'z' * 64})}" in text
    markdown = render_markdown({"summary": _summary(), **doc})
    assert "smallest case mcp-normalization::long-65" in markdown
    assert json.dumps({"name": "z" * 65}) in markdown
    page = page_data({"summary": _summary(), **doc})
    assert page["clusters"][0]["reproducer"]["case"] == "mcp-normalization::long-65"


def test_the_terminal_bounds_a_reproducer() -> None:
    big = too_long("huge", "q" * 5000)
    (c,) = clusters([big], _doc([big])["cases"])
    for line in render_clusters([c]).splitlines():
        assert len(line) < 240, line


def _summary() -> dict[str, Any]:
    return {
        "platforms": {},
        "matrix": {},
        "total": 0,
        "pass": 0,
        "fail": 0,
        "error": 0,
        "skip": 0,
        "xfail": 0,
        "not_run": 0,
        "diverged": True,
    }


def test_a_run_document_with_causes_matches_the_results_schema() -> None:
    results = [too_long(f"long-{i}", "x" * (70 + i)) for i in range(2)]
    doc = _doc(results)
    causes = [c.to_json() for c in clusters(doc["results"], doc["cases"])]
    defs = results_validator().schema["$defs"]
    for c in causes:
        Draft202012Validator({"$defs": defs, "$ref": "#/$defs/cluster"}).validate(c)
    assert causes[0]["violations"] == 2 and causes[0]["reproducer"]["case"].endswith("long-0")


# -- the ledger keys by the same owner -----------------------------------------------


def _ledger(entries: list[dict[str, Any]]) -> Ledger:
    from pathlib import Path

    return Ledger(Path("pkg.json"), "pkg", [Entry(i, e) for i, e in enumerate(entries)])


def _refs(results: list[dict[str, Any]]) -> list[dict[str, str]]:
    return [{"domain": r["domain"], "case": r["case"], "hash": r["case_hash"]} for r in results]


def test_the_ledger_records_one_cause_once_and_keeps_both_reviews() -> None:
    """A ledger keyed before causes joined their violations and map keys: its two
    clusters (the difference, the violation) become one entry with both reasons."""
    results = [too_long(f"long-{i}", "x" * (70 + i), violation_at="") for i in range(3)]
    old = _ledger(
        [
            {
                "cluster": {"pattern": "/name", "kind": "other string"},
                "cases": _refs(results),
                "reason": "It does not cut names at 64 (MCP-3).",
            },
            {
                "cluster": {"pattern": "", "kind": "output schema"},
                "cases": _refs(results),
                "reason": "So its names break maxLength.",
            },
        ]
    )
    doc = {"results": results, "summary": {"platforms": ["pkg"]}}
    new = ledger_from_results(doc, "pkg", old)
    assert [e["cluster"] for e in new["entries"]] == [{"pattern": "/name", "kind": "other string"}]
    assert new["entries"][0]["reason"] == (
        "It does not cut names at 64 (MCP-3). So its names break maxLength."
    )
    known = {f"{r['domain']}::{r['case']}": r["case_hash"] for r in results}
    gated = [dict(r) for r in results]
    problems = apply_ledgers({**doc, "results": gated}, [_ledger(new["entries"])], known)
    assert problems == [] and {r["status"] for r in gated} == {"xfail"}


def test_map_key_clusters_of_an_old_ledger_become_one_and_keep_their_reviews() -> None:
    results = [
        failing(f"env-{i}", [{"pointer": f"/env/{var}", "expected": "v"}], domain="mcp-stdio")
        for i, var in enumerate(["HOME", "USER", "TERM"])
    ]
    old = _ledger(
        [
            {
                "cluster": {"pattern": f"/env/{var}", "kind": "missing"},
                "cases": _refs(results),
                "reason": "It passes no inherited environment (MCP-S12).",
            }
            for var in ("HOME", "USER")
        ]
    )
    new = ledger_from_results({"results": results}, "pkg", old)
    assert [(e["cluster"]["pattern"], len(e["cases"])) for e in new["entries"]] == [("/env/*", 3)]
    assert new["entries"][0]["reason"] == "It passes no inherited environment (MCP-S12)."


def test_a_case_entry_still_names_every_pointer_of_its_cause() -> None:
    """A case entry records pointers: the violation's too, though it is one cause."""
    r = too_long("long", "x" * 80, violation_at="")
    entry = ledger_from_results({"results": [r]}, "pkg")["entries"][0]
    assert entry["fails"] == {"pointers": ["", "/name"]}
