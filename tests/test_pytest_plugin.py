"""The pytest plugin through pytester: ids, -k, -x, junitxml, and failures that show the diff."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import hello_case, vector_document

TESTS = Path(__file__).resolve().parent


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    (pytester.path / "vectors").mkdir()
    doc = vector_document(
        [
            hello_case(),
            hello_case(id="with-bom", tags=["bom"], input={"chunks": ["\ufeffdata: hi\n\n"]}),
        ],
        tags={"basic": "ordinary", "bom": "a byte order mark"},
    )
    (pytester.path / "vectors" / "sse-frames.json").write_text(json.dumps(doc), encoding="utf-8")
    pytester.makeini("[pytest]\nhanzo_conformance_vectors = vectors\n")
    pytester.makeconftest(
        f"""
import sys
sys.path.insert(0, {str(TESTS)!r})
import miniatures
from adapters.registry import register_platform
register_platform("liar", lambda: miniatures.Liar())
register_platform("lacking", lambda: miniatures.Lacking("lacking"))
"""
    )
    yield pytester
    from adapters.registry import unregister_platform

    unregister_platform("liar")
    unregister_platform("lacking")


def test_one_test_per_case_and_platform(project):
    result = project.runpytest_inprocess(
        "--collect-only", "-q", "--platform", "python", "--platform", "liar"
    )
    result.stdout.fnmatch_lines(
        [
            "vectors/sse-frames.json::sse-frames::hello[[]python[]]",
            "vectors/sse-frames.json::sse-frames::hello[[]liar[]]",
            "vectors/sse-frames.json::sse-frames::with-bom[[]python[]]",
            "vectors/sse-frames.json::sse-frames::with-bom[[]liar[]]",
        ]
    )


def test_reference_passes_and_k_selects_by_tag(project):
    result = project.runpytest_inprocess("--platform", "python", "-k", "bom")
    result.assert_outcomes(passed=1, deselected=1)


def test_a_liar_fails_with_input_and_pointer(project):
    result = project.runpytest_inprocess("--platform", "python", "--platform", "liar")
    result.assert_outcomes(passed=2, failed=2)
    result.stdout.fnmatch_lines(
        [
            "*FAIL sse-frames::hello [[]liar[]]*",
            '*input: {"chunks": [[]"data: hi*',
            "*/frames/0/data  [[]original and 10 chunkings: one-per-chunk, split@1,*: "
            'expected "hi", actual "hi!"',
        ]
    )


def test_x_stops_at_the_first_failure(project):
    result = project.runpytest_inprocess("--platform", "liar", "-x")
    result.assert_outcomes(failed=1)


def test_a_lacking_platform_is_skipped_with_a_reason(project):
    result = project.runpytest_inprocess("--platform", "lacking", "-rs")
    result.assert_outcomes(skipped=2)
    result.stdout.fnmatch_lines(["*sse-frames is not implemented by lacking*"])


def test_junitxml_records_each_case(project):
    result = project.runpytest_inprocess(
        "--platform", "python", "--platform", "liar", "--junitxml=out.xml"
    )
    result.assert_outcomes(passed=2, failed=2)
    xml = (project.path / "out.xml").read_text()
    assert xml.count("<testcase") == 4
    assert 'name="hello[liar]"' in xml and "/frames/0/data" in xml


def test_domain_option_filters_files(project):
    result = project.runpytest_inprocess("--platform", "python", "--domain", "oauth-pkce")
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED


def test_extra_vectors_folder(project, tmp_path):
    extra = tmp_path / "found-by-hypothesis"
    extra.mkdir()
    doc = vector_document([hello_case(id="zebra")])
    (extra / "more.json").write_text(json.dumps(doc), encoding="utf-8")
    # `--vectors=PATH`, one word: pytest finds its rootdir and ini before plugins load,
    # so a separate PATH word would be taken for a test path and move the rootdir.
    result = project.runpytest_inprocess(
        "--platform", "python", f"--vectors={extra}", "-k", "zebra"
    )
    result.assert_outcomes(passed=1, deselected=2)


def test_a_malformed_vector_file_is_a_collection_error_naming_the_problem(project):
    (project.path / "vectors" / "broken.json").write_text(
        '{"domain": "sse-frames"}', encoding="utf-8"
    )
    result = project.runpytest_inprocess("--platform", "python")
    result.stdout.fnmatch_lines(["*broken.json: file at (root): 'version' is a required property*"])
    assert result.ret == pytest.ExitCode.INTERRUPTED


def test_vectors_of_a_project_that_does_not_ask_are_not_collected(project):
    (project.path / "tox.ini").unlink()
    result = project.runpytest_inprocess("--platform", "python")
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED


def test_the_ini_option_names_any_folder(project):
    (project.path / "vectors").rename(project.path / "cases")
    project.makeini("[pytest]\nhanzo_conformance_vectors = cases\n")
    result = project.runpytest_inprocess("--platform", "python")
    result.assert_outcomes(passed=2)


def test_markers_select_platform_and_domain_exactly(project):
    # `-k js` matches every node id (they contain ".json"); `-m platform_js` cannot.
    args = ["--collect-only", "-q", "--platform", "python", "--platform", "liar"]
    result = project.runpytest_inprocess(*args, "-m", "platform_liar")
    result.stdout.fnmatch_lines(
        ["*hello[[]liar[]]", "*with-bom[[]liar[]]", "*2/4 tests collected*"]
    )
    result = project.runpytest_inprocess(*args, "-m", "domain_sse-frames and not platform_liar")
    result.stdout.fnmatch_lines(["*hello[[]python[]]", "*2/4 tests collected*"])
    result = project.runpytest_inprocess(*args, "-m", "platform_js")
    result.stdout.fnmatch_lines(["*no tests collected (4 deselected)*"])


def test_the_same_case_id_in_two_files_is_a_collection_error(project):
    doc = vector_document([hello_case(id="with-bom")])
    (project.path / "vectors" / "more.json").write_text(json.dumps(doc), encoding="utf-8")
    result = project.runpytest_inprocess("--platform", "python")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(["*.json: case 'with-bom': id already used in *.json for domain*"])
    result.assert_outcomes(errors=1)


def test_deep_nesting_is_a_collection_error_naming_the_depth_limit(project):
    depth = 100_000
    (project.path / "vectors" / "deep.json").write_text("[" * depth + "]" * depth, encoding="utf-8")
    result = project.runpytest_inprocess("--platform", "python")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(
        ["*deep.json: file at (root): arrays/objects nested more than 128*"]
    )
    result.stdout.no_fnmatch_line("*RecursionError*")
