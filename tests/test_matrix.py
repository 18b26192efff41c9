"""Every kind of wrong platform is reported as wrong, with the exact difference; no case is lost."""

from __future__ import annotations

import miniatures
from conftest import hello_case, vector_document

from runners.reports.text import document, render_text
from runners.run.batches import run_cases, run_matrix, start_platform
from runners.vectors.load import load_vector_file


def one_file(write_vectors, cases=None):
    return load_vector_file(write_vectors(vector_document(cases or [hello_case()])))


def outcome_of(adapter, vector_file):
    (outcome,) = run_cases(start_platform(adapter.name, adapter), vector_file, vector_file.cases)
    return outcome


def test_the_reference_passes(write_vectors):
    outcome = outcome_of(miniatures.PythonAdapter(), one_file(write_vectors))
    assert outcome.status == "pass", outcome
    assert outcome.actual == {"frames": [{"event": None, "data": "hi", "id": None, "retry": None}]}


def test_a_liar_is_reported_with_the_exact_diff(write_vectors):
    outcome = outcome_of(miniatures.Liar(), one_file(write_vectors))
    assert outcome.status == "fail"
    first = outcome.diff[0].to_json()
    assert first == {"pointer": "/frames/0/data", "expected": "hi", "actual": "hi!"}
    # The same lie on every chunking: each is named.
    assert {d.variant for d in outcome.diff} >= {None, "one-per-chunk", "split@1"}


def test_a_lie_on_one_chunking_only_names_that_chunking(write_vectors):
    liar = miniatures.Liar(when=lambda r: r["input"]["chunks"] == ["data: hi\n", "\n"])
    outcome = outcome_of(liar, one_file(write_vectors))
    assert outcome.status == "fail"
    assert [d.to_json() for d in outcome.diff] == [
        {"pointer": "/frames/0/data", "expected": "hi", "actual": "hi!", "variant": "split@9"}
    ]


def test_expected_output_but_got_an_error_code(write_vectors):
    vf = one_file(write_vectors)
    outcome = outcome_of(miniatures.ErrorForEverything("erring"), vf)
    assert outcome.status == "fail"
    assert outcome.diff[0].to_json()["expected"] == {"output": vf.cases[0].expected}
    assert outcome.diff[0].to_json()["actual"] == {"error": "bad_input"}


def test_a_crash_is_an_error_with_its_detail(write_vectors):
    outcome = outcome_of(miniatures.Crasher("crasher"), one_file(write_vectors))
    assert outcome.status == "error"
    assert "crasher crashed" in outcome.message and "boom" in outcome.message
    assert outcome.detail == "Traceback: the stderr of the crash"


def test_output_shape_drift_is_its_own_failure(write_vectors):
    outcome = outcome_of(miniatures.ShapeDrift("drift"), one_file(write_vectors))
    assert outcome.status == "fail"
    assert outcome.schema_errors[0].pointer == ""
    assert "'extra'" in outcome.schema_errors[0].message
    assert outcome.diff[0].to_json() == {"pointer": "/extra", "actual": 1}


def test_a_missing_domain_is_a_skip_never_a_pass(write_vectors):
    outcome = outcome_of(miniatures.Lacking("lacking"), one_file(write_vectors))
    assert outcome.status == "skip"
    assert outcome.message == "sse-frames is not implemented by lacking"


def test_an_adapter_that_raises_loses_no_case(write_vectors):
    vf = one_file(write_vectors, [hello_case(), hello_case(id="second")])
    outcomes = run_cases(start_platform("raiser", miniatures.Raiser("raiser")), vf, vf.cases)
    assert [(o.case, o.status) for o in outcomes] == [("hello", "error"), ("second", "error")]
    assert "adapter raised RuntimeError: adapter bug" in outcomes[0].message


def test_an_adapter_that_drops_responses_loses_no_case(write_vectors):
    vf = one_file(write_vectors, [hello_case(), hello_case(id="second")])
    outcomes = run_cases(start_platform("dropper", miniatures.Dropper("dropper")), vf, vf.cases)
    assert outcomes[0].status == "error" and "no response" in outcomes[0].message
    assert outcomes[1].status == "error"


def test_a_platform_that_cannot_start_errors_every_case_and_the_run_goes_on(write_vectors):
    vf = one_file(write_vectors, [hello_case(), hello_case(id="second")])
    platforms = [
        start_platform("nostart", miniatures.NoStart("nostart")),
        start_platform("python", miniatures.PythonAdapter()),
    ]
    outcomes = run_matrix([vf], platforms)
    assert [(o.platform, o.case, o.status) for o in outcomes] == [
        ("nostart", "hello", "error"),
        ("nostart", "second", "error"),
        ("python", "hello", "pass"),
        ("python", "second", "pass"),
    ]
    assert "no such executable" in outcomes[0].message


def test_the_report_names_case_platform_and_pointer(write_vectors):
    vf = one_file(write_vectors)
    platforms = [
        start_platform("python", miniatures.PythonAdapter()),
        start_platform("liar", miniatures.Liar()),
        start_platform("lacking", miniatures.Lacking("lacking")),
    ]
    doc = document([o.to_json() for o in run_matrix([vf], platforms)], {})
    assert doc["summary"]["diverged"] is True
    assert doc["summary"]["matrix"]["sse-frames"]["liar"]["fail"] == 1
    # The results document alone is enough: a failing result carries its case's input.
    assert [r["input"] for r in doc["results"] if r["status"] == "fail"] == [vf.cases[0].input]
    assert all("input" not in r for r in doc["results"] if r["status"] == "pass")
    text = render_text(doc)
    assert "FAIL sse-frames::hello [liar]" in text
    assert (
        "/frames/0/data  [original and 10 chunkings: one-per-chunk, split@1, split@2, split@3, …]: "
        'expected "hi", actual "hi!"' in text
    )
    assert 'input: {"chunks": ["data: hi\\n\\n"]}' in text
    assert "not implemented" in text
