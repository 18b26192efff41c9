"""Load vector files and validate them against schemas/, reporting every problem at once."""

from __future__ import annotations

import errno
import functools
import hashlib
import itertools
import json
import math
import operator
import os
import re
from collections.abc import Iterable, Iterator
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
from jsonschema import ValidationError

from adapters._json import canonical_chunks, canonical_text, compact_chunks, compact_text
from adapters._resources import project_dir

from .. import _gc
from .._input_files import not_regular
from ..exceptions import Problem, VectorFileError
from . import confinement
from .clauses import DOCS_DIR, contract_path, domain_clause_ids
from .pointer import escape
from .pointer import parse as parse_pointer
from .schema_paths import reachable
from .schemas import (
    DomainSchema,
    domain_schema,
    file_fast_valid,
    pointer,
    vector_file_validator,
)
from .variants import VariantError, chunks_at

VECTORS_DIR = project_dir("vectors")
CANDIDATES_DIR = "candidates"  # generated, unreviewed cases (runners/generate/candidates.py)
_KEBAB = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")


def _typeless(value: Any) -> bool:
    kind = type(value)
    if kind is str or value is None:
        return True
    if kind is dict:
        return all(type(k) is str and _typeless(v) for k, v in value.items())
    if kind is list:
        return all(_typeless(v) for v in value)
    return False  # a number, a boolean, or not JSON at all


@dataclass(frozen=True, init=False)
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

    # Written out because loading makes one per case: the frozen dataclass __init__
    # sets each field with its own object.__setattr__, about twice the cost of
    # setting the instance dict at once. Same fields, defaults and order as declared
    # above (tests/test_outcomes_fast.py checks).
    def __init__(
        self,
        domain: str,
        id: str,
        description: str,
        tags: tuple[str, ...],
        source: dict[str, str],
        clauses: tuple[str, ...],
        input: Any,
        expected: Any = None,
        error: str | None = None,
        path: Path | None = None,
    ) -> None:
        object.__setattr__(
            self,
            "__dict__",
            {
                "domain": domain,
                "id": id,
                "description": description,
                "tags": tags,
                "source": source,
                "clauses": clauses,
                "input": input,
                "expected": expected,
                "error": error,
                "path": path,
            },
        )

    @property
    def expects_error(self) -> bool:
        return self.error is not None

    def content_hash(self) -> str:
        """sha256 of the case's canonical JSON: what a ledger keys an expectation on."""
        return self._content_hash

    @functools.cached_property
    def input_size(self) -> int:
        """Length of the input as JSON text: what a batch of requests is bounded by."""
        text = self.input_json
        if text is not None:
            return len(text)
        return len(json.dumps(self.input, ensure_ascii=False, default=repr))

    @property
    def expected_is_typeless(self) -> bool:
        """The expected value holds no number or boolean, at any depth.

        Then whatever Python's ``==`` finds equal to it is the same JSON value (a
        string equals only a string, null only null, a list only a list, an object
        only an object), so judging needs no type-strict walk (``same_json``).
        Computed when first asked (judging a decoded output), and kept without a lock
        (``cached_property`` takes one per class on Python 3.11; platform threads
        asking at once would queue): two threads may both compute the same answer.
        """
        known = self.__dict__.get("_expected_is_typeless")
        if known is None:
            known = self.__dict__["_expected_is_typeless"] = _typeless(self.expected)
        return bool(known)

    @functools.cached_property
    def input_json(self) -> str | None:
        """The input as compact JSON text, as a ``run`` line carries it (None: not JSON).

        Made once per case: every platform's request line reuses it
        (``adapters.messages.encode_request``) instead of encoding the input again.
        """
        try:
            return compact_text(self.input)
        except (TypeError, ValueError):
            return None

    @functools.cached_property
    def expected_json(self) -> str | None:
        """The expected output as compact JSON text, as a worker writes it (None: the
        case expects an error, or the value is not JSON).

        Made once per case: a platform's answer whose output is this text byte for byte
        is this value, without decoding it (``adapters.protocol.KnownInputText``).
        """
        if self.expects_error:
            return None
        try:
            return compact_text(self.expected)
        except (TypeError, ValueError):
            return None

    @functools.cached_property
    def _content_hash(self) -> str:  # once per case, however many platforms report it
        return _content_hash(
            self.input, self.error if self.expects_error else self.expected, self.expects_error
        )


def _content_hash(case_input: Any, expectation: Any, expects_error: bool) -> str:
    """sha256 of ``json.dumps({"input": ..., "expected" | "error": ...}, sort_keys=True,
    ensure_ascii=False, separators=(",", ":"))``, the keys' order written out."""
    key = '{"error":' if expects_error else '{"expected":'
    canonical = f'{key}{canonical_text(expectation)},"input":{canonical_text(case_input)}}}'
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
MAX_DEPTH = 128
"""Deepest nesting of arrays and objects a vector file may have (the file's top-level
object is level 1). serde_json's default limit; far beyond any case, and safely within
Python's recursion limit for everything that walks a case."""

# A string (unrolled, possessive: constant memory however long) or a bracket.
_STRING_OR_BRACKET = re.compile(r'"[^"\\]*+(?:\\.[^"\\]*+)*+"?|[\[{\]}]', re.DOTALL)


def _reject_constant(name: str) -> Any:
    raise _StrictJsonError(f"{name} is not JSON")


# Nesting step of each byte value: +1 for [ and {, -1 for ] and }.
_DEPTH_STEP = [{0x5B: 1, 0x7B: 1, 0x5D: -1, 0x7D: -1}.get(b, 0) for b in range(256)]
# Every byte but brackets, colons and quotes: no byte of a multi-byte UTF-8 character
# is ASCII, so what is left is the text's nesting, its members' colons and its strings'
# quotes.
_NOT_STRUCTURE = bytes(b for b in range(256) if b not in b'[]{}:"')
_NOT_COLON_OR_QUOTE = bytes(b for b in range(256) if b not in b':"')
# A backslash and the character it escapes, paired left to right as a reader takes them.
_ESCAPE = re.compile(rb"\\.", re.DOTALL)
# (Searched for by regex: ``in`` is several times slower for this needle, whose last
# byte, a quote, is among a JSON text's commonest.)
_BACKSLASH_QUOTE = re.compile(rb'\\"')


def _escaped_quote(data: bytes) -> bool:
    """Whether ``data`` may hold an escaped quote (a yes may be a backslash escaped).

    Backslashes are few in the usual file: each escape is looked at, found by
    ``find`` (memchr), for up to one a KiB, before a regex search (a pass over every
    byte) takes the rest.
    """
    find = data.find
    at = find(b"\\")
    for _ in range(len(data) >> 10):
        if at < 0:
            return False
        if data[at + 1 : at + 2] == b'"':
            return True
        at = find(b"\\", at + 2)  # past the escaped byte (a backslash too, maybe)
    return at >= 0 and _BACKSLASH_QUOTE.search(data, at) is not None


def _outside_strings(data: bytes, dropped: bytes = _NOT_STRUCTURE) -> bytes:
    """The brackets and colons of the JSON text ``data`` that are outside its strings, in
    order (C-speed), less the bytes of ``dropped``. Outside strings a colon ends an
    object member's key, so their count is the text's number of members."""
    # Escapes are inside strings: gone, every quote left is a string's end. Only an escaped
    # quote could be taken for one (no bracket or colon can be escaped), so without a
    # backslash before a quote the escapes are left for translate to drop.
    if _escaped_quote(data):
        data = _ESCAPE.sub(b"", data)
    structure = data.translate(None, dropped)
    # Two quotes side by side are a string with no bracket or colon (or the end of one and
    # the start of the next): dropping them keeps everything else on its side of the
    # quotes. What quotes are left hold the few strings with brackets or colons in them.
    structure = structure.replace(b'""', b"")
    return b"".join(structure.split(b'"')[::2]) if b'"' in structure else structure


def _deeper_than_limit(data: bytes) -> bool:
    """Whether nesting exceeds MAX_DEPTH somewhere (C-speed; ``_too_deep`` then says where)."""
    return _nested_past_limit(_outside_strings(data))


def _nested_past_limit(structure: bytes) -> bool:
    """``_deeper_than_limit`` of the text whose ``_outside_strings`` is ``structure``."""
    brackets = structure.translate(None, b":") if b":" in structure else structure
    if len(brackets) <= MAX_DEPTH:
        return False
    # Each round drops the innermost pairs, at most two levels a round ([] then {}):
    # gone within MAX_DEPTH / 2 rounds means no deeper nesting (the usual file, in a few).
    left = brackets
    for _ in range(MAX_DEPTH // 2):
        left = left.replace(b"[]", b"").replace(b"{}", b"")
        if not left:
            return False
    return max(itertools.accumulate(map(_DEPTH_STEP.__getitem__, brackets))) > MAX_DEPTH


def _too_deep(text: str) -> tuple[int, int] | None:
    """(line, column) where nesting first exceeds MAX_DEPTH, scanning brackets outside strings."""
    depth = 0
    for token in _STRING_OR_BRACKET.finditer(text):
        char = token.group()[0]
        if char in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                position = token.start()
                line = text.count("\n", 0, position) + 1
                return line, position - text.rfind("\n", 0, position)
        elif char in "]}":
            depth -= 1
    return None


class _KeyedTwice(dict[str, Any]):
    """An object in which some keys appeared more than once (the last value kept)."""

    duplicates: list[str]


def _note_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj: dict[str, Any] = {}
    duplicates = []
    for key, value in pairs:
        if key in obj:
            duplicates.append(key)
        obj[key] = value
    if not duplicates:
        return obj
    marked = _KeyedTwice(obj)
    marked.duplicates = duplicates
    return marked


def _not_i_json(value: Any, where: str) -> Iterator[tuple[str, str]]:
    """(pointer, problem) for each value every platform would not read alike (RFC 7493 §2)."""
    if isinstance(value, bool):
        return
    if isinstance(value, int):
        if isinstance(value, _TooManyDigits):
            yield where, f"integer of {value.digits:,} digits, outside the I-JSON range ±(2^53-1)"
        elif abs(value) > MAX_SAFE_INTEGER:
            yield where, "integer outside the I-JSON range ±(2^53-1)"
    elif isinstance(value, float):
        if not math.isfinite(value):
            yield where, "number too large for a double (it would be sent as Infinity, not JSON)"
    elif isinstance(value, str):
        if _SURROGATE.search(value):
            yield where, "lone surrogate: not Unicode text (UTF-8 and serde_json cannot carry it)"
    elif isinstance(value, dict):
        if isinstance(value, _KeyedTwice):
            for key in dict.fromkeys(value.duplicates):
                yield f"{where}/{escape(key)}", f"duplicate object key {key!r}"
        for k, v in value.items():
            here = f"{where}/{escape(k)}"
            yield from _not_i_json(k, here)
            yield from _not_i_json(v, here)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _not_i_json(v, f"{where}/{i}")


def i_json_problems(value: Any) -> list[tuple[str, str]]:
    """(JSON pointer, problem) for each place in ``value`` a vector may not hold (RFC 7493)."""
    return list(_not_i_json(value, ""))


def _case_id_at(document: Any, parts: list[Any]) -> str | None:
    if len(parts) >= 2 and parts[0] == "cases" and str(parts[1]).isdigit():
        index = int(parts[1])
        cases = document.get("cases") if isinstance(document, dict) else None
        if isinstance(cases, list) and index < len(cases) and isinstance(cases[index], dict):
            case_id = cases[index].get("id")
            return case_id if isinstance(case_id, str) else f"#{index}"
        return f"#{index}"
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


# A \u escape of a surrogate code point: the only way a lone surrogate gets into text
# read as UTF-8 (where it cannot be written raw). A hit only means "walk and see".
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")


_MOST_DIGITS = 4300
"""The longest integer text Python's ``int()`` reads by default (CPython's
``sys.int_info.default_max_str_digits``), far past I-JSON's range anyway."""


class _TooManyDigits(int):
    """An integer too long to read, standing in for it (outside I-JSON's range, as it
    is) so that the I-JSON walk names its file, case and pointer."""

    digits: int

    def __new__(cls, digits: int) -> _TooManyDigits:
        made = super().__new__(cls, MAX_SAFE_INTEGER + 1)
        made.digits = digits
        return made


class _Suspicions:
    """What parsing saw that the I-JSON walk must look at (nothing, for most files)."""

    def __init__(self) -> None:
        self.any = False
        self.floats = False  # any number with a fraction or exponent (Python's float)

    def pairs(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        obj = dict(pairs)
        if len(obj) == len(pairs):
            return obj
        self.any = True
        return _note_duplicate_keys(pairs)

    def integer(self, text: str) -> int:
        if len(text) > _MOST_DIGITS:  # int() refuses it, naming no place: the walk will
            self.any = True
            return _TooManyDigits(len(text.lstrip("-")))
        value = int(text)
        if len(text) > 15 and abs(value) > MAX_SAFE_INTEGER:  # 15 digits always fit
            self.any = True
        return value

    def number(self, text: str) -> float:
        value = float(text)
        self.floats = True
        if not math.isfinite(value):
            self.any = True
        return value


def _read(path: Path) -> tuple[bytes, str, int]:
    """The file's bytes and text, and its number of object members (counted on the
    text); VectorFileError if it cannot be read or is nested too deep to parse."""
    try:
        data = path.read_bytes()
        text = data.decode("utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise VectorFileError([Problem(path, None, "", f"cannot read: {e}")]) from e
    structure = _outside_strings(data)
    deep = _too_deep(text) if _nested_past_limit(structure) else None
    if deep is not None:
        line, column = deep
        message = (
            f"arrays/objects nested more than {MAX_DEPTH} levels deep "
            f"(the limit; line {line}, column {column})"
        )
        raise VectorFileError([Problem(path, None, "", message)])
    return data, text, structure.count(b":")


def _parse_checked(path: Path, data: bytes, text: str) -> tuple[Any, bool]:
    """The file's JSON (duplicate keys kept last-wins, marked), and whether it may break
    I-JSON (then ``_not_i_json`` walks it); VectorFileError if unusable."""
    suspicions = _Suspicions()
    try:
        document = json.loads(
            text,
            object_pairs_hook=suspicions.pairs,
            parse_constant=_reject_constant,
            parse_int=suspicions.integer,
            parse_float=suspicions.number,
        )
    except json.JSONDecodeError as e:
        message = f"not valid JSON: {e.msg} (line {e.lineno}, column {e.colno})"
        raise VectorFileError([Problem(path, None, "", message)]) from e
    except _StrictJsonError as e:
        raise VectorFileError([Problem(path, None, "", f"not valid vector JSON: {e}")]) from e
    return document, suspicions.any or _surrogate_escaped(data)


def _surrogate_escaped(data: bytes) -> bool:
    """Whether the text may hold a lone surrogate (a hit only means "walk and see")."""
    return b"\\" in data and _SURROGATE_ESCAPE.search(data) is not None


def _rule_problems(path: Path, document: dict[str, Any], schema: DomainSchema) -> Iterator[Problem]:
    """Comparison rules whose pointers no output (path) or input (when/unless) can have,
    and ignore rules that leave nothing of the output compared."""
    rules = document.get("comparison", [])
    yield from _vacuous_rules(path, rules if isinstance(rules, list) else [], schema)
    for index, rule in enumerate(rules if isinstance(rules, list) else []):
        if not isinstance(rule, dict):
            continue
        base = f"/comparison/{index}"
        pointers = [("path", rule.get("path"), schema.output, "output")]
        when = rule.get("when", {})
        pointers += [
            (f"when/{escape(p)}", p, schema.input, "input")
            for p in (when if isinstance(when, dict) else {})
        ]
        unless = rule.get("unless", [])
        pointers += [
            (f"unless/{i}", p, schema.input, "input")
            for i, p in enumerate(unless if isinstance(unless, list) else [])
        ]
        # `where` keys are members of the object holding the ignored value.
        holder = rule.get("path")
        where = rule.get("where", {})
        if isinstance(holder, str) and holder.startswith("/") and isinstance(where, dict):
            parent = holder[: holder.rindex("/")]
            pointers += [
                (f"where/{escape(k)}", f"{parent}/{escape(k)}", schema.output, "output")
                for k in where
            ]
        for where, pointer_text, validator, side in pointers:
            if not isinstance(pointer_text, str) or not pointer_text.startswith("/"):
                continue  # the vector-file schema reports it
            root = validator.schema
            defs = root.get("$defs", {}) if isinstance(root, dict) else {}
            if not reachable(root, defs, parse_pointer(pointer_text)):
                yield Problem(
                    path,
                    None,
                    f"{base}/{where}",
                    f"{pointer_text!r} can never match: no {side} of the domain "
                    f"(schemas/{schema.domain}.schema.json) has a value there",
                )


def _vacuous_rules(path: Path, rules: list[Any], schema: DomainSchema) -> Iterator[Problem]:
    """A gate that compares nothing passes every answer: an unconditional ignore of the
    whole output (``""``, ``/*``) or, between them, of every member its schema names."""
    root = schema.output.schema if isinstance(schema.output.schema, dict) else {}
    members = _object_members(root, root)
    ignored: set[str] = set()
    for index, rule in enumerate(rules):
        if not isinstance(rule, dict) or rule.get("kind") != "ignore" or "where" in rule:
            continue
        pointer_text = rule.get("path")
        if not isinstance(pointer_text, str):
            continue
        top = parse_pointer(pointer_text)[:1] if pointer_text.startswith("/") else []
        if pointer_text.count("/") == 1:
            ignored.update(members if top == ["*"] else top)
        if pointer_text in ("", "/*") or (members and members <= ignored):
            yield Problem(
                path,
                None,
                f"/comparison/{index}/path",
                "the comparison rules ignore the whole output: every answer would pass",
            )
            return


def _object_members(node: Any, root: dict[str, Any], depth: int = 0) -> set[str]:
    """The member names an object schema (through ``$ref`` and ``oneOf``/``anyOf``) can have."""
    if not isinstance(node, dict) or depth > 32:
        return set()
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        return _object_members(root.get("$defs", {}).get(ref[len("#/$defs/") :]), root, depth + 1)
    found = set(node.get("properties", {}))
    for branch in (*node.get("oneOf", ()), *node.get("anyOf", ())):
        found |= _object_members(branch, root, depth + 1)
    return found


def _shown(contract: Path | None) -> str:
    """A contract's path, relative to the project's docs/domains where it is there."""
    if contract is None:
        return "(no contract)"
    if contract.parent == DOCS_DIR:
        return f"docs/domains/{contract.name}"
    return str(contract)


def _case_problems(
    path: Path,
    raw: dict[str, Any],
    index: int,
    schema: DomainSchema | None,
    clauses: frozenset[str] | None,
    variants: list[Any],
    tags: Any,
) -> Iterator[Problem]:
    """Problems of one case against its domain: schema, clause ids, variants."""
    case_id = raw.get("id") if isinstance(raw.get("id"), str) else f"#{index}"
    base = f"/cases/{index}"
    input_ok = "input" in raw  # variants are checked only on inputs the schema accepts
    if schema is not None:
        checks = [
            ("input", schema.input),
            ("expected", schema.output),
            ("error", schema.error_code),
        ]
        for key, validator in checks:
            if key not in raw:
                continue
            for err in validator.iter_errors(raw[key]):
                input_ok = input_ok and key != "input"
                where = f"{base}/{key}{pointer(err.absolute_path)}"
                yield Problem(path, case_id, where, _humane(err))
    declared = tags if isinstance(tags, dict) else {}
    case_tags = raw.get("tags")
    for t, tag in enumerate(case_tags if isinstance(case_tags, list) else []):
        if isinstance(tag, str) and tag not in declared:
            yield Problem(
                path, case_id, f"{base}/tags/{t}", f"tag {tag!r} is not declared in /tags"
            )
    case_clauses = raw.get("clauses")
    if schema is not None and clauses is not None and isinstance(case_clauses, list):
        for i, clause in enumerate(case_clauses):
            if isinstance(clause, str) and clause not in clauses:
                yield Problem(
                    path,
                    case_id,
                    f"{base}/clauses/{i}",
                    f"clause {clause!r} is not defined in {_shown(contract_path(schema.domain))}",
                )
    if input_ok:
        yield from _variant_problems(path, case_id, base, raw["input"], variants)
        if schema is not None:
            yield from _confinement_problems(path, raw, index, schema.domain)


def _confinement_problems(
    path: Path, raw: dict[str, Any], index: int, domain: str
) -> Iterator[Problem]:
    """What a schema-valid case of an OS domain shows of writing outside its case root."""
    case_id = raw.get("id") if isinstance(raw.get("id"), str) else f"#{index}"
    for where, message in confinement.problems(domain, raw.get("input")):
        yield Problem(path, case_id, f"/cases/{index}/input{where}", message)


def _variant_problems(
    path: Path, case_id: str | None, base: str, case_input: Any, variants: Iterable[Any]
) -> Iterator[Problem]:
    """Variants that cannot apply to a case's input (a schema-valid one)."""
    for v_index, variant in enumerate(variants):
        if not isinstance(variant, dict) or not isinstance(variant.get("path"), str):
            continue
        try:
            chunks_at(case_input, variant["path"])
        except VariantError as e:
            yield Problem(
                path,
                case_id,
                f"{base}/input{variant['path']}",
                f"the {variant.get('kind')} variant /variants/{v_index} does not apply: {e}",
            )
        except ValueError:
            continue  # not a pointer: the vector-file schema reports it


def _plainly_valid_case(
    raw: dict[str, Any],
    schema: DomainSchema | None,
    clauses: frozenset[str] | None,
    tags: Any,
) -> bool:
    """A quick yes for a case ``_case_problems`` would find nothing in (variants aside);
    a no only means "look closely"."""
    if schema is None or clauses is None or not isinstance(tags, dict):
        return False
    case_tags = raw.get("tags")
    case_clauses = raw.get("clauses")
    return (
        "input" in raw
        and schema.input.fast_valid(raw["input"])
        and ("expected" not in raw or schema.output.fast_valid(raw["expected"]))
        and ("error" not in raw or schema.error_code.fast_valid(raw["error"]))
        and type(case_tags) is list
        and _all_known(case_tags, tags.keys())
        and type(case_clauses) is list
        and _all_known(case_clauses, clauses)
    )


def _known_tags_and_clauses(raw: dict[str, Any], clauses: frozenset[str] | None, tags: Any) -> bool:
    """``_plainly_valid_case`` of a case whose values the file's compiled check accepted."""
    if clauses is None or not isinstance(tags, dict):
        return False
    case_tags = raw.get("tags")
    case_clauses = raw.get("clauses")
    return (
        type(case_tags) is list
        and _all_known(case_tags, tags.keys())
        and type(case_clauses) is list
        and _all_known(case_clauses, clauses)
    )


def _all_known(items: list[Any], known: AbstractSet[str]) -> bool:
    """Every item is one of the ``known`` strings (whose keys are all str)."""
    try:
        return known >= set(items)
    except TypeError:  # an unhashable item: not a known string
        return False


def load_vector_file(path: Path) -> VectorFile:
    """Read, parse and validate one vector file; raise VectorFileError listing every problem.

    Everything that can be checked is checked in one pass: the file's shape, each
    case's input/expected/error against the domain schema, clause ids against the
    domain's contract, variants against each case's input, comparison rules against
    the domain schema, and I-JSON (finite numbers, safe integers, no lone
    surrogates, no duplicate keys).
    """
    with _gc.paused():
        try:
            loaded = _load_quick(path)
        except _Unvouched:  # the json module's way, whose hooks see every number
            loaded = _load_parsed_by_json(path)
        return loaded if loaded is not None else _load_checked(path)


def _load_quick(path: Path) -> VectorFile | None:
    """``_load_plain`` of the file read by orjson from its bytes (no text made, no number
    hooks); ``_Unvouched`` where that reading cannot be vouched for."""
    try:
        data = path.read_bytes()
        document = orjson.loads(data)
    except (OSError, orjson.JSONDecodeError):  # unreadable, not JSON, NaN, a lone surrogate
        raise _Unvouched from None
    structure = _outside_strings(data)
    # A large file's bytes are not held while its cases are made: the checked path, when
    # it runs, reads the file again.
    del data
    if _nested_past_limit(structure):
        raise _Unvouched  # reported by the checked path, which says where
    members = structure.count(b":")
    del structure
    return _load_plain(path, document, None, members)


def _load_parsed_by_json(path: Path) -> VectorFile | None:
    """``_load_plain`` of the file read by the json module, whose number hooks say which
    numbers need a closer look (None: ``_load_checked`` decides)."""
    data, text, members = _read(path)
    suspicions = _Suspicions()
    try:
        document = json.loads(
            text,
            parse_constant=_reject_constant,
            parse_int=suspicions.integer,
            parse_float=suspicions.number,
        )
    except ValueError:  # not JSON, or not vector JSON: the checked path says where
        return None
    # A large file's bytes and text (4 bytes a character, with one emoji) are not held
    # while its cases are made: the checked path, when it runs, reads the file again.
    plain = not suspicions.any and not _surrogate_escaped(data)
    del data, text
    return _load_plain(path, document, suspicions, members) if plain else None


class _Unvouched(Exception):
    """orjson's reading of a file cannot be vouched for: bytes it does not read (not
    UTF-8 or not JSON, NaN, a number beyond a double, a lone surrogate), nesting past
    MAX_DEPTH, an integer beyond I-JSON's range or a float. The json module reads the
    file again: its number hooks and checks find each of these again and, but for a
    float (Python's encoder then writes the case texts), report it as before."""


def _plain_numbers(value: Any) -> bool:
    """No float and no integer beyond ±(2^53-1) anywhere in ``value``."""
    kind = type(value)
    if kind is dict:
        return all(map(_plain_numbers, value.values()))
    if kind is list:
        return all(map(_plain_numbers, value))
    if kind is int:
        return bool(-MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER)
    return kind is not float


_ids = operator.itemgetter("id")
_sources = operator.itemgetter("source")


def _load_plain(
    path: Path, document: Any, suspicions: _Suspicions | None, members: int
) -> VectorFile | None:
    """The usual file, valid in every respect, loaded by checks that each answer for
    all of its cases at once; None whenever one of them says no, or cannot tell
    (``_load_checked`` then decides, and says where and why).

    ``document`` is the file parsed as plain JSON with nothing I-JSON would refuse:
    by the json module with no number ``suspicions`` and no lone surrogate escape, or
    by orjson (``suspicions`` None), which refuses lone surrogates, NaN and numbers
    beyond a double; its floats and integers beyond 2^53-1 raise ``_Unvouched``.
    Duplicate keys are found by counting object members (the parsed document's against
    the colons outside strings in the text, ``members``: a key given twice is one
    member fewer). The cases' members are counted on their canonical texts, made for
    the content hash anyway.
    """
    if type(document) is not dict:
        return None
    domain = document.get("domain")
    if type(domain) is not str or not _KEBAB.fullmatch(domain):
        return None
    schema = domain_schema(domain)
    tags = document.get("tags")
    if schema is None or type(tags) is not dict:
        return None
    clauses = domain_clause_ids(schema.domain)
    # The file's shape, every case's values, tags and clause ids, in one compiled pass:
    # from here on every member has its schema's type.
    if clauses is None or not file_fast_valid(schema, document, frozenset(tags), clauses):
        return None
    if next(_rule_problems(path, document, schema), None) is not None:
        return None
    raw_cases: list[dict[str, Any]] = document["cases"]
    if suspicions is None and not all(
        _plain_numbers(value) for key, value in document.items() if key != "cases"
    ):
        raise _Unvouched  # a case's other members are strings (the schema said)
    if len(set(map(_ids, raw_cases))) != len(raw_cases):
        return None
    if domain in confinement.CONFINED_DOMAINS and any(
        next(confinement.problems(domain, raw["input"]), None) for raw in raw_cases
    ):
        return None
    variants = document.get("variants", ())
    if variants:
        for index, raw in enumerate(raw_cases):
            base = f"/cases/{index}"
            if next(_variant_problems(path, raw["id"], base, raw["input"], variants), None):
                return None
    cases, values_members, texted = (
        _cases(domain, path, raw_cases, floats=suspicions.floats)
        if suspicions is not None
        else _cases(domain, path, raw_cases, floats=False, parsed_by_orjson=True)
    )
    # Every object of the document: the file's own (and its tags, rules, variants), each
    # case and its source, and the objects in each case's input and expected value (a
    # canonical text has two members of its own: input, and expected or error).
    parsed = (
        len(document)
        + sum(_members(value) for key, value in document.items() if key != "cases")
        + sum(map(len, raw_cases))
        + sum(map(len, map(_sources, raw_cases)))
        + values_members
    )
    if texted != len(cases) or parsed != members:
        return None  # a duplicate key (or a value with no JSON text)
    return VectorFile(
        path=path,
        domain=domain,
        version=document["version"],
        description=document["description"],
        comparison=tuple(document.get("comparison", ())),
        variants=tuple(variants),
        cases=cases,
    )


def _members(value: Any) -> int:
    """Members of the objects in a parsed JSON value, at any depth."""
    if type(value) is dict:
        return len(value) + sum(map(_members, value.values()))
    if type(value) is list:
        return sum(map(_members, value))
    return 0


def _load_checked(path: Path) -> VectorFile:
    """``load_vector_file`` checking everything case by case, naming every problem."""
    data, text, _ = _read(path)
    document, suspect = _parse_checked(path, data, text)
    del data, text
    problems: list[Problem] = []
    for where, message in _not_i_json(document, "") if suspect else ():
        parts = parse_pointer(where)
        problems.append(Problem(path, _case_id_at(document, parts), where, message))
    domain = document.get("domain") if isinstance(document, dict) else None
    schema = domain_schema(domain) if isinstance(domain, str) and _KEBAB.fullmatch(domain) else None
    # The usual file: its shape and every case's values valid in one compiled pass.
    values_valid = schema is not None and file_fast_valid(schema, document)
    for err in sorted(
        () if values_valid else vector_file_validator().iter_errors(document),
        key=lambda e: [str(p) for p in e.absolute_path],
    ):
        at = list(err.absolute_path)
        problems.append(Problem(path, _case_id_at(document, at), pointer(at), _humane(err)))
    if not isinstance(document, dict):
        raise VectorFileError(problems)

    clauses = None
    if isinstance(domain, str) and schema is None and _KEBAB.fullmatch(domain):
        problems.append(
            Problem(
                path, None, "/domain", f"unknown domain {domain!r}: no schemas/{domain}.schema.json"
            )
        )
    if schema is not None:
        clauses = domain_clause_ids(schema.domain)
        if clauses is None:
            problems.append(
                Problem(
                    path,
                    None,
                    "/domain",
                    f"domain {domain!r} has no contract docs/domains/{domain}.md "
                    f"(or DIR/{domain}.md beside a --schemas DIR) to define its clauses",
                )
            )
        problems.extend(_rule_problems(path, document, schema))

    variants = document.get("variants")
    variants = variants if isinstance(variants, list) else []
    tags = document.get("tags")
    raw_cases = document.get("cases")
    seen: dict[str, int] = {}
    for index, raw in enumerate(raw_cases if isinstance(raw_cases, list) else []):
        if not isinstance(raw, dict):
            continue
        case_id = raw.get("id")
        if isinstance(case_id, str):
            if case_id in seen:
                problems.append(
                    Problem(
                        path,
                        case_id,
                        f"/cases/{index}/id",
                        f"duplicate id (first used by /cases/{seen[case_id]})",
                    )
                )
            seen.setdefault(case_id, index)
        plain = (
            _known_tags_and_clauses(raw, clauses, tags)
            if values_valid
            else _plainly_valid_case(raw, schema, clauses, tags)
        )
        if variants or not plain:
            problems.extend(_case_problems(path, raw, index, schema, clauses, variants, tags))
        elif schema is not None and schema.domain in confinement.CONFINED_DOMAINS:
            problems.extend(_confinement_problems(path, raw, index, schema.domain))
    if problems:
        raise VectorFileError(problems)

    assert isinstance(domain, str)  # the vector-file schema passed
    cases, _, _ = _cases(domain, path, document["cases"], floats=True)
    return VectorFile(
        path=path,
        domain=domain,
        version=document["version"],
        description=document["description"],
        comparison=tuple(document.get("comparison", ())),
        variants=tuple(document.get("variants", ())),
        cases=cases,
    )


def _cases(
    domain: str,
    path: Path,
    raw_cases: list[dict[str, Any]],
    floats: bool,
    parsed_by_orjson: bool = False,
) -> tuple[tuple[Case, ...], int, int]:
    """The file's cases, with what every run asks of each made here at once (the request's
    input text and size, the expected output's text, the content hash): set in the
    instance dict, where ``Case``'s cached properties would put them. Also, for
    ``_load_plain``'s count of object members, the members of the objects in the cases'
    inputs and expected values (counted on their canonical texts, what their hashes are
    of) and how many cases have those texts.

    The texts are ``json.dumps``'s (compact, ``ensure_ascii=False``; sorted keys for the
    canonical one). Without ``floats`` in the file they are made by orjson, whose text
    is then the same byte for byte (tests/test_vector_files.py checks) and about five
    times quicker; Python's own encoder makes them where a value has a float (orjson
    writes exponents its own way: 0.00001, not 1e-05) or orjson refuses one.

    Values ``parsed_by_orjson`` were not seen by number hooks: ``_Unvouched`` is raised
    for an integer beyond ±(2^53-1) (orjson's strict integers refuse to write it) and
    for anything in a canonical text that may be a float (``_FLOAT_SHAPE``).
    """
    dumps = orjson.dumps
    sort_keys = orjson.OPT_SORT_KEYS | (orjson.OPT_STRICT_INTEGER if parsed_by_orjson else 0)
    count = _float_free_members if parsed_by_orjson else _members_of_texts
    sha256 = hashlib.sha256
    cases: list[Case] = []
    # The canonical texts' members are counted a few hundred KiB at a time: held to the
    # end, they were 10% of a file's peak memory. (orjson's bytes objects hold a 4 KiB
    # buffer each: copied out at once.)
    canonicals = bytearray()
    members = untexted = 0
    append = cases.append
    new, set_dict = Case.__new__, object.__setattr__
    for raw in raw_cases:
        case_input = raw["input"]
        expected = raw.get("expected")
        error = raw.get("error")
        if floats:
            texts = _python_texts(case_input, expected, error)
        else:
            try:
                input_json = dumps(case_input).decode()
                if error is None:
                    expected_json = dumps(expected).decode()
                    canonical = dumps({"expected": expected, "input": case_input}, option=sort_keys)
                else:
                    expected_json = None
                    canonical = dumps({"error": error, "input": case_input}, option=sort_keys)
                texts = _BY_ORJSON
            except TypeError:  # e.g. a lone surrogate: Python's encoder says how
                if parsed_by_orjson:  # none there: an integer beyond 2^53-1
                    raise _Unvouched from None
                texts = _python_texts(case_input, expected, error)
        case = new(Case)
        if texts is not _BY_ORJSON:
            if texts is None:  # not JSON: left to the properties (and adapters)
                untexted += 1
                set_dict(
                    case, "__dict__", _case_fields(domain, path, raw, case_input, expected, error)
                )
                append(case)
                continue
            input_json, expected_json, canonical = texts
        # The fields as Case.__init__ sets them (_case_fields), then what its properties
        # would compute: spelled out in one literal so the dict is made at its final size
        # (extending _case_fields' dict resized it on every case of a 50k file).
        set_dict(
            case,
            "__dict__",
            {
                "domain": domain,
                "id": raw["id"],
                "description": raw["description"],
                "tags": tuple(raw["tags"]),
                "source": raw["source"],
                "clauses": tuple(raw["clauses"]),
                "input": case_input,
                "expected": expected,
                "error": error,
                "path": path,
                "input_json": input_json,
                "input_size": len(input_json),
                "expected_json": expected_json,
                "_content_hash": sha256(canonical).hexdigest(),
            },
        )
        append(case)
        canonicals += canonical
        if len(canonicals) > 1 << 18:
            members += count(bytes(canonicals))
            canonicals.clear()
    texted = len(cases) - untexted
    members += count(bytes(canonicals))
    return tuple(cases), members - 2 * texted, texted


_BY_ORJSON: tuple[str, str | None, bytes] = ("", None, b"")  # _cases: the texts made inline


def _members_of_texts(texts: bytes) -> int:
    """Object members in (concatenated) compact JSON texts: their colons outside strings."""
    return _outside_strings(texts, _NOT_COLON_OR_QUOTE).count(b":")


# In a compact JSON text a number follows a colon, a comma or an opening bracket, and
# orjson writes every float with a fraction or an exponent: with digits and minus signs
# made 0, commas and brackets colons and E e, a float is a colon, 0s, then "." or "e".
# (Inside strings the shape only means "read the file the json module's way".)
_NUMBER_SHAPES = bytes.maketrans(b"0123456789-,[E", b"00000000000::e")
_FLOAT_SHAPE = re.compile(rb":0+[.e]")


def _float_free_members(texts: bytes) -> int:
    """``_members_of_texts`` of orjson's texts of values it parsed; ``_Unvouched`` where
    they may hold a float."""
    if _FLOAT_SHAPE.search(texts.translate(_NUMBER_SHAPES)) is not None:
        raise _Unvouched
    return _members_of_texts(texts)


def _case_fields(
    domain: str, path: Path, raw: dict[str, Any], case_input: Any, expected: Any, error: Any
) -> dict[str, Any]:
    """A case's fields as ``Case.__init__`` sets them (nothing computed ahead)."""
    return {
        "domain": domain,
        "id": raw["id"],
        "description": raw["description"],
        "tags": tuple(raw["tags"]),
        "source": raw["source"],
        "clauses": tuple(raw["clauses"]),
        "input": case_input,
        "expected": expected,
        "error": error,
        "path": path,
    }


def _python_texts(
    case_input: Any, expected: Any, error: str | None
) -> tuple[str, str | None, bytes] | None:
    """A case's input text, expected text and canonical text (UTF-8), by Python's
    encoder; None when its input has no JSON text."""
    join = "".join
    try:
        input_json = join(compact_chunks(case_input, 0))
    except (TypeError, ValueError):
        return None
    if error is None:
        try:
            expected_json = join(compact_chunks(expected, 0))
        except (TypeError, ValueError):  # e.g. NaN: hashed all the same, never sent
            expected_json = None
        # No comma: no object of two members or more, so sorting keys changes nothing.
        canonical_expected = (
            expected_json
            if expected_json is not None and "," not in expected_json
            else join(canonical_chunks(expected, 0))
        )
        head = '{"expected":'
    else:
        expected_json = None
        canonical_expected = join(canonical_chunks(error, 0))
        head = '{"error":'
    canonical_input = input_json if "," not in input_json else join(canonical_chunks(case_input, 0))
    # = json.dumps({"input": ..., "expected" | "error": ...}, sort_keys=True,
    # ensure_ascii=False, separators=(",", ":")), the keys' order written out.
    canonical = f'{head}{canonical_expected},"input":{canonical_input}}}'
    return input_json, expected_json, canonical.encode()


def _vector_files_under(folder: Path, problems: list[Problem]) -> list[Path]:
    """Every *.json under ``folder``; a folder that cannot be listed is a problem, never skipped."""

    def unlistable(error: OSError) -> None:
        where = Path(error.filename) if error.filename else folder
        problems.append(
            Problem(where, None, "", f"cannot list this folder: {error.strerror or error}")
        )

    found: list[Path] = []
    for root, dirs, names in os.walk(folder, onerror=unlistable):
        # Unreviewed generated cases load only when their folder is named itself.
        dirs[:] = [d for d in dirs if d != CANDIDATES_DIR]
        found.extend(Path(root) / name for name in names if name.endswith(".json"))
    return sorted(found)


def find_vector_files(sources: Iterable[Path]) -> tuple[list[Path], list[Problem]]:
    """Every *.json file named or found (recursively) under the given files and folders,
    and a problem for each source that cannot be used (missing, a symlink loop, unreadable).

    A ``candidates`` folder (``hanzo-conformance generate``'s output) inside a given
    folder is skipped; pass the candidates folder itself to load it.
    """
    found: dict[Path, None] = {}
    problems: list[Problem] = []
    for source in sources:
        try:
            resolved = source.resolve(strict=True)
        except RuntimeError:  # Python < 3.13 reports a symlink loop this way
            problems.append(
                Problem(source, None, "", "symlink loop: this path never reaches a file")
            )
            continue
        except OSError as e:
            reason = (
                "symlink loop: this path never reaches a file"
                if e.errno == errno.ELOOP
                else (
                    "no such file or folder"
                    if e.errno == errno.ENOENT
                    else f"cannot use: {e.strerror or e}"
                )
            )
            problems.append(Problem(source, None, "", reason))
            continue
        if resolved.is_dir():
            for p in _vector_files_under(resolved, problems):
                found.setdefault(p, None)
        elif (refused := not_regular(resolved)) is not None:
            problems.append(Problem(source, None, "", refused))
        else:
            found.setdefault(resolved, None)
    return list(found), problems


def vector_paths(sources: Iterable[Path]) -> list[Path]:
    """Every vector file under the sources; VectorFileError if a source cannot be used."""
    paths, problems = find_vector_files(sources)
    if problems:
        raise VectorFileError(problems)
    return paths


def load_vectors(sources: Iterable[Path]) -> list[VectorFile]:
    """Load every vector file; problems from all files are reported together.

    A case id must be unique within its domain across all files loaded, since
    results are keyed by (domain, case).
    """
    files: list[VectorFile] = []
    paths, problems = find_vector_files(sources)
    for path in paths:
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
