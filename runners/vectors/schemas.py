"""The JSON Schemas in schemas/: the vector-file shape and one schema per domain.

Each schema is checked by a :class:`Checker`: a compiled validator (jsonschema-rs)
answers "valid?" in about a microsecond, and the ``jsonschema`` validator, which
stays the authority, is asked only when the compiled one says no: it decides, and
its messages are the ones reported. So a verdict is always jsonschema's whenever
a value is invalid, and valid values (nearly every one) cost almost nothing.
The compiled validator is only trusted for "valid": jsonschema-rs's regular
expressions are ECMA-262 (``$`` does not match before a final newline, as
Python's does), stricter, never looser, on the patterns in schemas/
(``tests/test_schema_checker.py`` checks both agree on every vector).
"""

from __future__ import annotations

import contextlib
import functools
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema_rs
from jsonschema import Draft202012Validator, ValidationError

from adapters._resources import project_dir

from .pointer import format_pointer

SCHEMAS_DIR = project_dir("schemas")

# Folders searched before SCHEMAS_DIR for <domain>.schema.json (``--schemas DIR``),
# so a domain can be tried out, or kept, outside this project.
_extra_dirs: list[Path] = []


@contextlib.contextmanager
def extra_schema_dirs(dirs: Sequence[Path]) -> Iterator[None]:
    """Within the block, look for domain schemas in ``dirs`` first."""
    added = [Path(d).resolve() for d in dirs]
    _extra_dirs[:0] = added
    try:
        yield
    finally:
        del _extra_dirs[: len(added)]


def extra_dirs() -> list[Path]:
    """The folders given with ``--schemas``, searched first (for contracts too)."""
    return list(_extra_dirs)


class Checker:
    """One schema: a compiled validator for the verdict, jsonschema for the errors.

    Quacks like the ``Draft202012Validator`` it wraps (``iter_errors``, ``is_valid``,
    ``validate``, ``schema``), so callers need not know which answered.
    """

    def __init__(self, schema: Any) -> None:
        self.schema = schema
        self.reference = Draft202012Validator(schema)
        self._compiled: Any = None
        try:
            self._compiled = jsonschema_rs.Draft202012Validator(schema)
        except Exception:  # a schema it cannot compile: jsonschema answers everything
            self._compiled = None

    def fast_valid(self, instance: Any) -> bool:
        """True when the compiled validator accepts ``instance`` (then jsonschema would too)."""
        if self._compiled is None:
            return False
        try:
            return bool(self._compiled.is_valid(instance))
        except Exception:  # e.g. a value with no JSON form (a lone surrogate, a NaN)
            return False

    def is_valid(self, instance: Any) -> bool:
        return self.fast_valid(instance) or self.reference.is_valid(instance)

    def iter_errors(self, instance: Any) -> Iterator[ValidationError]:
        if self.fast_valid(instance):
            return iter(())
        return self.reference.iter_errors(instance)

    def validate(self, instance: Any) -> None:
        if not self.fast_valid(instance):
            self.reference.validate(instance)


@dataclass(frozen=True)
class DomainSchema:
    """Validators for one domain's input, output and error codes."""

    domain: str
    input: Checker
    output: Checker
    error_code: Checker
    whole: Any = None  # the schema document, for ``file_fast_valid``


def _load(path: Path) -> Any:
    with path.open(encoding="utf-8") as f:
        return json.load(f)


def check_schema(schema: Any) -> None:
    """Raise jsonschema's ``SchemaError`` if ``schema`` is not a valid 2020-12 schema.

    The compiled meta-schema check answers for a valid schema (about 30 times quicker
    than jsonschema's: 17 ms a schema, paid by every process that loads vectors);
    jsonschema decides, and words the error, whenever it says no.
    """
    try:
        valid = bool(jsonschema_rs.meta.is_valid(schema))
    except Exception:  # e.g. a schema with no JSON form: jsonschema says what
        valid = False
    if not valid:
        Draft202012Validator.check_schema(schema)


@functools.cache
def vector_file_validator() -> Checker:
    schema = _load(SCHEMAS_DIR / "vector-file.schema.json")
    check_schema(schema)
    return Checker(schema)


@functools.cache
def results_validator() -> Checker:
    schema = _load(SCHEMAS_DIR / "results.schema.json")
    check_schema(schema)
    return Checker(schema)


def domain_schema(domain: str) -> DomainSchema | None:
    """The first ``<domain>.schema.json`` in the extra folders, then in SCHEMAS_DIR."""
    key = (domain, *_extra_dirs)
    found = _found.get(key)
    if found is not None:  # judging asks once per case: no file system look-up each time
        return found
    for folder in (*_extra_dirs, SCHEMAS_DIR):
        path = folder / f"{domain}.schema.json"
        if path.is_file():
            found = _found[key] = _domain_schema_at(path, domain)
            return found
    return None  # not remembered: the file may be written later


_found: dict[tuple[Any, ...], DomainSchema] = {}


@functools.cache
def _domain_schema_at(path: Path, domain: str) -> DomainSchema:
    schema = _load(path)
    check_schema(schema)
    defs = schema.get("$defs", {})

    def part(name: str) -> Checker:
        # Validate against one $def while keeping every other $def resolvable.
        return Checker({"$defs": defs, "$ref": f"#/$defs/{name}"})

    return DomainSchema(domain, part("input"), part("output"), part("error_code"), schema)


def file_fast_valid(
    schema: DomainSchema,
    document: Any,
    tags: frozenset[str] | None = None,
    clauses: frozenset[str] | None = None,
) -> bool:
    """True when one compiled validator accepts the whole vector file: its shape
    (vector-file.schema.json) and every case's input, expected and error against the
    domain's schema, in one pass over the document (rather than one per file and three
    per case); with ``tags`` and ``clauses``, also that every case's tags and clause ids
    are among them. False only means "check in detail"; jsonschema's verdict is the one
    reported, as with ``Checker``."""
    compiled = _file_validator(schema, tags, clauses)
    if compiled is None:
        return False
    try:
        return bool(compiled.is_valid(document))
    except Exception:  # e.g. a value with no JSON form (a lone surrogate, a NaN)
        return False


_FileKey = tuple[int, "frozenset[str] | None", "frozenset[str] | None"]
_file_validators: dict[_FileKey, tuple[DomainSchema, Any]] = {}


def _file_validator(
    schema: DomainSchema, tags: frozenset[str] | None, clauses: frozenset[str] | None
) -> Any:
    key = (id(schema), tags, clauses)
    known = _file_validators.get(key)
    if known is not None and known[0] is schema:
        return known[1]
    compiled = None
    whole = schema.whole
    uri = whole.get("$id") if isinstance(whole, dict) else None
    if isinstance(uri, str) and uri:
        per_case: dict[str, Any] = {
            member: {"$ref": f"{uri}#/$defs/{name}"}
            for member, name in (
                ("input", "input"),
                ("expected", "output"),
                ("error", "error_code"),
            )
        }
        # A file's tags and a domain's clause ids are a few dozen: checked in the same pass.
        for name, allowed in (("tags", tags), ("clauses", clauses)):
            if allowed is not None:  # (an empty enum is not a schema: no items, then)
                per_case[name] = (
                    {"items": {"enum": sorted(allowed)}} if allowed else {"maxItems": 0}
                )
        combined = {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "allOf": [
                vector_file_validator().schema,
                {"properties": {"cases": {"items": {"properties": per_case}}}},
            ],
            "$defs": {"hanzo-conformance-domain": whole},
        }
        try:
            compiled = jsonschema_rs.Draft202012Validator(combined)
        except Exception:  # it cannot compile this: the checks go one by one
            compiled = None
    if len(_file_validators) >= 256:  # tag sets of many small files: keep the cache small
        _file_validators.clear()
    _file_validators[key] = (schema, compiled)
    return compiled


def input_problem(domain: str, case_input: Any) -> str | None:
    """Why ``case_input`` does not match the domain's ``$defs.input`` (None: it does).

    The harness boundary: every request is checked once before any platform sees it,
    so the JSON layers trust their input and no domain needs a ``bad_input`` code.
    """
    schema = domain_schema(domain)
    if schema is None:
        return f"no schema for domain {domain!r}"
    error = next(schema.input.iter_errors(case_input), None)
    if error is None:
        return None
    return f"{pointer(error.absolute_path) or '(root)'}: {error.message}"


def pointer(parts: Any) -> str:
    """A JSON pointer (RFC 6901) from a jsonschema error path."""
    return format_pointer(parts)
