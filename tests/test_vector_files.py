"""A malformed vector file names the file, the case id and the JSON pointer of every problem."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest
from conftest import hello_case, vector_document

from runners._cli import main
from runners.exceptions import VectorFileError
from runners.vectors.clauses import clause_ids_in, domain_clause_ids
from runners.vectors.load import MAX_DEPTH, VECTORS_DIR, load_vector_file, load_vectors


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
    problems = problems_of(path)
    assert ("/domain", "duplicate object key 'domain'") in [
        (p.pointer, p.message) for p in problems
    ]


def test_duplicate_keys_name_the_case_and_pointer(write_vectors):
    text = json.dumps(vector_document([hello_case()]))
    text = text.replace('"input": {"chunks":', '"input": {"chunks": [], "chunks":', 1)
    (problem,) = problems_of(write_vectors(text))
    assert (problem.case_id, problem.pointer) == ("hello", "/cases/0/input/chunks")
    assert problem.message == "duplicate object key 'chunks'"


def test_duplicate_case_ids(write_vectors):
    path = write_vectors(vector_document([hello_case(), hello_case()]))
    (problem,) = problems_of(path)
    assert (problem.case_id, problem.pointer) == ("hello", "/cases/1/id")
    assert "duplicate id" in problem.message


def test_both_expected_and_error(write_vectors):
    path = write_vectors(vector_document([hello_case(error="bad_input")]))
    problems = problems_of(path)
    assert (problems[0].case_id, problems[0].pointer) == ("hello", "/cases/0")
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


def test_an_integer_too_long_for_python_is_named_by_file_case_and_pointer(write_vectors):
    text = json.dumps(vector_document([hello_case()])).replace(
        '"retry": null', '"retry": -' + "9" * 5000
    )
    problems = problems_of(write_vectors(text))
    assert ("hello", "/cases/0/expected/frames/0/retry") in [
        (p.case_id, p.pointer) for p in problems
    ]
    assert any("integer of 5,000 digits" in p.message for p in problems)


def test_nan_is_not_json(write_vectors):
    (problem,) = problems_of(write_vectors('{"domain": NaN}'))
    assert "NaN is not JSON" in problem.message


def test_lone_surrogates_are_rejected(write_vectors):
    path = write_vectors(vector_document([hello_case(input={"chunks": ["data: \ud800\n\n"]})]))
    problems = problems_of(path)
    assert ("hello", "/cases/0/input/chunks/0") in [(p.case_id, p.pointer) for p in problems]
    assert any("lone surrogate" in p.message for p in problems)


def test_numbers_overflowing_to_infinity_are_rejected_with_the_pointer(write_vectors):
    text = json.dumps(vector_document([hello_case()])).replace('"retry": null', '"retry": 1e400')
    problems = problems_of(write_vectors(text))
    assert {(p.case_id, p.pointer) for p in problems} == {
        ("hello", "/cases/0/expected/frames/0/retry")
    }
    assert any("would be sent as Infinity" in p.message for p in problems)


def test_deep_nesting_names_the_file_and_the_depth_limit(write_vectors):
    depth = 100_000
    path = write_vectors('{"domain": "sse-frames", "x": ' + "[" * depth + "]" * depth + "}")
    (problem,) = problems_of(path)
    assert problem.path == path
    assert f"more than {MAX_DEPTH} levels deep" in problem.message
    assert "line 1" in problem.message


def test_deep_nesting_in_the_cli_is_an_error_not_a_traceback(write_vectors, capsys):
    path = write_vectors("[" * 100_000 + "]" * 100_000)
    assert main(["validate", "--no-default-vectors", "--vectors", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}: file at (root): arrays/objects nested more than {MAX_DEPTH} levels" in err
    assert "RecursionError" not in err and "Traceback" not in err


def test_nesting_up_to_the_limit_is_only_a_schema_matter(write_vectors):
    inner = "[" * (MAX_DEPTH - 3) + "]" * (MAX_DEPTH - 3)  # file, cases, case, input: 3 above
    case = json.dumps(hello_case()).replace('{"chunks": ["data: hi\\n\\n"]}', inner)
    text = json.dumps(vector_document([])).replace('"cases": []', f'"cases": [{case}]')
    problems = problems_of(write_vectors(text))
    assert all("levels deep" not in p.message for p in problems)
    assert [p.pointer for p in problems] == ["/cases/0/input"]


def test_brackets_inside_strings_do_not_count_as_nesting(write_vectors):
    deep_text = "[" * 1000 + '\\"{'
    vf = load_vector_file(write_vectors(vector_document([hello_case(description=deep_text)])))
    assert vf.cases[0].description == deep_text.replace("\\\\", "\\")


def test_a_rechunk_path_missing_from_an_input_is_a_problem_of_that_case(write_vectors):
    doc = vector_document(
        [hello_case(), hello_case(id="elsewhere")],
        variants=[{"kind": "rechunk", "path": "/lines"}],
    )
    problems = problems_of(write_vectors(doc))
    assert [(p.case_id, p.pointer) for p in problems] == [
        ("hello", "/cases/0/input/lines"),
        ("elsewhere", "/cases/1/input/lines"),
    ]
    assert "/variants/0" in problems[0].message and "nothing at '/lines'" in problems[0].message


def test_a_rechunk_path_that_is_not_a_list_of_strings(write_vectors):
    doc = vector_document([hello_case()], variants=[{"kind": "rechunk", "path": "/chunks/0"}])
    (problem,) = problems_of(write_vectors(doc))
    assert (problem.case_id, problem.pointer) == ("hello", "/cases/0/input/chunks/0")
    assert "not a list of strings" in problem.message


def test_clause_ids_the_contract_does_not_define(write_vectors):
    doc = vector_document([hello_case(clauses=["SSE-3", "SSE-99", "PKCE-1"])])
    problems = problems_of(write_vectors(doc))
    assert [(p.case_id, p.pointer) for p in problems] == [
        ("hello", "/cases/0/clauses/1"),
        ("hello", "/cases/0/clauses/2"),
    ]
    assert "'SSE-99' is not defined in docs/domains/sse-frames.md" in problems[0].message


def test_clause_ids_come_from_headings_and_bold_list_leads():
    markdown = (
        "# x\n## Clauses\n### SSE-1: a\n- **SSE-3a.** b\n- **CFG-1 (user file).** c\n"
        "Mentioned in text, SSE-7 is not defined; nor is `- SSE-8` without bold.\n"
        "#### SSE-12: deeper heading\n"
    )
    assert clause_ids_in(markdown) == {"SSE-1", "SSE-3a", "CFG-1", "SSE-12"}


def test_every_domain_contract_defines_the_clauses_its_vectors_cite():
    for vf in load_vectors([VECTORS_DIR]):
        defined = domain_clause_ids(vf.domain)
        assert defined, vf.domain
        assert {c for case in vf.cases for c in case.clauses} <= defined


@pytest.mark.parametrize(
    ("rule", "where"),
    [
        ({"kind": "ignore", "path": "/frames/*/dta"}, "/comparison/0/path"),
        ({"kind": "ignore", "path": "/frames/01/data"}, "/comparison/0/path"),
        ({"kind": "ignore", "path": "/frames/0/data/x"}, "/comparison/0/path"),
        (
            {"kind": "at-most", "path": "/frames/*/retry", "when": {"/chunk": 1}},
            "/comparison/0/when/~1chunk",
        ),
        (
            {"kind": "at-most", "path": "/frames/*/retry", "unless": ["/x"]},
            "/comparison/0/unless/0",
        ),
        (
            {"kind": "ignore", "path": "/frames/*/data", "where": {"kind": 1}},
            "/comparison/0/where/kind",
        ),
    ],
)
def test_comparison_rules_that_can_never_match(write_vectors, rule, where):
    doc = vector_document([hello_case()], comparison=[rule])
    (problem,) = problems_of(write_vectors(doc))
    assert (problem.case_id, problem.pointer) == (None, where)
    assert "can never match" in problem.message


@pytest.mark.parametrize(
    ("rules", "where"),
    [
        ([{"kind": "ignore", "path": ""}], "/comparison/0/path"),
        ([{"kind": "ignore", "path": "/*"}], "/comparison/0/path"),
        ([{"kind": "ignore", "path": "/frames"}], "/comparison/0/path"),
        (
            [{"kind": "ignore", "path": "/frames/*/data"}, {"kind": "ignore", "path": "/frames"}],
            "/comparison/1/path",
        ),
    ],
)
def test_comparison_rules_that_ignore_the_whole_output_are_refused(write_vectors, rules, where):
    """A vacuous gate: with the whole output ignored every answer passes (issue 32)."""
    doc = vector_document([hello_case()], comparison=rules)
    (problem,) = problems_of(write_vectors(doc))
    assert (problem.case_id, problem.pointer) == (None, where)
    assert "ignore the whole output" in problem.message


def test_comparison_rules_that_can_match_are_accepted(write_vectors):
    rules = [
        {"kind": "ignore", "path": "/frames/*/data", "where": {"event": None}},
        {"kind": "at-most", "path": "/frames/2/retry", "when": {"/chunks/0": "x"}},
    ]
    load_vector_file(write_vectors(vector_document([hello_case()], comparison=rules)))


def test_type_errors_in_inputs_come_in_the_same_pass_as_file_level_errors(write_vectors):
    doc = vector_document([hello_case(input={"chunks": [7]})], extra=1)
    pointers = {p.pointer for p in problems_of(write_vectors(doc))}
    assert pointers == {"", "/cases/0/input/chunks/0"}


def test_the_same_case_id_in_two_files_of_a_domain_is_a_validate_error(write_vectors, capsys):
    a = write_vectors(vector_document([hello_case()]), name="a.json")
    write_vectors(vector_document([hello_case()]), name="b.json")
    code = main(["validate", "--no-default-vectors", "--vectors", str(a.parent)])
    assert code == 2
    assert "case 'hello' at /cases: id already used in" in capsys.readouterr().err


def test_a_symlink_loop_given_as_vectors_is_a_clear_error(tmp_path, capsys):
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    code = main(["validate", "--no-default-vectors", "--vectors", str(loop)])
    err = capsys.readouterr().err
    assert code == 2
    assert f"{loop}: file at (root): symlink loop" in err
    assert "Traceback" not in err


def test_a_missing_vectors_path_is_a_clear_error(tmp_path, capsys):
    assert main(["validate", "--no-default-vectors", "--vectors", str(tmp_path / "nope")]) == 2
    assert "nope: file at (root): no such file or folder" in capsys.readouterr().err


def test_an_unreadable_subfolder_is_an_error_never_a_silent_skip(
    write_vectors, capsys, monkeypatch
):
    path = write_vectors(vector_document([hello_case()]))
    locked = path.parent / "locked"
    locked.mkdir()
    (locked / "lost.json").write_text("{}", encoding="utf-8")
    real_scandir = os.scandir

    def scandir(folder):  # chmod 0 does not stop root, so refuse the listing here
        if Path(folder) == locked:
            raise PermissionError(13, "Permission denied", str(folder))
        return real_scandir(folder)

    monkeypatch.setattr(os, "scandir", scandir)
    code = main(["validate", "--no-default-vectors", "--vectors", str(path.parent)])
    out = capsys.readouterr()
    assert code == 2 and "ok:" not in out.out
    assert f"{locked}: file at (root): cannot list this folder: Permission denied" in out.err


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


def test_the_nesting_check_agrees_with_the_parsed_depth_on_random_documents() -> None:
    """``_deeper_than_limit``'s shortcuts (quote pairs dropped, innermost pairs dropped in
    rounds) against the depth of the parsed document, near the limit, with brackets,
    quotes and backslashes inside strings."""
    import random

    from runners.vectors.load import _deeper_than_limit

    def depth(value: object) -> int:
        if isinstance(value, dict):
            return 1 + max(map(depth, value.values()), default=0)
        if isinstance(value, list):
            return 1 + max(map(depth, value), default=0)
        return 0

    rng = random.Random(13)
    pieces = ["[", "]", "{", "}", '"', "\\", "x", "[[", "]]"]

    def value(level: int) -> object:
        """A value nested ``level`` deep (its siblings shallow, so it stays small)."""
        text = "".join(rng.choice(pieces) for _ in range(rng.randrange(4)))
        if level <= 0:
            return text
        children = [value(level - 1), *(value(rng.randrange(3)) for _ in range(rng.randrange(2)))]
        rng.shuffle(children)
        if rng.random() < 0.5:
            return [*children, text]
        return {f"k{i}": child for i, child in enumerate(children)} | {"s": text}

    for _ in range(300):
        document = value(rng.choice((3, MAX_DEPTH - 1, MAX_DEPTH, MAX_DEPTH + 1, MAX_DEPTH + 5)))
        data = json.dumps(document).encode()
        assert _deeper_than_limit(data) == (depth(document) > MAX_DEPTH)


def test_what_loading_computes_ahead_is_what_a_case_computes_itself() -> None:
    """The request text and size, expected text and content hash ``_cases`` sets at load
    equal what ``Case``'s own properties make (``json.dumps``) for every project vector."""
    import dataclasses

    for vf in load_vectors([VECTORS_DIR]):
        for case in vf.cases:
            fresh = dataclasses.replace(case)  # the constructor: nothing computed ahead
            assert "_content_hash" not in fresh.__dict__
            for name in ("input_json", "input_size", "expected_json", "_content_hash"):
                assert case.__dict__[name] == getattr(fresh, name), (case.id, name)
            canonical = json.dumps(
                {
                    "input": case.input,
                    **(
                        {"error": case.error} if case.expects_error else {"expected": case.expected}
                    ),
                },
                sort_keys=True,
                ensure_ascii=False,
                separators=(",", ":"),
            )
            assert fresh.content_hash() == hashlib.sha256(canonical.encode()).hexdigest()
