"""Authlib 1.9.6 (PyPI) on oauth-authorize, through examples/authlib/worker.py: its
client's authorize URL, callback parsing and token response diverge where its ledger
says, and the run gates green on that ledger (and fails without it)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from runners._cli import main

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "authlib"


def run(capsys: Any, *extra: str) -> tuple[int, str]:
    worker = f"authlib={sys.executable} {EXAMPLE / 'worker.py'}"
    argv = ["run", "--worker", worker, "--platform", "authlib", "--domain", "oauth-authorize"]
    code = main([*argv, *extra])
    return code, capsys.readouterr().out


def test_authlib_diverges_where_its_ledger_says(capsys: Any, tmp_path: Path) -> None:
    report = tmp_path / "report.txt"
    code, out = run(capsys, "--output", str(report))
    assert code == 1, out[-3000:]
    assert "59 pass, 164 fail, 14 error, 0 skip" in out, out[-2000:]
    # The security-relevant causes first, largest first: urllib's crash on a bracketed
    # host that is no IPv6 address (AUTH-2 refuses it too, with an error code), plain-http
    # redirect URIs, no state check before the code is read (RFC 6749 §10.12), resources,
    # an empty state dropped.
    causes = out[out.index("divergences by cause") :].splitlines()
    assert "authlib: 13 cases, (whole output): crash ValueError" in causes[1]
    cb3 = "authlib: 6 cases, (whole output): error state_mismatch -> error missing_code"
    assert any(cb3 in line for line in causes)
    verdict = next(line for line in out.splitlines() if line.startswith("DIVERGED: "))
    assert "6 security-relevant clusters: AUTH-2 [" in verdict, verdict
    assert "CB-3 [" in verdict, verdict
    assert all(f"{clause} [" in verdict for clause in ("AUTH-2", "AUTH-6", "AUTH-7"))
    # A parameter the endpoint already has is sent twice (RFC 6749 §3.1), the server's
    # error response is read as a missing code (§4.1.2.1), and more, by cause (the file
    # has every cluster; the terminal view cuts the smaller ones):
    text = report.read_text(encoding="utf-8")
    assert "authlib: 31 cases, (whole output): error invalid_endpoint -> output" in text
    assert "authlib: 5 cases, (whole output): output -> error missing_code" in text
    assert "authlib: 9 cases, (whole output): error invalid_callback -> output" in text
    assert "cases: oauth-authorize::existing-query-repeats-client-id" in text


def test_authlib_gates_green_on_its_ledger(capsys: Any) -> None:
    code, out = run(capsys, "--expectations", str(EXAMPLE / "expectations.json"))
    assert code == 0, out[-3000:]
    assert "59 pass, 0 fail, 0 error, 0 skip, 178 xfail" in out, out[-2000:]


def test_authlib_keeps_one_question_mark_but_re_encodes_the_query(
    capsys: Any, tmp_path: Path
) -> None:
    """Issue 26's endpoint (`?tenant=a%20b`): unlike `mcp`'s client, Authlib writes one
    `?`; it re-encodes the server's query (`a%20b` -> `a+b`) and writes spaces as `+`."""
    results = tmp_path / "results.json"
    code, _ = run(capsys, "--format", "json", "--output", str(results))
    assert code == 1
    [result] = [
        r
        for r in json.loads(results.read_text(encoding="utf-8"))["results"]
        if r["case"] == "existing-query-kept-percent-20"
    ]
    url = result["actual"]["url"]
    assert url.count("?") == 1, url
    assert url.startswith("https://as.example/authorize?tenant=a+b&response_type=code&"), url
    assert "&scope=read+write&" in url, url
