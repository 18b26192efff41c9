"""Triage: when the independent platforms agree with each other, suspect the vector.

If every non-reference platform produced the same output for a case and that
output differs from the reference's (or from the vector's expectation while the
reference agrees with the vector), three independent implementations are less
likely to share a bug than the vector or the reference is to have one. The report
then names the vector or the reference as the suspect, not the platforms. Outputs
are the same as the judge says they are (``adapters._json.same_json``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from adapters._json import same_json

REFERENCE = "python"
_RAN = ("pass", "fail", "xfail")  # a crash or skip says nothing about the right output


def triage(
    results: Sequence[Mapping[str, Any]], reference: str = REFERENCE
) -> list[dict[str, Any]]:
    """A suspect per case where the non-reference platforms (two or more) agree against it."""
    by_case: dict[tuple[str, str], dict[str, Mapping[str, Any]]] = defaultdict(dict)
    for r in results:
        by_case[(r["domain"], r["case"])][r["platform"]] = r
    suspects = []
    for (domain, case), per_platform in by_case.items():
        ref = per_platform.get(reference)
        others = [r for p, r in per_platform.items() if p != reference]
        if ref is None or len(others) < 2 or any(r["status"] not in _RAN for r in others):
            continue
        if any("actual" not in r for r in others):
            continue
        first = others[0]["actual"]
        if not all(same_json(r["actual"], first) for r in others[1:]):
            continue
        names = ", ".join(sorted(r["platform"] for r in others))
        others_pass = all(r["status"] == "pass" for r in others)
        if others_pass and ref["status"] in ("fail", "xfail"):
            suspects.append(
                {
                    "domain": domain,
                    "case": case,
                    "suspect": "reference",
                    "message": f"{names} all match the vector; the reference ({reference}) "
                    "does not: suspect the reference",
                }
            )
        elif not others_pass and ref["status"] in _RAN and "actual" in ref:
            agrees = same_json(ref["actual"], first)
            suspect = "vector" if agrees else "vector or reference"
            who = f"{names} and the reference ({reference})" if agrees else names
            suspects.append(
                {
                    "domain": domain,
                    "case": case,
                    "suspect": suspect,
                    "message": f"{who} all produce the same output, which the vector does not "
                    f"expect: suspect the {suspect}",
                }
            )
    return suspects
