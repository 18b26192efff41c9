"""One option table (``runners._options``): ``run``, ``generate`` and the pytest plugin take
each shared option with the same check, so a bad value exits 2 before anything runs on
every one of them (README "Exit codes")."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import pytest

from runners import _options
from runners._cli import build_parser, main

ROOT = Path(__file__).resolve().parent.parent

# (argv after the command, what stderr says): refused alike wherever the option is taken.
SHARED_BAD = [
    (["--case-timeout", "0"], "argument --case-timeout: must be a finite number"),
    (["--case-timeout", "-1"], "argument --case-timeout: must be a finite number"),
    (["--case-timeout", "nan"], "argument --case-timeout: must be a finite number"),
    (["--worker", "python=node w.mjs"], "argument --worker: 'python' is a built-in"),
    (["--worker", "w=a", "--worker", "w=b"], "argument --worker: 'w' is given twice"),
    # Every case would run twice (issue 32).
    (["--platform", "python", "--platform", "python"], "argument --platform: 'python' is given"),
    (["--domain", "oauth-pkce", "--domain", "oauth-pkce"], "argument --domain: 'oauth-pkce' is"),
    # A domain names files and modules: never a path (generate imported strategies/../../x).
    (["--domain", "../../x"], "argument --domain: not a domain name"),
]
GENERATE_BAD = [
    (["--batch", "-5"], "argument --batch: must be 1 or more"),
    (["--batch", "0"], "argument --batch: must be 1 or more"),
    (["--max-examples", "0"], "argument --max-examples: must be 1 or more"),
    (["--max-examples", "many"], "argument --max-examples: not an integer"),
    (["--seed", "x"], "argument --seed: not an integer"),
]


def _exit_code_and_stderr(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    code = exit_info.value.code
    assert isinstance(code, int)
    return code, capsys.readouterr().err


@pytest.mark.parametrize(("argv", "says"), SHARED_BAD)
def test_run_and_generate_refuse_a_bad_shared_option_alike(
    capsys: pytest.CaptureFixture[str], argv: list[str], says: str
) -> None:
    run = _exit_code_and_stderr(capsys, ["run", "--platform", "python", *argv])
    generate = _exit_code_and_stderr(
        capsys, ["generate", "--domain", "oauth-pkce", "--no-write", *argv]
    )
    assert run[0] == generate[0] == 2
    assert says in run[1]
    assert says in generate[1]


def test_a_schemas_folder_that_does_not_exist_is_refused(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A typo in --schemas used to look nowhere and go on."""
    for command in (["run", "--platform", "python"], ["validate"], ["list"]):
        code, err = _exit_code_and_stderr(capsys, [*command, "--schemas", "/nonexistent"])
        assert code == 2 and "argument --schemas: no such folder" in err


@pytest.mark.parametrize(("argv", "says"), GENERATE_BAD)
def test_generate_refuses_a_bad_search_option(
    capsys: pytest.CaptureFixture[str], argv: list[str], says: str
) -> None:
    code, err = _exit_code_and_stderr(
        capsys, ["generate", "--domain", "oauth-pkce", "--no-write", *argv]
    )
    assert code == 2
    assert says in err


def test_the_pytest_plugin_refuses_a_zero_case_timeout_as_the_cli_does() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--case-timeout", "0"],
        cwd=ROOT / "vectors",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert "argument --case-timeout: must be a finite number" in done.stderr


def test_the_plugin_check_takes_the_values_the_cli_takes() -> None:
    values = argparse.Namespace(
        **{o.pytest_dest: o.default for o in _options.PYTEST_OPTIONS},
    )
    values.hc_case_timeout = "2.5"
    values.hc_shard = "2/3"
    values.hc_workers = ["mine=node worker.mjs"]
    assert _options.pytest_problem(values) is None
    assert values.hc_case_timeout == 2.5
    assert values.hc_shard == (2, 3)
    values.hc_batch_cases = "0"
    assert _options.pytest_problem(values) == "argument --batch-cases: must be 1 or more, got '0'"


def test_every_shared_option_has_one_default_on_every_command() -> None:
    """What a command is not told, it takes from the table, the same on each."""
    parser = build_parser()
    run = parser.parse_args(["run"])
    generate = parser.parse_args(["generate", "--domain", "oauth-pkce"])
    for option in (
        _options.PLATFORM,
        _options.WORKER,
        _options.CASE_TIMEOUT,
        _options.IN_PROCESS,
        _options.EXPECTATIONS,
    ):
        expected = list(option.default) if option.action == "append" else option.default
        assert getattr(run, option.dest) == expected
        assert getattr(generate, option.dest) == expected
