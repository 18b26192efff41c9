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


def _tool_outcomes(kind: str, name: str, root: Path) -> list[tuple[str, dict]] | None:
    """(status, mutant) per mutant from a finished run's own report under ``root``,
    status one of killed/survived/not-viable; None when there is no finished report."""
    if kind == "rust":
        path = root / "target" / "mutants" / name / "mutants.out" / "outcomes.json"
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
    return _stryker_outcomes(root / "mutation" / "js" / "reports" / f"{name}.json")


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
    """Each finished report under ``root`` written to mutation/results/<kind>/<name>.json,
    which the tables are read from: the tools' reports are build output and do not
    outlive the machine, these files are checked in."""
    written = []
    for kind in ("rust", "js"):
        for name, files in rows(kind):
            found = _tool_outcomes(kind, name, root)
            if kind == "js":  # HANZO_STRYKER_MUTATE's reruns of some mutants, after the full run
                rerun = _stryker_outcomes(
                    root / "mutation" / "js" / "reports" / f"{name}.rerun.json"
                )
                found = found + rerun if found and rerun else found or rerun
            if found is None:
                continue
            mutants = {key(kind, m): status for status, m in found}  # a rerun's come last
            path = RESULTS / kind / f"{name}.json"
            if path.is_file():
                before = json.loads(path.read_text(encoding="utf-8"))["mutants"]
                if len(mutants) < len(before):  # a rerun of some mutants: update those
                    mutants = {**before, **mutants}
            tool = "cargo-mutants" if kind == "rust" else "stryker"
            doc = {"tool": tool, "vectors": files, "mutants": mutants}
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
