"""A large vector file is read in parts (issue 32): the same cases and the same checks."""

from __future__ import annotations

import json
from typing import Any

import pytest
from conftest import hello_case, vector_document

from runners.exceptions import VectorFileError
from runners.vectors.load import VECTORS_DIR, load_vector_file
from runners.vectors.parts import load_vector_parts

FILES = sorted(VECTORS_DIR.glob("*.json"))


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_every_vector_file_read_in_parts_is_the_file_loaded_whole(path):
    whole = load_vector_file(path)
    parts = list(load_vector_parts(path, cases_per_part=7))
    assert len(parts) == max(1, -(-len(whole.cases) // 7))
    assert tuple(c for p in parts for c in p.cases) == whole.cases
    for part in parts:
        assert (part.domain, part.version, part.description) == (
            whole.domain,
            whole.version,
            whole.description,
        )
        assert (part.comparison, part.variants) == (whole.comparison, whole.variants)
    assert [c.content_hash() for p in parts for c in p.cases] == [
        c.content_hash() for c in whole.cases
    ]


def _cases(n):
    return [hello_case(id=f"case-{i}", input={"chunks": [f"data: {i}\n\n"]}) for i in range(n)]


def test_the_header_may_follow_the_cases(tmp_path):
    doc = vector_document(_cases(5))
    path = tmp_path / "sse-frames.json"
    path.write_text(json.dumps({"cases": doc.pop("cases"), **doc}), encoding="utf-8")
    parts = list(load_vector_parts(path, cases_per_part=2))
    assert [len(p.cases) for p in parts] == [2, 2, 1]
    assert tuple(c for p in parts for c in p.cases) == load_vector_file(path).cases


def test_a_bad_case_in_a_later_part_is_named_with_its_id_and_place_in_the_file(tmp_path):
    cases = _cases(9)
    cases[6]["input"] = {"chunks": [3]}
    cases[7]["clauses"] = ["NOPE-1"]
    path = tmp_path / "sse-frames.json"
    path.write_text(json.dumps(vector_document(cases)), encoding="utf-8")
    parts = load_vector_parts(path, cases_per_part=3)
    assert [c.id for p in itertools_take(parts, 2) for c in p.cases] == [
        f"case-{i}" for i in range(6)
    ]
    with pytest.raises(VectorFileError) as e:
        list(parts)
    named = {(p.case_id, p.pointer.split("/")[2]) for p in e.value.problems}
    assert named == {("case-6", "6"), ("case-7", "7")}
    assert any(p.pointer == "/cases/6/input/chunks/0" for p in e.value.problems)
    whole = {(p.case_id, p.pointer, p.message) for p in load_problems(path)}
    assert {(p.case_id, p.pointer, p.message) for p in e.value.problems} == whole


def itertools_take(iterator, n):
    return [next(iterator) for _ in range(n)]


def load_problems(path):
    with pytest.raises(VectorFileError) as e:
        load_vector_file(path)
    return e.value.problems


def test_an_id_used_twice_in_different_parts_is_found(tmp_path):
    cases = _cases(7)
    cases[5]["id"] = "case-1"
    cases[6]["id"] = "case-6"
    cases.append(hello_case(id="case-6", input={"chunks": ["data: x\n\n"]}))
    path = tmp_path / "sse-frames.json"
    path.write_text(json.dumps(vector_document(cases)), encoding="utf-8")
    with pytest.raises(VectorFileError) as e:
        list(load_vector_parts(path, cases_per_part=2))
    found = [(p.case_id, p.pointer, p.message) for p in e.value.problems]
    assert found == [
        ("case-1", "/cases/5/id", "duplicate id (first used by /cases/1)"),
        ("case-6", "/cases/7/id", "duplicate id (first used by /cases/6)"),
    ]
    assert sorted(found) == sorted((p.case_id, p.pointer, p.message) for p in load_problems(path))


def test_a_file_that_is_not_json_is_named_as_the_loader_names_it(tmp_path):
    path = tmp_path / "sse-frames.json"
    text = json.dumps(vector_document(_cases(4)))
    path.write_text(text[: text.rindex("case-3")], encoding="utf-8")
    with pytest.raises(VectorFileError) as e:
        list(load_vector_parts(path, cases_per_part=2))
    assert [str(p) for p in e.value.problems] == [str(p) for p in load_problems(path)]


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_the_layout_checked_case_by_case_is_the_canonical_layout(path):
    from runners.vectors.format import canonical
    from runners.vectors.parts import is_canonical

    text = path.read_text(encoding="utf-8")
    assert is_canonical(path) == (canonical(json.loads(text)) == text)


def test_a_layout_off_in_one_case_or_at_the_end_is_found(tmp_path):
    from runners.vectors.format import canonical
    from runners.vectors.parts import is_canonical

    path = tmp_path / "sse-frames.json"
    text = canonical({"cases": _cases(5), **vector_document([])} | {"cases": _cases(5)})
    path.write_text(text, encoding="utf-8")
    assert is_canonical(path)
    path.write_text(text.replace('"case-3",', '"case-3" ,'), encoding="utf-8")
    assert not is_canonical(path)
    path.write_text(text + "\n", encoding="utf-8")
    assert not is_canonical(path)
    path.write_text(text[:-1], encoding="utf-8")
    assert not is_canonical(path)
    empty = canonical(vector_document([]))
    path.write_text(empty, encoding="utf-8")
    assert is_canonical(path) and '"cases": []' in empty


def test_fmt_check_of_a_large_file_reads_it_in_parts(capsys, monkeypatch, write_vectors):
    from runners._cli import main
    from runners.vectors import parts
    from runners.vectors.format import canonical

    monkeypatch.setattr(parts, "PARTS_FROM_BYTES", 0)
    monkeypatch.setattr(parts, "CASES_PER_PART", 2)
    read_whole = []
    monkeypatch.setattr(parts, "load_vector_file", _spy(parts.load_vector_file, read_whole))
    path = write_vectors(json.dumps(vector_document(_cases(5))))
    argv = ["fmt", "--no-default-vectors", "--vectors", str(path), "--check"]
    assert main(argv) == 1 and "would reformat" in capsys.readouterr().out
    path.write_text(canonical(vector_document(_cases(5))), encoding="utf-8")
    assert main(argv) == 0 and "1 of 1 vector files already canonical" in capsys.readouterr().out
    assert read_whole and all(data is not None for data in read_whole)  # parts, never the file
    bad = _cases(5)
    bad[4]["clauses"] = ["NOPE-1"]
    path.write_text(canonical(vector_document(bad)), encoding="utf-8")
    assert main(argv) == 2
    assert "case 'case-4' at /cases/4/clauses/0" in capsys.readouterr().err


def _spy(load, calls):
    def spied(path, data=None):
        calls.append(data)
        return load(path, data)

    return spied


def _run_document(monkeypatch, capsys, folder, out, in_parts, *extra):
    from runners._cli import main
    from runners.reports.results_file import read_results
    from runners.run import stream as run_stream
    from runners.vectors import parts
    from runners.vectors import stream as vector_stream

    monkeypatch.setattr(vector_stream, "STREAM_FROM_BYTES", 0)
    monkeypatch.setattr(run_stream, "CHUNK_CASES", 2)
    monkeypatch.setattr(parts, "PARTS_FROM_BYTES", 0 if in_parts else 2**62)
    monkeypatch.setattr(parts, "CASES_PER_PART", 3)
    loads = []
    monkeypatch.setattr(parts, "load_vector_file", _spy(parts.load_vector_file, loads))
    argv = ["run", "--no-default-vectors", "--vectors", str(folder), "-q", "--format", "json"]
    code = main([*argv, "--output", str(out), "--platform", "python", "--platform", "liar", *extra])
    printed = capsys.readouterr().out
    doc = read_results(out)
    if "2" not in extra:  # (a harness job loads in its own process)
        assert bool(loads) == in_parts and None not in loads  # parts, never the whole file
    run = doc["summary"].pop("run")
    return code, printed.replace(str(out), "OUT"), doc, run["vectors"]


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_run_of_files_read_in_parts_is_the_run_of_them_loaded_whole(
    monkeypatch, capsys, tmp_path, liar, jobs
):
    folder = tmp_path / "vectors"
    folder.mkdir()
    header_last = vector_document([], variants=[])
    del header_last["cases"]
    (folder / "a.json").write_text(
        json.dumps({"cases": [hello_case(id=f"case-{i}") for i in range(11)], **header_last}),
        encoding="utf-8",
    )
    more = [hello_case(id=f"more-{i}") for i in range(7)]
    (folder / "b.json").write_text(json.dumps(vector_document(more)), encoding="utf-8")
    whole = _run_document(monkeypatch, capsys, folder, tmp_path / "w.json", False, "--jobs", jobs)
    in_parts = _run_document(monkeypatch, capsys, folder, tmp_path / "p.json", True, "--jobs", jobs)
    assert whole[0] == 1 and "FAIL sse-frames::case-3 [liar]" in whole[1]
    assert in_parts == whole
    assert whole[3]["files"]["sse-frames"]["cases"] == 7  # the last file of the domain
    python = [r["case"] for r in whole[2]["results"] if r["platform"] == "python"]
    assert python == [f"case-{i}" for i in range(11)] + [f"more-{i}" for i in range(7)]
    # Chunks of 2 whatever the parts (of 3): the order of a run of the file loaded whole.
    assert [r["platform"] for r in whole[2]["results"][:4]] == ["python"] * 2 + ["liar"] * 2


def test_a_bad_case_late_in_a_file_read_in_parts_stops_the_run_naming_it(
    monkeypatch, capsys, tmp_path, liar
):
    from runners._cli import main
    from runners.run import stream as run_stream
    from runners.vectors import parts
    from runners.vectors import stream as vector_stream

    monkeypatch.setattr(vector_stream, "STREAM_FROM_BYTES", 0)
    monkeypatch.setattr(run_stream, "CHUNK_CASES", 2)
    monkeypatch.setattr(parts, "PARTS_FROM_BYTES", 0)
    monkeypatch.setattr(parts, "CASES_PER_PART", 3)
    cases = _cases(11)
    cases[9]["id"] = "case-2"
    path = tmp_path / "sse-frames.json"
    path.write_text(json.dumps(vector_document(cases)), encoding="utf-8")
    argv = ["run", "--no-default-vectors", "--vectors", str(path), "--platform", "python"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "case 'case-2' at /cases/9/id: duplicate id (first used by /cases/2)" in err


@pytest.mark.parametrize(
    "spoil",
    [
        lambda text: "\ufeff" + text,
        lambda text: text.replace('"case-5"', '"case-\\ud800"'),
        lambda text: text.replace('"data: 5', '"data:\t5'),
        lambda text: text.replace('{"chunks": ["data: 5', "[" * 3000 + '{"chunks": ["data: 5') + "",
    ],
    ids=["bom", "lone-surrogate", "control-character", "too-deep"],
)
def test_what_the_loader_refuses_in_a_file_the_parts_refuse_alike(tmp_path, spoil):
    path = tmp_path / "sse-frames.json"
    path.write_text(spoil(json.dumps(vector_document(_cases(8)))), encoding="utf-8")
    with pytest.raises(VectorFileError) as e:
        list(load_vector_parts(path, cases_per_part=3))
    assert [str(p) for p in e.value.problems] == [str(p) for p in load_problems(path)]


def test_a_case_nested_too_deep_in_a_later_part_is_named_where_the_file_has_it(tmp_path):
    cases = _cases(8)
    deep: Any = "x"
    for _ in range(200):
        deep = [deep]
    cases[6]["expected"] = deep
    path = tmp_path / "sse-frames.json"
    path.write_text(json.dumps(vector_document(cases), indent=1), encoding="utf-8")
    with pytest.raises(VectorFileError) as e:
        list(load_vector_parts(path, cases_per_part=3))
    assert [str(p) for p in e.value.problems] == [str(p) for p in load_problems(path)]
