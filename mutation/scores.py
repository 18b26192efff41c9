"""The Rust and JS mutation scores, read off the tools' own reports.

    .venv/bin/python mutation/scores.py --collect .   # copy finished reports, then the tables
    .venv/bin/python mutation/scores.py                # the README tables, Rust and JS
    .venv/bin/python mutation/scores.py --unexplained  # survivors with no reason yet

`--collect CHECKOUT` reads the finished reports of a checkout (cargo-mutants'
`target/mutants/<crate>/mutants.out/outcomes.json`, Stryker's
`mutation/js/reports/<module>.json`) for every row of `mutation/reach.tsv` into
`mutation/results/<rust|js>/<name>.json` (each mutant's key and outcome; checked in, as
the reports do not outlive the machine). The tables are read from those and from the
survivors' reasons, one file per crate or module: `mutation/survivors/<rust|js>/<name>.json`
(``{key: reason}``, keyed as `key()` prints a survivor). A reason starts with its kind, as in
`equivalent.json` for Python:

- ``equivalent:`` no input can tell the mutant from the original;
- ``schema:`` only an input the domain schema or the harness cannot express would;
- ``unreachable:`` a library path no JSON layer calls (a getter, a default source of
  randomness);
- ``message:`` an error's message text, which is not contract (the Python script never
  mutates messages, so these are left out of both scores, as they are there).

Score = killed / (mutants - equivalent - message); score (reachable) also leaves out
``schema:`` and ``unreachable:``. A timeout counts as killed (a mutant that loops), an
unviable or compile-error mutant is not a mutant (it never ran).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "mutation" / "results"  # the checked-in outcomes (collect writes them)
KINDS = ("equivalent", "schema", "unreachable", "message")


@dataclass
class Tally:
    name: str
    mutants: int = 0  # viable ones: they compiled and ran
    killed: int = 0
    not_viable: int = 0
    survivors: list[str] = field(default_factory=list)
    reasons: dict[str, int] = field(default_factory=lambda: dict.fromkeys(KINDS, 0))
    unexplained: list[str] = field(default_factory=list)
    missing: bool = False

    def score(self, *, reachable: bool) -> float:
        left_out = self.reasons["equivalent"] + self.reasons["message"]
        if reachable:
            left_out += self.reasons["schema"] + self.reasons["unreachable"]
        denominator = self.mutants - left_out
        return 100.0 * self.killed / denominator if denominator else 100.0


def rows(kind: str) -> list[tuple[str, list[str]]]:
    out = []
    for line in (ROOT / "mutation" / "reach.tsv").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            k, name, *files = line.split()
            if k == kind:
                out.append((name, files))
    return out


def key(kind: str, mutant: dict) -> str:
    """A survivor's key in survivors.json: the tool's own name for the mutant."""
    if kind == "rust":
        return str(mutant["name"])
    start, end = mutant["location"]["start"], mutant["location"]["end"]
    replacement = re.sub(r"\s+", " ", str(mutant.get("replacement", ""))).strip()
    if len(replacement) > 60:
        replacement = replacement[:57] + "..."
    # Stryker mutates nested expressions from one start alike (`a || b` and `a`): the
    # end tells them apart.
    where = f"{mutant['file']}:{start['line']}:{start['column']}-{end['line']}:{end['column']}"
    return f"{where}: {mutant['mutatorName']} -> {replacement}"


def _reports(kind: str, name: str, root: Path) -> list[Path]:
    """The tool's report files for one crate or module under ``root``, in the order they
    are applied: Stryker's whole-module report, then HANZO_STRYKER_MUTATE's rerun of some
    of its mutants; cargo-mutants writes a rerun over its whole run, so one file."""
    if kind == "rust":
        return [root / "target" / "mutants" / name / "mutants.out" / "outcomes.json"]
    reports = root / "mutation" / "js" / "reports"
    return [reports / f"{name}.json", reports / f"{name}.rerun.json"]


def _tool_outcomes(kind: str, path: Path) -> list[tuple[str, dict]] | None:
    """(status, mutant) per mutant of one finished report, status one of
    killed/survived/not-viable; None when there is no finished report."""
    if kind == "js":
        return _stryker_outcomes(path)
    if not path.is_file():
        return None
    doc = json.loads(path.read_text(encoding="utf-8"))
    if doc.get("end_time") is None and "total_mutants" in doc:
        return None  # still running, or cut short
    out = []
    for o in doc["outcomes"]:
        scenario = o["scenario"]
        if not isinstance(scenario, dict) or "Mutant" not in scenario:
            continue  # the unmutated baseline
        status = {"CaughtMutant": "killed", "Timeout": "killed", "MissedMutant": "survived"}
        out.append((status.get(o["summary"], "not-viable"), scenario["Mutant"]))
    return out


def _stryker_outcomes(path: Path) -> list[tuple[str, dict]] | None:
    if not path.is_file():
        return None
    out = []
    for file, entry in json.loads(path.read_text(encoding="utf-8"))["files"].items():
        for m in entry["mutants"]:
            status = {"Killed": "killed", "Timeout": "killed", "Survived": "survived"}
            # NoCoverage never happens with the command runner; count it as a survivor.
            status["NoCoverage"] = "survived"
            out.append((status.get(m["status"], "not-viable"), {**m, "file": Path(file).name}))
    return out


def collect(root: Path) -> list[str]:
    """Each finished report under ``root`` applied to mutation/results/<kind>/<name>.json,
    which the tables are read from: the tools' reports are build output and do not
    outlive the machine, these files are checked in.

    A report replaces the results when it covers the whole crate or module (Stryker's
    `<module>.json`; a cargo-mutants run with at least as many mutants) and otherwise
    updates the mutants it reran. Each file records the digests of the reports applied to
    it, so a report is applied once: collecting a checkout again, or one whose whole run
    is older than a rerun already applied, changes nothing."""
    written = []
    for kind in ("rust", "js"):
        for name, files in rows(kind):
            path = RESULTS / kind / f"{name}.json"
            doc = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
            mutants: dict[str, str] = doc.get("mutants", {})
            applied: list[str] = doc.get("reports", [])
            changed = False
            for report in _reports(kind, name, root):
                found = _tool_outcomes(kind, report)
                if found is None:
                    continue
                digest = hashlib.sha256(report.read_bytes()).hexdigest()[:16]
                if digest in applied:
                    continue
                outcomes = {key(kind, m): status for status, m in found}
                if kind == "js":
                    whole = report.name == f"{name}.json"
                else:
                    whole = len(outcomes) >= len(mutants)
                mutants = outcomes if whole else {**mutants, **outcomes}
                applied.append(digest)
                changed = True
            if not changed:
                continue
            tool = "cargo-mutants" if kind == "rust" else "stryker"
            doc = {"tool": tool, "vectors": files, "reports": applied, "mutants": mutants}
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
            written.append(f"{kind} {name}")
    return written


def outcomes(kind: str, name: str) -> list[tuple[str, str]] | None:
    """(status, key) per mutant of the checked-in results (collect), None if not measured."""
    path = RESULTS / kind / f"{name}.json"
    if not path.is_file():
        return None
    mutants = json.loads(path.read_text(encoding="utf-8"))["mutants"]
    return [(status, k) for k, status in mutants.items()]


def tally(kind: str, name: str, reasons: dict[str, str]) -> Tally:
    t = Tally(name)
    found = outcomes(kind, name)
    if found is None:
        t.missing = True
        return t
    for status, k in found:
        if status == "not-viable":
            t.not_viable += 1
            continue
        t.mutants += 1
        if status == "killed":
            t.killed += 1
            continue
        t.survivors.append(k)
        reason = reasons.get(k)
        if reason is None:
            t.unexplained.append(k)
        else:
            t.reasons[reason.split(":", 1)[0]] += 1
    return t


def load_reasons(kind: str, name: str) -> dict[str, str]:
    path = ROOT / "mutation" / "survivors" / kind / f"{name}.json"
    reasons: dict[str, str] = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    for k, reason in reasons.items():
        if reason.split(":", 1)[0] not in KINDS:
            sys.exit(f"{path}: {k!r}: a reason starts with one of {', '.join(KINDS)}")
    return reasons


def _row(t: Tally, bold: bool = False) -> str:
    r = t.reasons
    score = f"{t.score(reachable=False):.1f}%"
    reachable = f"{t.score(reachable=True):.1f}%"
    if bold:
        score, reachable = f"**{score}**", f"**{reachable}**"
    cells = [t.name, t.mutants, t.killed, r["equivalent"], r["message"], r["schema"]]
    cells += [r["unreachable"], len(t.unexplained), score, reachable, t.not_viable]
    return "| " + " | ".join(str(c) for c in cells) + " |"


def table(kind: str, tallies: list[Tally]) -> str:
    head = "crate" if kind == "rust" else "module"
    lines = [
        f"| {head} | mutants | killed | equivalent | message | schema-blocked | unreachable API "
        "| unexplained | score | score (reachable) | not viable |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    total = Tally("**all**")
    for t in tallies:
        if t.missing:
            lines.append(f"| {t.name} | not measured yet |||||||||")
            continue
        lines.append(_row(t))
        total.mutants += t.mutants
        total.killed += t.killed
        total.not_viable += t.not_viable
        total.unexplained += t.unexplained
        for k in KINDS:
            total.reasons[k] += t.reasons[k]
    lines.append(_row(total, bold=True))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--kind", choices=("rust", "js"), action="append", help="default: both")
    parser.add_argument("--unexplained", action="store_true", help="list survivors with no reason")
    parser.add_argument(
        "--collect",
        type=Path,
        action="append",
        metavar="CHECKOUT",
        help="first copy the finished tool reports of this checkout into mutation/results/",
    )
    args = parser.parse_args(argv)
    for root in args.collect or ():
        for line in collect(root.resolve()):
            print(f"collected {line}", file=sys.stderr)
    status = 0
    for kind in args.kind or ("rust", "js"):
        tallies = []
        stale = []
        for name, _ in rows(kind):
            reasons = load_reasons(kind, name)
            t = tally(kind, name, reasons)
            tallies.append(t)
            if not t.missing:
                stale += [k for k in reasons if k not in t.survivors]
        if args.unexplained:
            for t in tallies:
                for k in t.unexplained:
                    print(f"{kind} {t.name}: {k}")
                    status = 1
            continue
        print(f"{'Rust' if kind == 'rust' else 'JS'}:\n\n{table(kind, tallies)}\n")
        for k in stale:
            print(f"stale reason (no such survivor now): {kind} {k}")
    return status


if __name__ == "__main__":
    sys.exit(main())
