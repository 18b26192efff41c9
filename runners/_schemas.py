"""The JSON Schemas in schemas/: the vector-file shape and one schema per domain."""

from __future__ import annotations

import contextlib
import functools
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

from ._pointer import format_pointer
from ._resources import project_dir

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


@dataclass(frozen=True)
class DomainSchema:
    """Validators for one domain's input, output and error codes."""

    domain: str
    input: Draft202012Validator
    output: Draft202012Validator
    error_code: Draft202012Validator


def _load(path: Path) -> Any:
    with path.open(encoding="utf-8") as f:
        return json.load(f)


@functools.cache
def vector_file_validator() -> Draft202012Validator:
    schema = _load(SCHEMAS_DIR / "vector-file.schema.json")
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


@functools.cache
def results_validator() -> Draft202012Validator:
    schema = _load(SCHEMAS_DIR / "results.schema.json")
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def domain_schema(domain: str) -> DomainSchema | None:
    """The first ``<domain>.schema.json`` in the extra folders, then in SCHEMAS_DIR."""
    for folder in (*_extra_dirs, SCHEMAS_DIR):
        path = folder / f"{domain}.schema.json"
        if path.is_file():
            return _domain_schema_at(path, domain)
    return None


@functools.cache
def _domain_schema_at(path: Path, domain: str) -> DomainSchema:
    schema = _load(path)
    Draft202012Validator.check_schema(schema)
    defs = schema.get("$defs", {})

    def part(name: str) -> Draft202012Validator:
        # Validate against one $def while keeping every other $def resolvable.
        return Draft202012Validator({"$defs": defs, "$ref": f"#/$defs/{name}"})

    return DomainSchema(domain, part("input"), part("output"), part("error_code"))


def input_problem(domain: str, case_input: Any) -> str | None:
    """Why ``case_input`` does not match the domain's ``$defs.input`` (None: it does).

    The harness boundary: every request is checked once before any platform sees it,
    so the JSON layers trust their input and no domain needs a ``bad_input`` code.
    """
    schema = domain_schema(domain)
    if schema is None:
        return f"no schema for domain {domain!r}"
    error = next(iter(schema.input.iter_errors(case_input)), None)
    if error is None:
        return None
    return f"{pointer(error.absolute_path) or '(root)'}: {error.message}"


def pointer(parts: Any) -> str:
    """A JSON pointer (RFC 6901) from a jsonschema error path."""
    return format_pointer(parts)
