"""The progress bar: shown on a terminal, never in CI logs, pipes or under -q."""

from __future__ import annotations

import io

from conftest import hello_case, vector_document

from runners._cli import main
from runners.judge.outcomes import Outcome
from runners.run.progress import Progress, wanted


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def outcome(status):
    return Outcome("d", "c", "0" * 64, "p", status)


def test_the_bar_counts_results_and_failures_and_erases_itself():
    stream = Terminal()
    bar = Progress(4, stream, min_interval=0)
    bar.update([outcome("pass"), outcome("fail")])
    assert stream.getvalue().endswith("[###############---------------] 2/4 results, 1 failing")
    bar.update([outcome("error"), outcome("pass")])
    assert "4/4 results, 2 failing" in stream.getvalue()
    bar.close()
    assert stream.getvalue().endswith("\r")


def test_the_bar_is_off_in_ci_pipes_and_quiet(monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    assert wanted(Terminal(), quiet=False)
    assert not wanted(Terminal(), quiet=True)
    assert not wanted(io.StringIO(), quiet=False)  # a pipe or a log file
    monkeypatch.setenv("CI", "true")
    assert not wanted(Terminal(), quiet=False)


def test_a_run_into_a_log_has_no_progress_lines(capsys, write_vectors, monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    path = write_vectors(vector_document([hello_case()]))
    main(["run", "--no-default-vectors", "--vectors", str(path), "--platform", "python"])
    out, err = capsys.readouterr()
    assert "\r" not in out + err and "results, 0 failing" not in err
