"""Load vector files and validate them against schemas/, reporting every problem at once."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jsonschema import ValidationError

from ._pointer import escape
from ._resources import project_dir
from ._schemas import domain_schema, pointer, vector_file_validator
from .exceptions import Problem, VectorFileError

VECTORS_DIR = project_dir("vectors")


@dataclass(frozen=True)
class Case:
    domain: str
    id: str
    description: str
    tags: tuple[str, ...]
    source: dict[str, str]  # {"kind": rfc|spec|issue|suite|derived|generated, "ref"}
    clauses: tuple[str, ...]
    input: Any
    expected: Any = None
    error: str | None = None
    path: Path | None = field(default=None, compare=False)

    @property
    def expects_error(self) -> bool:
        return self.error is not None

    def content_hash(self) -> str:
        """sha256 of the case's canonical JSON: what a ledger keys an expectation on."""
        body = {"input": self.input}
        body["error" if self.expects_error else "expected"] = (
            self.error if self.expects_error else self.expected
        )
        canonical = json.dumps(body, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class VectorFile:
    path: Path
    domain: str
    version: int
    description: str
    comparison: tuple[dict[str, Any], ...]
    variants: tuple[dict[str, Any], ...]
    cases: tuple[Case, ...]


class _StrictJsonError(ValueError):
    pass


_SURROGATE = re.compile("[\ud800-\udfff]")
MAX_SAFE_INTEGER = 2**53 - 1  # I-JSON (RFC 7493 §2.2): every platform reads these exactly


def _reject_constant(name: str) -> Any:
    raise _StrictJsonError(f"{name} is not JSON")


def _not_i_json(value: Any, where: str) -> Iterator[tuple[str, str]]:
    """(pointer, problem) for each value every platform would not read alike (RFC 7493 §2)."""
    if isinstance(value, int) and not isinstance(value, bool):
        if abs(value) > MAX_SAFE_INTEGER:
            yield where, "integer outside the I-JSON range ±(2^53-1)"
    elif isinstance(value, str):
        if _SURROGATE.search(value):
            yield where, "lone surrogate: not Unicode text (UTF-8 and serde_json cannot carry it)"
    elif isinstance(value, dict):
        for k, v in value.items():
            here = f"{where}/{escape(k)}"
            yield from _not_i_json(k, here)
            yield from _not_i_json(v, here)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _not_i_json(v, f"{where}/{i}")


def _reject_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj: dict[str, Any] = {}
    for key, value in pairs:
        if key in obj:
            raise _StrictJsonError(f"duplicate object key {key!r}")
        obj[key] = value
    return obj


def _case_id_at(document: Any, parts: list[Any]) -> str | None:
    if len(parts) >= 2 and parts[0] == "cases" and isinstance(parts[1], int):
        cases = document.get("cases") if isinstance(document, dict) else None
        if isinstance(cases, list) and parts[1] < len(cases) and isinstance(cases[parts[1]], dict):
            case_id = cases[parts[1]].get("id")
            return case_id if isinstance(case_id, str) else f"#{parts[1]}"
        return f"#{parts[1]}"
    return None


def _humane(err: ValidationError) -> str:
    """jsonschema's message, minus the whole-instance dumps some validators make."""
    instance = err.instance
    if err.validator == "oneOf" and isinstance(instance, dict) and "input" in instance:
        has = [k for k in ("expected", "error") if k in instance]
        return "a case needs exactly one of 'expected' or 'error'; it has " + (
            " and ".join(repr(k) for k in has) if has else "neither"
        )
    message = err.message
    return message if len(message) <= 300 else message[:297] + "..."


def load_vector_file(path: Path) -> VectorFile:
    """Read, parse and validate one vector file; raise VectorFileError listing every problem."""
    problems: list[Problem] = []
    try:
        text = path.read_text(encoding="utf-8")
        document = json.loads(
            text, object_pairs_hook=_reject_duplicate_keys, parse_constant=_reject_constant
        )
    except (OSError, UnicodeDecodeError) as e:
        raise VectorFileError([Problem(path, None, "", f"cannot read: {e}")]) from e
    except json.JSONDecodeError as e:
        raise VectorFileError(
            [
                Problem(
                    path, None, "", f"not valid JSON: {e.msg} (line {e.lineno}, column {e.colno})"
                )
            ]
        ) from e
    except _StrictJsonError as e:
        raise VectorFileError([Problem(path, None, "", f"not valid vector JSON: {e}")]) from e

    for err in sorted(
        vector_file_validator().iter_errors(document), key=lambda e: list(e.absolute_path)
    ):
        parts = list(err.absolute_path)
        problems.append(Problem(path, _case_id_at(document, parts), pointer(parts), _humane(err)))
    if problems:
        raise VectorFileError(problems)

    domain = document["domain"]
    schema = domain_schema(domain)
    if schema is None:
        raise VectorFileError(
            [
                Problem(
                    path,
                    None,
                    "/domain",
                    f"unknown domain {domain!r}: no schemas/{domain}.schema.json",
                )
            ]
        )

    seen: dict[str, int] = {}
    cases: list[Case] = []
    for index, raw in enumerate(document["cases"]):
        case_id = raw["id"]
        base = f"/cases/{index}"
        if case_id in seen:
            problems.append(
                Problem(
                    path,
                    case_id,
                    f"{base}/id",
                    f"duplicate id (first used by /cases/{seen[case_id]})",
                )
            )
        seen.setdefault(case_id, index)
        for t, tag in enumerate(raw["tags"]):
            if tag not in document["tags"]:
                problems.append(
                    Problem(
                        path, case_id, f"{base}/tags/{t}", f"tag {tag!r} is not declared in /tags"
                    )
                )
        for where, message in _not_i_json(raw, base):
            problems.append(Problem(path, case_id, where, message))
        checks = [("input", schema.input, raw["input"])]
        if "error" in raw:
            checks.append(("error", schema.error_code, raw["error"]))
        else:
            checks.append(("expected", schema.output, raw["expected"]))
        for key, validator, value in checks:
            for err in validator.iter_errors(value):
                where = f"{base}/{key}{pointer(err.absolute_path)}"
                problems.append(Problem(path, case_id, where, _humane(err)))
        cases.append(
            Case(
                domain=domain,
                id=case_id,
                description=raw["description"],
                tags=tuple(raw["tags"]),
                source=raw["source"],
                clauses=tuple(raw["clauses"]),
                input=raw["input"],
                expected=raw.get("expected"),
                error=raw.get("error"),
                path=path,
            )
        )
    if problems:
        raise VectorFileError(problems)
    return VectorFile(
        path=path,
        domain=domain,
        version=document["version"],
        description=document["description"],
        comparison=tuple(document.get("comparison", ())),
        variants=tuple(document.get("variants", ())),
        cases=tuple(cases),
    )


def vector_paths(sources: Iterable[Path]) -> list[Path]:
    """Every *.json file named or found (recursively) under the given files and folders."""
    found: dict[Path, None] = {}
    for source in sources:
        if source.is_dir():
            for p in sorted(source.rglob("*.json")):
                found.setdefault(p.resolve(), None)
        else:
            found.setdefault(source.resolve(), None)
    return list(found)


def load_vectors(sources: Iterable[Path]) -> list[VectorFile]:
    """Load every vector file; problems from all files are reported together.

    A case id must be unique within its domain across all files loaded, since
    results are keyed by (domain, case).
    """
    files: list[VectorFile] = []
    problems: list[Problem] = []
    for path in vector_paths(sources):
        try:
            files.append(load_vector_file(path))
        except VectorFileError as e:
            problems.extend(e.problems)
    owners: dict[tuple[str, str], Path] = {}
    for vf in files:
        for case in vf.cases:
            first = owners.setdefault((vf.domain, case.id), vf.path)
            if first != vf.path:
                problems.append(
                    Problem(
                        vf.path,
                        case.id,
                        "/cases",
                        f"id already used in {first} for domain {vf.domain}",
                    )
                )
    if problems:
        raise VectorFileError(problems)
    return files
