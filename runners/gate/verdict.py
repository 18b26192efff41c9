"""What turns a run's results into the gate's verdict, shared by the CLI and the pytest driver.

Exit codes (README "Exit codes"; ``hanzo-conformance run`` and ``pytest`` agree):

====  ==============================================================================
0     every case as expected: passes, plus divergences the ledgers record (xfail)
      and partial answers they record
1     an unexpected divergence (fail or error), a partial answer no ledger
      records (fields the platform declared absent), a ledger problem (stale,
      changed, expired, or naming a case, hash or platform that does not exist),
      or, for ``report``, results of an interrupted run (cases ``not_run``)
2     usage error: bad arguments, an invalid vector file, ledger or results file,
      an unwritable ``--output``
130   interrupted (SIGINT); 143: terminated (SIGTERM)
====  ==============================================================================
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from ..judge.keys import case_key

EXIT_OK = 0
EXIT_DIVERGED = 1
EXIT_USAGE = 2
EXIT_SIGINT = 130
EXIT_SIGTERM = 143


def exit_code(doc: Mapping[str, Any]) -> int:
    """The verdict on a results document; an incomplete run (``not_run`` cases) never
    passes, so ``report`` on an interrupted run's saved results is not a green gate."""
    summary = doc["summary"]
    if summary["diverged"] or summary.get("expectations", {}).get("problems"):
        return EXIT_DIVERGED
    if summary.get("not_run"):
        return EXIT_DIVERGED
    if summary.get("partial_unrecorded"):
        return EXIT_DIVERGED  # not compared is not a pass (docs/protocol.md, partial answers)
    return EXIT_OK


def in_shard(domain: str, case: str, shard: tuple[int, int]) -> bool:
    """Whether a case belongs to shard ``i/n``: by a hash of its id, stable as cases are added."""
    index, count = shard
    return shard_of(domain, case, count) == index


def shard_of(domain: str, case: str, count: int) -> int:
    """The shard ``i`` (1 to ``count``) a case belongs to (``in_shard``'s rule)."""
    digest = hashlib.sha256(case_key(domain, case).encode()).digest()
    return int.from_bytes(digest[:8], "big") % count + 1
