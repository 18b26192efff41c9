"""Malformed results files and arguments at report, history, expectations: 0-2, no traceback."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from runners._cli import main

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)
# Shapes near a results document, so validation gets past the first check.
near_results = st.fixed_dictionaries(
    {
        "summary": st.dictionaries(
            st.sampled_from(["total", "pass", "diverged", "platforms", "matrix"]), json_values
        ),
        "results": st.lists(
            st.dictionaries(st.sampled_from(["domain", "case", "status", "diff"]), json_values),
            max_size=3,
        ),
    }
)


def call(argv):
    try:
        return main(argv)
    except SystemExit as e:  # argparse
        return e.code


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    content=st.one_of(
        json_values.map(json.dumps),
        near_results.map(json.dumps),
        st.binary(max_size=40).map(lambda b: b.decode("latin-1")),
    )
)
def test_report_on_anything(tmp_path, capsys, content):
    path = tmp_path / "results.json"
    path.write_text(content, encoding="utf-8")
    for argv in (
        ["report", str(path)],
        ["report", str(path), "--format", "html", "--output", str(tmp_path / "r.html")],
        ["history", str(path), str(path)],
        ["expectations", "--update", str(tmp_path / "l.json"), "--results", str(path)],
    ):
        code = call(argv)
        _, err = capsys.readouterr()
        assert code in (0, 1, 2), (argv, code)
        assert "Traceback" not in err


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    args=st.lists(
        st.sampled_from(
            [
                "--format",
                "html",
                "markdown",
                "text",
                "xml",
                "--output",
                "/dev/full",
                "/nonexistent/x",
                "--max-problems",
                "-1",
                "3",
                "nan",
                "--",
                "-q",
            ]
        ),
        max_size=6,
    )
)
def test_report_arguments(tmp_path, capsys, args):
    code = call(["report", "/nonexistent/results.json", *args])
    _, err = capsys.readouterr()
    assert code == 2 and "Traceback" not in err
