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

from runners.exceptions import VectorFileError
from runners.vectors.load import (
    _ESCAPE,
    _FLOAT_SHAPE,
    _NUMBER_SHAPES,
    MAX_DEPTH,
    VECTORS_DIR,
    VectorFile,
    _escaped_quote,
    _load_checked,
    _load_plain,
    _load_quick,
    _members,
    _outside_strings,
    _plain_numbers,
    _read,
    _surrogate_escaped,
    _Suspicions,
    _Unvouched,
    load_vector_file,
    load_vectors,
)
from runners.vectors.schemas import check_schema


def plain(path: Path) -> Any:
    """What the quick path makes of a file (None: it leaves it to the checked path)."""
    data, text, members = _read(path)
    suspicions = _Suspicions()
    document = json.loads(text, parse_int=suspicions.integer, parse_float=suspicions.number)
    if suspicions.any or _surrogate_escaped(data):
        return None
    return _load_plain(path, document, suspicions, members)


def quick(path: Path) -> Any:
    """What the orjson reading makes of a file: a VectorFile, None (left to the checked
    path) or UNVOUCHED (left to the json module's reading)."""
    try:
        return _load_quick(path)
    except _Unvouched:
        return UNVOUCHED


UNVOUCHED = "unvouched"


def problems_of(path: Path) -> list[tuple[str | None, str, str]]:
    with pytest.raises(VectorFileError) as info:
        load_vector_file(path)
    return [(p.case_id, p.pointer, p.message) for p in info.value.problems]


def test_the_quick_path_takes_a_valid_file_and_makes_what_the_checked_path_makes(
    write_vectors,
):
    path = write_vectors(vector_document([hello_case(), hello_case(id="again")]))
    checked = _load_checked(path)
    for loaded in (plain(path), quick(path)):
        assert isinstance(loaded, VectorFile)
        assert loaded == checked
        assert [c.__dict__ for c in loaded.cases] == [c.__dict__ for c in checked.cases]


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
    assert quick(path) is None
    key = where.rsplit("/", 1)[1]
    assert (case_id, f"/cases/0{where}", f"duplicate object key {key!r}") in problems_of(path)


def test_a_duplicate_key_at_the_top_or_in_the_tags_is_left_to_the_checked_path(write_vectors):
    text = json.dumps(vector_document([hello_case()]))
    path = write_vectors(text.replace('"tags": {', '"tags": {"basic": "again", ', 1))
    assert plain(path) is None
    assert quick(path) is None
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
    assert quick(path) in (None, UNVOUCHED)
    problems = problems_of(path)
    assert any(case == "hello" and message in text for case, _, text in problems), problems


def test_a_case_id_used_twice_in_a_file_is_left_to_the_checked_path(write_vectors):
    path = write_vectors(vector_document([hello_case(), hello_case(description="other")]))
    assert plain(path) is None
    assert quick(path) is None
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
    assert quick(path) == UNVOUCHED  # orjson would write 0.00001
    by_json = plain(path)
    assert by_json is not None
    assert by_json == load_vector_file(path)
    (loaded,) = load_vector_file(path).cases
    assert loaded.__dict__ == by_json.cases[0].__dict__
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
        for loaded in (plain(vf.path), quick(vf.path)):
            if isinstance(loaded, VectorFile):  # else floats, big integers: another way
                assert [c.__dict__ for c in loaded.cases] == [c.__dict__ for c in vf.cases]


@pytest.mark.parametrize(
    "schema",
    [{"type": 5}, {"minLength": -1}, {"properties": []}, {"$defs": 3}, {"required": "x"}],
)
def test_an_invalid_schema_is_refused_by_the_quick_meta_check_too(schema):
    from jsonschema.exceptions import SchemaError

    with pytest.raises(SchemaError):
        check_schema(schema)


def _retry(value: Any) -> dict[str, Any]:
    return {"expected": {"frames": [{"event": None, "data": "", "id": None, "retry": value}]}}


def _config_merge_file(write_vectors: Any, value: Any) -> Path:
    """A config-merge file of one case (from its binary64 case) whose expected
    oauth_credentials, which take any value, are ``{"m": value}``."""
    document = json.loads((VECTORS_DIR / "config-merge.json").read_text(encoding="utf-8"))
    (case,) = [c for c in document["cases"] if c["id"] == "oauth-numbers-are-binary64"]
    case["input"]["files"]["user"] = None
    case["expected"]["config"]["oauth_credentials"] = {"m": value}
    document["cases"] = [case]
    return write_vectors(document, name="config-merge.json")


@pytest.mark.parametrize(
    "value",
    [
        2**53,  # orjson reads an int, and writes it only without its strict integers
        -(2**53),
        2**64,  # orjson reads a float
        -(2**63) - 1,
        10**400,  # orjson does not read it
        [[{"n": 2**60}]],
    ],
)
def test_an_integer_beyond_i_json_goes_the_json_module_s_way(write_vectors, value):
    path = _config_merge_file(write_vectors, value)
    assert quick(path) == UNVOUCHED
    problems = problems_of(path)
    assert len(problems) == 1, problems
    ((case, where, message),) = problems
    assert case == "oauth-numbers-are-binary64"
    assert where.startswith("/cases/0/expected/config/oauth_credentials/m")
    assert message == "integer outside the I-JSON range ±(2^53-1)"


@pytest.mark.parametrize("value", [2**53 - 1, -(2**53 - 1), [[{"n": 2**53 - 1}]]])
def test_the_largest_i_json_integers_take_the_quick_way(write_vectors, value):
    path = _config_merge_file(write_vectors, value)
    loaded = quick(path)
    assert isinstance(loaded, VectorFile)
    assert [c.__dict__ for c in loaded.cases] == [c.__dict__ for c in _load_checked(path).cases]


@pytest.mark.parametrize(
    ("old", "new", "where", "message"),
    [
        ('"version": 1', '"version": 9007199254740992', "/version", "I-JSON range"),
        ('"retry": null', '"retry": 1e400', "/cases/0/expected/frames/0/retry", "too large"),
        ('"retry": null', '"retry": NaN', "", "not valid vector JSON: NaN is not JSON"),
        ('"One data', '"\\ud83d One data', "/cases/0/description", "lone surrogate"),
        ('"One data', '"\\udc00 One data', "/cases/0/description", "lone surrogate"),
    ],
)
def test_text_orjson_cannot_vouch_for_is_reported_as_before(
    write_vectors, old, new, where, message
):
    text = json.dumps(vector_document([hello_case()]), indent=1)
    assert old in text
    path = write_vectors(text.replace(old, new, 1))
    assert quick(path) == UNVOUCHED
    problems = problems_of(path)
    assert any(at == where and message in said for _, at, said in problems), problems


def test_nesting_past_the_limit_is_reported_as_before(write_vectors):
    deep = "[" * MAX_DEPTH + "]" * MAX_DEPTH  # level 5 in the file: 132 levels
    text = json.dumps(vector_document([hello_case()]), indent=1)
    path = write_vectors(text.replace('"retry": null', f'"retry": {deep}', 1))
    assert quick(path) == UNVOUCHED
    ((case, where, message),) = problems_of(path)
    assert (case, where) == (None, "")
    assert message.startswith(f"arrays/objects nested more than {MAX_DEPTH} levels deep")


@pytest.mark.parametrize(
    "change",
    [
        _retry(1.0),  # an integer to the schema, a float to Python
        {"input": {"chunks": ["data: 12:3.5e7 [1,2e3]\n\n"]}},  # a float's shape in a string
    ],
)
def test_files_the_orjson_reading_leaves_aside_load_all_the_same(write_vectors, change):
    path = write_vectors(vector_document([hello_case(id="first"), hello_case(**change)]))
    checked = _load_checked(path)
    assert [c.__dict__ for c in load_vector_file(path).cases] == [c.__dict__ for c in checked.cases]
    assert quick(path) == UNVOUCHED


def test_orjson_reads_only_what_the_json_module_reads_and_alike() -> None:
    """Whatever orjson accepts (what the quick path parses with), the json module (what
    the checked path parses with) accepts too, as the same value but for integers beyond
    64 bits (a float to orjson, which sends the file the json module's way); where they
    differ otherwise (NaN, 1e400, lone surrogates), orjson refuses."""
    import orjson

    texts = [
        b"[1]\x0c",
        b"[1,]",
        b"{,}",
        b"[01]",
        b"[-]",
        b"[1.]",
        b"[.5]",
        b"[1e]",
        b"[+1]",
        b"[0x10]",
        b"[NaN]",
        b"[-Infinity]",
        b"[1e400]",
        b'["\\ud800"]',
        b'["\\udc00"]',
        b'["\\ud800\\u0041"]',
        b'["\\ud83d\\ude00"]',
        b'["\\x"]',
        b'["\\u12"]',
        b'["\\/\\b\\f\\n\\r\\t\\u0000"]',
        b'["a\x01"]',
        b'["\x7f"]',
        b"\xef\xbb\xbf[1]",
        b'["\xed\xa0\x80"]',
        b'["\xc0\xaf"]',
        b'["\xff"]',
        b"[1] x",
        b"",
        b" ",
        b"[-0]",
        b"[-0.0]",
        b"[1E+2]",
        b"[18446744073709551615]",
        b"[18446744073709551616]",
        b"[-9223372036854775809]",
        b'{"a":1,"a":2}',
        b"[true,false,null]",
        b"[tru]",
        b"\t\n\r [ ] \r\n",
        "\u00a0[]".encode(),
        b'"x"',
        b"1",
    ]
    for data in texts:
        try:
            by_orjson = orjson.loads(data)
        except orjson.JSONDecodeError:
            continue
        by_json = json.loads(data.decode("utf-8"))
        assert by_json == by_orjson or not _plain_numbers(by_orjson), data


def test_every_float_orjson_writes_has_the_shape_of_one() -> None:
    """The quick path finds floats in orjson's canonical texts by their shape: a colon,
    comma or bracket, digits, then a fraction or an exponent."""
    import orjson

    rng = random.Random(5)
    floats = [0.0, -0.0, 1.0, 1e-5, 1e-7, 5e-324, 1.7976931348623157e308, 1e16, 2.0**64]
    floats += [rng.uniform(-1, 1) * 10 ** rng.randint(-330, 308) for _ in range(20000)]
    for number in floats:
        for wrapped in ({"k": number}, [number], [1, number]):
            text = orjson.dumps(wrapped)
            assert _FLOAT_SHAPE.search(text.translate(_NUMBER_SHAPES)), text
    # and no integer has it
    for number in [0, -1, 2**53 - 1, -(2**53 - 1), *range(-50, 50)]:
        text = orjson.dumps({"k": [number, number]})
        assert not _FLOAT_SHAPE.search(text.translate(_NUMBER_SHAPES)), text


def test_a_file_declaring_no_tags_takes_the_quick_path_and_its_tags_are_still_checked(
    write_vectors,
):
    path = write_vectors(vector_document([hello_case(tags=[])], tags={}))
    assert isinstance(quick(path), VectorFile)
    path = write_vectors(vector_document([hello_case(tags=["basic"])], tags={}))
    assert quick(path) is None
    assert problems_of(path) == [
        ("hello", "/cases/0/tags/0", "tag 'basic' is not declared in /tags")
    ]


def test_an_escaped_quote_is_always_found_before_the_structure_scan() -> None:
    """``_escaped_quote`` looks at escapes one by one (up to one a KiB), then by regex:
    never a no where a quote is escaped (``_outside_strings`` would then pair quotes
    wrongly), and exact while the escapes are few."""
    rng = random.Random(11)
    for _ in range(600):
        size = rng.choice([10, 900, 3000, 9000])
        escapes = rng.choice([0, 1, 3, 20, 400])
        data = bytearray(rng.choice(b'ab"{:') for _ in range(size))
        for _ in range(escapes):
            data[rng.randrange(size)] = ord("\\")
        text = bytes(data)
        truly = any(m.group()[1:] == b'"' for m in _ESCAPE.finditer(text))
        found = _escaped_quote(text)
        assert found or not truly, text
        if text.count(b"\\") <= len(text) >> 10:
            assert found == truly, text
    padding = b"x" * 4096
    assert not _escaped_quote(padding + b'"\\\\"' + padding)  # an escaped backslash
    assert _escaped_quote(padding + b'"\\\\\\""' + padding)  # and then a quote
