"""The loader's quick path (``_load_plain``) against the checked one: what it takes as
valid is valid, and every file it must not take goes to the checked path, which names
the file, the case id and the JSON pointer."""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path
from typing import Any

import pytest
from conftest import hello_case, vector_document

from runners._schemas import check_schema
from runners._vectors import (
    VECTORS_DIR,
    _load_plain,
    _members,
    _outside_strings,
    _read,
    _surrogate_escaped,
    _Suspicions,
    load_vector_file,
    load_vectors,
)
from runners.exceptions import VectorFileError


def plain(path: Path) -> Any:
    """What the quick path makes of a file (None: it leaves it to the checked path)."""
    data, text, members = _read(path)
    suspicions = _Suspicions()
    document = json.loads(text, parse_int=suspicions.integer, parse_float=suspicions.number)
    if suspicions.any or _surrogate_escaped(data):
        return None
    return _load_plain(path, document, suspicions, members)


def problems_of(path: Path) -> list[tuple[str | None, str, str]]:
    with pytest.raises(VectorFileError) as info:
        load_vector_file(path)
    return [(p.case_id, p.pointer, p.message) for p in info.value.problems]


def test_the_quick_path_takes_a_valid_file_and_makes_what_the_checked_path_makes(
    write_vectors,
):
    path = write_vectors(vector_document([hello_case(), hello_case(id="again")]))
    quick = plain(path)
    assert quick is not None
    assert quick == load_vector_file(path)
    assert [c.__dict__ for c in quick.cases] == [c.__dict__ for c in load_vector_file(path).cases]


@pytest.mark.parametrize(
    ("old", "new", "case_id", "where"),
    [
        # A key given twice in an input: plain JSON keeps the last, the schema accepts it.
        ('"input": {"chunks":', '"input": {"chunks": [], "chunks":', "hello", "/input/chunks"),
        # ... in the expected value, with colons, quotes and brackets inside the strings.
        (
            '"retry": null}',
            '"retry": null, "retry": null, "x:\\"{[": "\\\\\\":"}',
            "hello",
            "/expected/frames/0/retry",
        ),
        # ... in a case itself and in its source.
        ('"id": "hello",', '"id": "hello", "id": "hello",', "hello", "/id"),
        ('"kind": "derived"', '"kind": "derived", "kind": "derived"', "hello", "/source/kind"),
    ],
)
def test_a_duplicate_key_the_plain_parse_would_merge_is_left_to_the_checked_path(
    write_vectors, old, new, case_id, where
):
    text = json.dumps(vector_document([hello_case()]))
    assert old in text
    path = write_vectors(text.replace(old, new, 1))
    assert json.loads(path.read_text())["cases"][0]["id"] == "hello"  # valid JSON all the same
    assert plain(path) is None
    key = where.rsplit("/", 1)[1]
    assert (case_id, f"/cases/0{where}", f"duplicate object key {key!r}") in problems_of(path)


def test_a_duplicate_key_at_the_top_or_in_the_tags_is_left_to_the_checked_path(write_vectors):
    text = json.dumps(vector_document([hello_case()]))
    path = write_vectors(text.replace('"tags": {', '"tags": {"basic": "again", ', 1))
    assert plain(path) is None
    assert (None, "/tags/basic", "duplicate object key 'basic'") in problems_of(path)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            {"expected": {"frames": [{"event": None, "data": "", "id": None, "retry": 2**53}]}},
            "I-JSON",
        ),
        ({"input": {"chunks": ["data: \ud800\n\n"]}}, "lone surrogate"),
        ({"tags": ["undeclared"]}, "not declared"),
        ({"clauses": ["SSE-999"]}, "not defined"),
        ({"input": {"chunks": "data: hi\n\n"}}, "is not of type 'array'"),
    ],
)
def test_what_the_quick_path_refuses_the_checked_path_names(write_vectors, change, message):
    path = write_vectors(vector_document([hello_case(id="first"), hello_case(**change)]))
    assert plain(path) is None
    problems = problems_of(path)
    assert any(case == "hello" and message in text for case, _, text in problems), problems


def test_a_case_id_used_twice_in_a_file_is_left_to_the_checked_path(write_vectors):
    path = write_vectors(vector_document([hello_case(), hello_case(description="other")]))
    assert plain(path) is None
    assert [(c, w) for c, w, _ in problems_of(path)] == [("hello", "/cases/1/id")]


def test_the_member_count_agrees_with_the_parsed_document_on_random_documents() -> None:
    """Colons outside strings (escapes, quotes, colons and brackets inside strings, keys
    and values) against the members of the parsed document."""
    rng = random.Random(13)
    pieces = [":", '"', "\\", "[", "{", "}", "x", "é", "😀", '":', "\\u0022"]

    def text() -> str:
        return "".join(rng.choice(pieces) for _ in range(rng.randrange(5)))

    def value(level: int) -> Any:
        if level <= 0 or rng.random() < 0.3:
            return rng.choice([text(), 1, None, True, text()])
        if rng.random() < 0.5:
            return [value(level - 1) for _ in range(rng.randrange(4))]
        return {text(): value(level - 1) for _ in range(rng.randrange(4))}

    for _ in range(500):
        document = value(rng.randrange(6))
        for indent in (None, 1):
            data = json.dumps(document, indent=indent, ensure_ascii=bool(rng.randrange(2)))
            counted = _outside_strings(data.encode()).count(b":")
            assert counted == _members(document), data


def test_orjson_makes_json_dumps_texts_byte_for_byte() -> None:
    """The texts ``_cases`` makes by orjson in a file without floats are json.dumps's:
    escapes of every control character, non-ASCII kept, sorted keys by code point
    (astral after the rest of the BMP), integers to the I-JSON limit."""
    import orjson

    chars = [chr(i) for i in range(0x250)] + [
        "\u2028",
        "\u2029",
        "\ufeff",
        "\uffff",
        "\U00010000",
        "\U0001f600",
        "\U0010ffff",
        "\ue000",
    ]
    rng = random.Random(7)

    def value(level: int) -> Any:
        if level <= 0 or rng.random() < 0.3:
            word = "".join(rng.choice(chars) for _ in range(rng.randrange(6)))
            return rng.choice([None, True, False, 0, -1, 2**53 - 1, -(2**53 - 1), word])
        if rng.random() < 0.5:
            return [value(level - 1) for _ in range(rng.randrange(4))]
        keys = ("".join(rng.choice(chars) for _ in range(rng.randrange(3))) for _ in range(4))
        return {k: value(level - 1) for k in keys}

    for _ in range(3000):
        v = value(4)
        for sort_keys, option in ((False, None), (True, orjson.OPT_SORT_KEYS)):
            expected = json.dumps(v, ensure_ascii=False, separators=(",", ":"), sort_keys=sort_keys)
            assert orjson.dumps(v, option=option).decode() == expected


def test_a_file_with_floats_hashes_by_python_s_encoder(write_vectors):
    """orjson writes 1e-05 as 0.00001: a file with a float keeps json.dumps's texts
    (config-merge's binary64 case: subnormals, 1.2345678901234568e+29 and the like)."""
    document = json.loads((VECTORS_DIR / "config-merge.json").read_text(encoding="utf-8"))
    (case,) = [c for c in document["cases"] if c["id"] == "oauth-numbers-are-binary64"]
    case["expected"]["config"]["oauth_credentials"]["m"] = 1e-05
    document["cases"] = [case]
    path = write_vectors(document, name="config-merge.json")
    quick = plain(path)
    assert quick is not None
    (loaded,) = quick.cases
    canonical = json.dumps(
        {"input": case["input"], "expected": case["expected"]},
        sort_keys=True,
        ensure_ascii=False,
        separators=(",", ":"),
    )
    assert "e+" in canonical and '"m":1e-05' in canonical
    assert loaded.content_hash() == hashlib.sha256(canonical.encode()).hexdigest()
    compact = json.dumps(case["expected"], ensure_ascii=False, separators=(",", ":"))
    assert loaded.expected_json == compact


def test_every_project_vector_file_loads_alike_both_ways() -> None:
    for vf in load_vectors([VECTORS_DIR]):
        quick = plain(vf.path)
        if quick is not None:  # files with floats or big integers go the checked way
            assert [c.__dict__ for c in quick.cases] == [c.__dict__ for c in vf.cases]


@pytest.mark.parametrize(
    "schema",
    [{"type": 5}, {"minLength": -1}, {"properties": []}, {"$defs": 3}, {"required": "x"}],
)
def test_an_invalid_schema_is_refused_by_the_quick_meta_check_too(schema):
    from jsonschema.exceptions import SchemaError

    with pytest.raises(SchemaError):
        check_schema(schema)
