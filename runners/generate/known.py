"""Known causes for ``generate --expectations``: search past the divergences a ledger records.

A foreign implementation often differs from the reference in a few systematic ways
its maintainers already know and have recorded as **cluster entries** of their
expectations ledger (pointer pattern + kind of difference, ``runners.judge.clusters``). A
search that stops at the first input showing one of those finds nothing new. Given
the ledger, a generated input on which the platform diverges **only** in recorded
clusters counts as known, not as a disagreement, so the search goes on to the causes
nobody has recorded yet. A crash is a cluster by its cause (``crash UnicodeDecodeError``,
``crash timeout``: ``_clusters.crash_cause``), known if the ledger records that cause.
A divergence outside every recorded cluster, a crash with another cause included, is
still a disagreement, shrunk and reported. One recorded cause can shift an array: a
platform that drops a frame (``/frames/*: missing``) makes every later frame differ
position by position, which reads as other causes. So causes are read position by
position and, where that leaves some unrecorded, with arrays aligned as ``run`` aligns
them (either tie-break), and the answer is known if one reading is all recorded causes.

A generated input equal to the input of a corpus case that the ledger names (any
entry, at the case's current hash) is known too, whatever the platform answers: a
shrunk input often lands on the very vector an earlier search promoted, and ``run``
already gates how that case fails.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from ..gate.ledger import Ledger
from ..judge.crashes import crash_kind
from ..judge.keys import case_key, result_keys
from ..judge.outcomes import judge_response
from ..vectors.load import Case, VectorFile

Cause = tuple[str, str]  # (pointer pattern, kind): a cluster key


def known_causes(ledgers: Sequence[Ledger]) -> dict[str, frozenset[Cause]]:
    """Per platform, the cluster keys its ledgers record."""
    causes: dict[str, set[Cause]] = {}
    for ledger in ledgers:
        keys = causes.setdefault(ledger.platform, set())
        keys.update(e.cluster for e in ledger.entries if e.cluster)
    return {platform: frozenset(keys) for platform, keys in causes.items()}


def input_key(case_input: Any) -> str:
    """An input's text for matching one to another (key order aside)."""
    return json.dumps(case_input, sort_keys=True, ensure_ascii=False, default=repr)


def ledgered_inputs(
    ledgers: Sequence[Ledger], corpus: VectorFile | None
) -> dict[str, dict[str, str]]:
    """Per platform, the inputs of the corpus cases its ledgers name: input key -> case id."""
    inputs: dict[str, dict[str, str]] = {}
    if corpus is None:
        return inputs
    cases = {(case_key(corpus.domain, c.id), c.content_hash()): c for c in corpus.cases}
    for ledger in ledgers:
        mine = inputs.setdefault(ledger.platform, {})
        for entry in ledger.entries:
            for ref in entry.cases:
                case = cases.get((case_key(ref["domain"], ref["case"]), ref["hash"]))
                if case is not None:
                    mine[input_key(case.input)] = case.id
    return inputs


GENERATED = {"kind": "generated", "ref": "hanzo-conformance generate"}


def answer_causes(
    domain: str,
    case_input: Any,
    expected: Mapping[str, Any],
    actual: Mapping[str, Any],
    rules: Sequence[Mapping[str, Any]],
    align: bool = False,
    pairs_first: bool = True,
) -> set[Cause]:
    """The cluster keys of ``actual``'s divergences from the reference's ``expected``,
    judged as ``run`` judges an answer (``runners.judge.outcomes.judge_response``, against a
    case expecting the reference's answer) and keyed as a run's results are
    (``runners.judge.keys.result_keys``); ``align``: arrays of different lengths aligned
    first, as ``run`` always does (``runners.judge.compare.diff``)."""
    if "crash" in actual:
        body = actual["crash"]
        return {("", crash_kind(str(body.get("message", "")), str(body.get("detail", ""))))}
    error = expected["error"].get("code") if "error" in expected else None
    case = Case(
        domain, "generated", "", (), GENERATED, (), case_input, expected.get("output"), error
    )
    differences, violations, _ = judge_response(case, actual, rules, None, align, pairs_first)
    result = {
        "domain": domain,
        "status": "fail",
        "diff": [d.to_json() for d in differences],
        "schema_errors": [v.to_json() for v in violations],
    }
    return result_keys(result)
