"""A malformed vector file names the file, the case id and the JSON pointer of every problem."""

from __future__ import annotations

import pytest
from conftest import hello_case, vector_document

from runners._vectors import load_vector_file, load_vectors
from runners.exceptions import VectorFileError


def problems_of(path):
    with pytest.raises(VectorFileError) as info:
        load_vector_file(path)
    return info.value.problems


def test_a_valid_file_loads(write_vectors):
    vf = load_vector_file(write_vectors(vector_document([hello_case()])))
    assert vf.domain == "sse-frames"
    assert [c.id for c in vf.cases] == ["hello"]
    assert vf.cases[0].expected["frames"][0]["data"] == "hi"


def test_bad_json_names_line_and_column(write_vectors):
    path = write_vectors('{"domain": "sse-frames",\n  "cases": [}\n')
    (problem,) = problems_of(path)
    assert problem.path == path
    assert "not valid JSON" in problem.message
    assert "line 2" in problem.message


def test_duplicate_json_keys_are_rejected(write_vectors):
    path = write_vectors('{"domain": "sse-frames", "domain": "oauth-pkce"}')
    (problem,) = problems_of(path)
    assert "duplicate object key 'domain'" in problem.message


def test_duplicate_case_ids(write_vectors):
    path = write_vectors(vector_document([hello_case(), hello_case()]))
    (problem,) = problems_of(path)
    assert (problem.case_id, problem.pointer) == ("hello", "/cases/1/id")
    assert "duplicate id" in problem.message


def test_both_expected_and_error(write_vectors):
    path = write_vectors(vector_document([hello_case(error="bad_input")]))
    problems = problems_of(path)
    assert [(p.case_id, p.pointer) for p in problems] == [("hello", "/cases/0")]
    assert problems[0].message == (
        "a case needs exactly one of 'expected' or 'error'; it has 'expected' and 'error'"
    )


def test_neither_expected_nor_error(write_vectors):
    case = hello_case()
    del case["expected"]
    (problem,) = problems_of(write_vectors(vector_document([case])))
    assert (problem.case_id, problem.pointer) == ("hello", "/cases/0")
    assert problem.message.endswith("it has neither")


def test_wrong_type_in_input_points_into_the_case(write_vectors):
    path = write_vectors(vector_document([hello_case(input={"chunks": ["ok", 7]})]))
    problems = problems_of(path)
    assert ("hello", "/cases/0/input/chunks/1") in [(p.case_id, p.pointer) for p in problems]
    rendered = str(VectorFileError(problems))
    assert (
        str(path) in rendered
        and "case 'hello'" in rendered
        and "/cases/0/input/chunks/1" in rendered
    )


def test_wrong_type_in_expected_output(write_vectors):
    bad = {"frames": [{"event": None, "data": 5, "id": None, "retry": None}]}
    (problem,) = problems_of(write_vectors(vector_document([hello_case(expected=bad)])))
    assert problem.pointer == "/cases/0/expected/frames/0/data"


def test_missing_case_fields_and_bad_id(write_vectors):
    case = hello_case(id="Not Kebab")
    del case["source"]
    pointers = {(p.pointer, p.case_id) for p in problems_of(write_vectors(vector_document([case])))}
    assert ("/cases/0", "Not Kebab") in pointers
    assert ("/cases/0/id", "Not Kebab") in pointers


def test_unknown_domain(write_vectors):
    path = write_vectors(vector_document([hello_case()], domain="telepathy"))
    (problem,) = problems_of(path)
    assert problem.pointer == "/domain"
    assert "unknown domain 'telepathy'" in problem.message


def test_unknown_top_level_key(write_vectors):
    (problem,) = problems_of(write_vectors(vector_document([hello_case()], extra=1)))
    assert problem.pointer == "" and "'extra'" in problem.message


def test_every_problem_of_every_file_is_reported_together(write_vectors):
    write_vectors("{", name="a.json")
    write_vectors(vector_document([hello_case(), hello_case()]), name="b.json")
    with pytest.raises(VectorFileError) as info:
        load_vectors([_folder(write_vectors)])
    assert {p.path.name for p in info.value.problems} == {"a.json", "b.json"}


def test_ids_must_be_unique_across_files_of_a_domain(write_vectors):
    write_vectors(vector_document([hello_case()]), name="a.json")
    write_vectors(vector_document([hello_case()]), name="b.json")
    with pytest.raises(VectorFileError) as info:
        load_vectors([_folder(write_vectors)])
    (problem,) = info.value.problems
    assert problem.case_id == "hello" and "already used" in problem.message


def _folder(write_vectors):
    return write_vectors(vector_document([]), name="empty.json").parent


def test_content_hash_changes_with_content_only(write_vectors):
    a = load_vector_file(write_vectors(vector_document([hello_case()]))).cases[0]
    b = load_vector_file(write_vectors(vector_document([hello_case(description="other")]))).cases[0]
    c = load_vector_file(
        write_vectors(vector_document([hello_case(input={"chunks": ["x"]})]))
    ).cases[0]
    assert a.content_hash() == b.content_hash() != c.content_hash()


def test_integers_beyond_i_json_are_rejected(write_vectors):
    frame = {"event": None, "data": "", "id": None, "retry": 2**53}
    path = write_vectors(vector_document([hello_case(expected={"frames": [frame]})]))
    problems = problems_of(path)
    assert ("hello", "/cases/0/expected/frames/0/retry") in [
        (p.case_id, p.pointer) for p in problems
    ]
    assert any("I-JSON" in p.message for p in problems)


def test_nan_is_not_json(write_vectors):
    (problem,) = problems_of(write_vectors('{"domain": NaN}'))
    assert "NaN is not JSON" in problem.message


def test_lone_surrogates_are_rejected(write_vectors):
    path = write_vectors(vector_document([hello_case(input={"chunks": ["data: \ud800\n\n"]})]))
    problems = problems_of(path)
    assert ("hello", "/cases/0/input/chunks/0") in [(p.case_id, p.pointer) for p in problems]
    assert any("lone surrogate" in p.message for p in problems)


def test_tags_must_be_declared_and_sources_structured(write_vectors):
    case = hello_case(tags=["basic", "mystery"], source="RFC 8895")
    problems = problems_of(write_vectors(vector_document([case])))
    assert {(p.pointer, p.case_id) for p in problems} >= {("/cases/0/source", "hello")}
    fixed = hello_case(tags=["basic", "mystery"])
    (problem,) = problems_of(write_vectors(vector_document([fixed])))
    assert (problem.pointer, problem.message) == (
        "/cases/0/tags/1",
        "tag 'mystery' is not declared in /tags",
    )
    declared = vector_document([fixed], tags={"basic": "b", "mystery": "why it exists"})
    case = load_vector_file(write_vectors(declared)).cases[0]
    assert case.tags == ("basic", "mystery")
    assert case.source == {"kind": "derived", "ref": "tests/conftest.py"}
