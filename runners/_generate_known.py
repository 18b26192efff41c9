"""Known causes for ``generate --expectations``: search past the divergences a ledger records.

A foreign implementation often differs from the reference in a few systematic ways
its maintainers already know and have recorded as **cluster entries** of their
expectations ledger (pointer pattern + kind of difference, ``runners._clusters``). A
search that stops at the first input showing one of those finds nothing new. Given
the ledger, a generated input on which the platform diverges **only** in recorded
clusters counts as known, not as a disagreement, so the search goes on to the causes
nobody has recorded yet. A crash is a cluster by its cause (``crash UnicodeDecodeError``,
``crash timeout``: ``_clusters.crash_cause``), known if the ledger records that cause.
A divergence outside every recorded cluster, a crash with another cause included, is
still a disagreement, shrunk and reported.

Case entries name corpus cases by id and content hash, which a generated input has
not: only cluster entries apply here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ._clusters import crash_kind, result_keys
from ._compare import Difference, diff, rules_for
from ._ledger import Ledger
from ._schemas import pointer

Cause = tuple[str, str]  # (pointer pattern, kind): a cluster key


def known_causes(ledgers: Sequence[Ledger]) -> dict[str, frozenset[Cause]]:
    """Per platform, the cluster keys its ledgers record."""
    causes: dict[str, set[Cause]] = {}
    for ledger in ledgers:
        keys = causes.setdefault(ledger.platform, set())
        keys.update(e.cluster for e in ledger.entries if e.cluster)
    return {platform: frozenset(keys) for platform, keys in causes.items()}


def _code(answer: Mapping[str, Any]) -> Any:
    return answer["error"].get("code")


def answer_causes(
    case_input: Any,
    expected: Mapping[str, Any],
    actual: Mapping[str, Any],
    rules: Sequence[Mapping[str, Any]],
    output_schema: Any,
) -> set[Cause]:
    """The cluster keys of ``actual``'s divergences from the reference's ``expected``,
    as the results of a run would have them (``runners._outcomes.judge_response``)."""
    if "crash" in actual:
        body = actual["crash"]
        return {("", crash_kind(str(body.get("message", "")), str(body.get("detail", ""))))}
    result: dict[str, Any] = {"status": "fail"}
    if "error" in expected or "error" in actual:
        want = {"error": _code(expected)} if "error" in expected else {"output": expected["output"]}
        got = {"error": _code(actual)} if "error" in actual else {"output": actual.get("output")}
        if want != got:
            result["diff"] = [Difference("", want, got).to_json()]
        return result_keys(result)
    output = actual.get("output")
    found = diff(expected.get("output"), output, rules_for(rules, case_input))
    result["diff"] = [d.to_json() for d in found]
    if output_schema is not None:
        result["schema_errors"] = [
            {"pointer": pointer(e.absolute_path)} for e in output_schema.iter_errors(output)
        ]
    return result_keys(result)
