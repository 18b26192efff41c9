"""Can a JSON pointer (``*`` = any index or key) ever name a value a schema allows?

Used to reject comparison rules that could never apply: a rule path no output of
the domain can have, or a ``when``/``unless`` pointer no input can have. The walk
follows ``$ref`` (local ``#/$defs/...``), ``allOf``/``anyOf``/``oneOf``,
``properties``, ``patternProperties``, ``additionalProperties``, ``prefixItems``
and ``items``; anything it does not understand counts as reachable, so it never
rejects a pointer the schema might allow.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

_INDEX = re.compile(r"0|[1-9][0-9]*")
_MAX_REFS = 64  # a guard against $ref cycles; real schemas are far shallower


def _types(schema: Mapping[str, Any]) -> set[str] | None:
    declared = schema.get("type")
    if declared is None:
        return None
    return {declared} if isinstance(declared, str) else set(declared)


def reachable(schema: Any, defs: Mapping[str, Any], segments: Sequence[str], refs: int = 0) -> bool:
    """Whether some instance of ``schema`` has a value at ``segments``."""
    if schema is False:
        return False
    if not isinstance(schema, Mapping):
        return True
    ref = schema.get("$ref")
    if isinstance(ref, str):
        if refs >= _MAX_REFS or not ref.startswith("#/$defs/"):
            return True
        target = defs.get(ref.removeprefix("#/$defs/"))
        if target is None or not reachable(target, defs, segments, refs + 1):
            return False
    for key, combine in (("allOf", all), ("anyOf", any), ("oneOf", any)):
        branches = schema.get(key)
        if isinstance(branches, list) and not combine(
            reachable(b, defs, segments, refs) for b in branches
        ):
            return False
    if not segments:
        return True
    head, rest = segments[0], segments[1:]
    types = _types(schema)
    as_object = (types is None or "object" in types) and _object_child(
        schema, defs, head, rest, refs
    )
    as_array = (types is None or "array" in types) and _array_child(schema, defs, head, rest, refs)
    return as_object or as_array


def _object_child(
    schema: Mapping[str, Any], defs: Mapping[str, Any], key: str, rest: Sequence[str], refs: int
) -> bool:
    properties = schema.get("properties", {})
    patterns = schema.get("patternProperties", {})
    additional = schema.get("additionalProperties", True)
    if key == "*":
        candidates = [*properties.values(), *patterns.values(), additional]
        return any(reachable(c, defs, rest, refs) for c in candidates)
    if key in properties:
        return reachable(properties[key], defs, rest, refs)
    matching = [s for p, s in patterns.items() if re.search(p, key)]
    if matching:
        return all(reachable(s, defs, rest, refs) for s in matching)
    return reachable(additional, defs, rest, refs)


def _array_child(
    schema: Mapping[str, Any], defs: Mapping[str, Any], index: str, rest: Sequence[str], refs: int
) -> bool:
    if index != "*" and not _INDEX.fullmatch(index):
        return False  # "01", "-1", "x": never an array index, so never matched
    prefix = schema.get("prefixItems", [])
    items = schema.get("items", True)
    if index == "*":
        return any(reachable(s, defs, rest, refs) for s in [*prefix, items])
    position = int(index)
    if position < len(prefix):
        return reachable(prefix[position], defs, rest, refs)
    return reachable(items, defs, rest, refs)
