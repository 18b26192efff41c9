"""History across several saved runs (e.g. successive CI runs): which cases changed status."""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any

from .._textsafe import bound

Key = tuple[str, str, str]  # domain, case, platform


def statuses(doc: Mapping[str, Any]) -> dict[Key, str]:
    return {(r["domain"], r["case"], r["platform"]): r["status"] for r in doc["results"]}


def changes(
    older: Mapping[str, Any], newer: Mapping[str, Any]
) -> list[tuple[Key, str | None, str | None]]:
    """(case, status before, status after) for each result that changed, appeared or vanished."""
    before, after = statuses(older), statuses(newer)
    out = []
    for key in sorted(before.keys() | after.keys()):
        old, new = before.get(key), after.get(key)
        if old != new:
            out.append((key, old, new))
    return out


def _label(doc: Mapping[str, Any], name: str) -> str:
    run = doc["summary"].get("run", {})
    when = run.get("finished", "")
    version = run.get("vectors", {}).get("version", "")
    extra = ", ".join(x for x in (when, f"vectors {version}" if version else "") if x)
    return f"{name} ({extra})" if extra else name


_COUNTED = ("pass", "partial", "fail", "error", "xfail", "skip")
"""The statuses a run's line counts (``partial`` only when it has some)."""


def render_history(docs: Sequence[tuple[str, Mapping[str, Any]]], limit: int = 200) -> str:
    """Each run's counts, then for each pair of successive runs the cases that changed."""
    lines = ["runs:"]
    for name, doc in docs:
        s = doc["summary"]
        counts = ", ".join(f"{s.get(k, 0)} {k}" for k in _COUNTED if k != "partial" or s.get(k))
        lines.append(f"  {_label(doc, name)}: {counts}")
    for (old_name, old), (new_name, new) in itertools.pairwise(docs):
        changed = changes(old, new)
        lines.append("")
        lines.append(f"{old_name} -> {new_name}: {len(changed)} changed")
        for (domain, case, platform), before, after in changed[:limit]:
            lines.append(
                f"  {bound(f'{domain}::{case}', 200)} [{platform}]: "
                f"{before or '(absent)'} -> {after or '(absent)'}"
            )
        if len(changed) > limit:
            lines.append(f"  … and {len(changed) - limit} more")
    return "\n".join(lines)
