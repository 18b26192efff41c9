"""ci/test and tox.ini run the same checks: each script of ci/checks/ once, and tox has
one environment per script (so the isolated runs cannot drift from what CI runs)."""

from __future__ import annotations

import configparser
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHECKS = ROOT / "ci" / "checks"


def scripts() -> set[str]:
    return {path.name for path in CHECKS.iterdir() if path.is_file()}


def ci_test_checks() -> list[str]:
    """The ci/checks scripts ci/test runs, in order (each at the start of a line)."""
    text = (ROOT / "ci" / "test").read_text(encoding="utf-8")
    return re.findall(r"(?:^|;)\s*ci/checks/([\w-]+)", text, flags=re.MULTILINE)


def tox_environments() -> dict[str, str]:
    parser = configparser.ConfigParser(interpolation=None)
    parser.read(ROOT / "tox.ini", encoding="utf-8")
    return {
        section.removeprefix("testenv:"): parser[section]["commands"].strip()
        for section in parser.sections()
        if section.startswith("testenv:")
    }


def test_ci_test_runs_every_check_exactly_once_and_no_tox() -> None:
    ran = ci_test_checks()
    assert sorted(ran) == sorted(scripts()), ran
    assert len(ran) == len(set(ran))
    text = (ROOT / "ci" / "test").read_text(encoding="utf-8")
    assert not re.search(r"^\s*[^#\n]*\btox\b", text, flags=re.MULTILINE), "ci/test reruns tox"


def test_each_tox_environment_runs_one_check_script_and_every_script_has_one() -> None:
    environments = tox_environments()
    assert set(environments) == scripts()
    for name, command in environments.items():
        assert command.split()[0] == "{toxinidir}/ci/checks/" + name, (name, command)
    parser = configparser.ConfigParser(interpolation=None)
    parser.read(ROOT / "tox.ini", encoding="utf-8")
    assert set(parser["tox"]["envlist"].replace(" ", "").split(",")) == scripts()


def test_the_check_lists_can_disagree() -> None:
    """The comparison above is not vacuous: a script missing from ci/test is noticed."""
    ran = ci_test_checks()
    assert set(ran[1:]) != scripts()
