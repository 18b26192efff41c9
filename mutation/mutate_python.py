"""Mutation testing of impl_python/ against the shared vectors (not part of the test suite).

Each mutant is one small change to one library module (an operator, a comparison, a
boolean, a constant, a deleted statement). The vectors of every domain whose JSON
layer imports that module (directly or through other impl_python modules) are run on
the ``python`` platform through the harness API (``runners.run_cases``); the
mutant is *killed* if any case diverges, errors or the run exceeds the time limit,
and *survives* if every case still passes.

Mutants are run against a shadow copy of ``impl_python/`` in a temporary directory
that is put first on ``sys.path`` and ``PYTHONPATH`` of a forked child, so the
working tree is never modified and a platform that starts its own Python process
sees the mutant too. Every child checks that it imported the shadow copy.

    .venv/bin/python mutation/mutate_python.py                 # every module
    .venv/bin/python mutation/mutate_python.py --module sse    # one module
    .venv/bin/python mutation/mutate_python.py --list          # mutants, no runs

Survivors that no vector can kill are listed with a reason in
``mutation/equivalent.json``, keyed by ``module:line:col:operator``; the reason starts
with its kind: ``equivalent:`` (no input at all tells the mutant from the original),
``schema:`` (only inputs the domain schema forbids would), ``unreachable:`` (an API path
no JSON layer calls). The score is killed / (mutants - equivalent); the report also
gives killed / (mutants - all listed). See mutation/README.md.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import copy
import json
import os
import shutil
import signal
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from runners import VectorFile

ROOT = Path(__file__).resolve().parent.parent
LIBRARY = ROOT / "impl_python"
# The only library modules the harness itself imports (the case-root rule's owner).
CASE_ROOT_PACKAGES = frozenset(
    ("impl_python", "impl_python.conformance", "impl_python.conformance.case_root")
)
EQUIVALENT_FILE = Path(__file__).resolve().parent / "equivalent.json"
# Where each domain's JSON layer lives (before and after the impl_<platform>/ layout move).
JSON_LAYER_DIRS = (LIBRARY / "conformance", ROOT / "adapters" / "python_ref")

_BINOP_SWAPS: dict[type[ast.operator], type[ast.operator]] = {
    ast.Add: ast.Sub,
    ast.Sub: ast.Add,
    ast.Mult: ast.FloorDiv,
    ast.FloorDiv: ast.Mult,
    ast.Div: ast.Mult,
    ast.Mod: ast.FloorDiv,
    ast.LShift: ast.RShift,
    ast.RShift: ast.LShift,
    ast.BitAnd: ast.BitOr,
    ast.BitOr: ast.BitAnd,
    ast.BitXor: ast.BitOr,
    ast.Pow: ast.Mult,
}
_CMP_SWAPS: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
}


@dataclass(frozen=True)
class Mutant:
    module: str  # file name under impl_python/, e.g. "sse.py"
    index: int  # position in the module's mutation order
    line: int
    col: int
    operator: str  # e.g. "Lt->LtE", "const 0->1", "delete Assign"

    @property
    def key(self) -> str:
        return f"{self.module}:{self.line}:{self.col}:{self.operator}"


def _skipped_nodes(tree: ast.Module) -> set[int]:
    """ids of nodes never mutated: docstrings, annotations, ``__all__``/``__slots__``,
    error-message texts (not compared by any vector) and f-strings."""
    skip: set[int] = set()

    def all_of(node: ast.AST) -> None:
        skip.update(id(n) for n in ast.walk(node))

    for node in ast.walk(tree):
        # Docstrings, also those of attributes (a bare string after an assignment).
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            all_of(node)
        # Type aliases such as ``Jitter = Literal["none", "full"]``.
        if (
            isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Subscript)
            and isinstance(node.value.value, ast.Name)
            and node.value.value.id in ("Literal", "Callable", "Union", "Optional")
        ):
            all_of(node)
        if isinstance(node, (ast.arg, ast.AnnAssign)) and node.annotation is not None:
            all_of(node.annotation)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.returns:
            all_of(node.returns)
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id in ("__all__", "__slots__") for t in node.targets
        ):
            all_of(node)
        if isinstance(node, ast.JoinedStr):
            all_of(node)
        if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call):
            for arg in node.exc.args:
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    all_of(arg)
        if (
            isinstance(node, ast.If)
            and isinstance(node.test, ast.Name)
            and node.test.id == "TYPE_CHECKING"
        ):
            all_of(node)
        if isinstance(node, ast.ImportFrom | ast.Import):
            all_of(node)
        # Decorators (``@dataclass(frozen=True)``) configure class machinery that no
        # JSON output can show.
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            for decorator in node.decorator_list:
                all_of(decorator)
        # A ``TypeAlias = "..."`` string is an annotation, not data.
        if (
            isinstance(node, ast.AnnAssign)
            and isinstance(node.annotation, ast.Name)
            and node.annotation.id == "TypeAlias"
        ):
            all_of(node)
    return skip


def _points(tree: ast.Module) -> Iterator[tuple[ast.AST, str, str]]:
    """(node, kind, operator) for every mutation point, in a deterministic order."""
    skip = _skipped_nodes(tree)
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.BinOp) and type(node.op) in _BINOP_SWAPS:
            new = _BINOP_SWAPS[type(node.op)]
            yield node, "binop", f"{type(node.op).__name__}->{new.__name__}"
        elif isinstance(node, ast.AugAssign) and type(node.op) in _BINOP_SWAPS:
            new = _BINOP_SWAPS[type(node.op)]
            yield node, "augop", f"aug {type(node.op).__name__}->{new.__name__}"
        elif isinstance(node, ast.Compare):
            for i, op in enumerate(node.ops):
                if type(op) in _CMP_SWAPS:
                    yield node, f"cmp{i}", f"{type(op).__name__}->{_CMP_SWAPS[type(op)].__name__}"
        elif isinstance(node, ast.BoolOp):
            new_name = "Or" if isinstance(node.op, ast.And) else "And"
            yield node, "boolop", f"{type(node.op).__name__}->{new_name}"
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.Not, ast.USub)):
            yield node, "unary", f"drop {type(node.op).__name__}"
        elif isinstance(node, ast.Constant):
            value = node.value
            if isinstance(value, bool):
                yield node, "const", f"const {value}->{not value}"
            elif isinstance(value, int):
                yield node, "const", f"const {value}->{value + 1}"
            elif isinstance(value, str):
                yield node, "const", "const str->" + ("'X'" if value == "" else "''")
        elif isinstance(node, (ast.If, ast.While)):
            yield node, "negate", f"negate {type(node).__name__}"
        elif isinstance(node, ast.Break):
            yield node, "break", "break->continue"
        elif isinstance(node, ast.Continue):
            yield node, "continue", "continue->break"
        deletable = (ast.Assign, ast.AugAssign, ast.Expr, ast.Raise, ast.Return)
        returns_none = isinstance(node, ast.Return) and (
            node.value is None
            or (isinstance(node.value, ast.Constant) and node.value.value is None)
        )
        if isinstance(node, deletable) and not returns_none:
            yield node, "delete", f"delete {type(node).__name__}"


def _apply(node: ast.AST, kind: str) -> None:
    """Mutate ``node`` in place."""
    if kind == "binop" or kind == "augop":
        node.op = _BINOP_SWAPS[type(node.op)]()  # type: ignore[attr-defined]
    elif kind.startswith("cmp"):
        i = int(kind[3:])
        ops = node.ops  # type: ignore[attr-defined]
        ops[i] = _CMP_SWAPS[type(ops[i])]()
    elif kind == "boolop":
        node.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()  # type: ignore[attr-defined]
    elif kind == "const":
        value = node.value  # type: ignore[attr-defined]
        if isinstance(value, bool):
            node.value = not value  # type: ignore[attr-defined]
        elif isinstance(value, int):
            node.value = value + 1  # type: ignore[attr-defined]
        else:
            node.value = "X" if value == "" else ""  # type: ignore[attr-defined]
    elif kind == "unary":
        operand = node.operand  # type: ignore[attr-defined]
        if isinstance(node.op, ast.Not):  # type: ignore[attr-defined]
            # "not x" -> "bool(x)": the same type, the opposite truth.
            node.__class__ = ast.Call
            node.func = ast.Name("bool", ast.Load())  # type: ignore[attr-defined]
            node.args = [operand]  # type: ignore[attr-defined]
            node.keywords = []  # type: ignore[attr-defined]
        else:
            node.op = ast.UAdd()  # type: ignore[attr-defined]
    elif kind == "negate":
        node.test = ast.UnaryOp(ast.Not(), node.test)  # type: ignore[attr-defined]
    elif kind == "break":
        node.__class__ = ast.Continue
    elif kind == "continue":
        node.__class__ = ast.Break
    elif kind == "delete":
        # Keep a statement so the block stays valid; Return becomes "return None".
        if isinstance(node, ast.Return):
            node.value = None
        else:
            node.__class__ = ast.Pass
            for field in ("targets", "target", "value", "op", "exc", "cause"):
                if hasattr(node, field):
                    delattr(node, field)


def mutants_of(module: str) -> tuple[ast.Module, list[Mutant]]:
    tree = ast.parse((LIBRARY / module).read_text(encoding="utf-8"))
    found = [
        Mutant(module, i, getattr(n, "lineno", 0), getattr(n, "col_offset", 0), op)
        for i, (n, _kind, op) in enumerate(_points(tree))
    ]
    return tree, found


def mutated_source(tree: ast.Module, index: int) -> str:
    tree = copy.deepcopy(tree)
    node, kind, _ = list(_points(tree))[index]
    _apply(node, kind)
    return ast.unparse(ast.fix_missing_locations(tree))


# --- which domains exercise which module -------------------------------------------


def _imported_library_modules(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            parts = node.module.split(".")
            if parts[0] == "impl_python" and len(parts) == 2:
                found.add(parts[1] + ".py")
    return found


def domains_by_module() -> dict[str, list[str]]:
    """For each library module, the domains whose JSON layer reaches it through imports."""
    library = {p.name for p in LIBRARY.glob("*.py") if p.name != "__init__.py"}
    direct = {m: _imported_library_modules(LIBRARY / m) for m in library}

    def closure(start: set[str]) -> set[str]:
        seen: set[str] = set()
        todo = [m for m in start if m in library]
        while todo:
            m = todo.pop()
            if m not in seen:
                seen.add(m)
                todo.extend(x for x in direct[m] if x in library)
        return seen

    result: dict[str, list[str]] = {m: [] for m in library}
    layer_dir = next((d for d in JSON_LAYER_DIRS if d.is_dir()), None)
    if layer_dir is None:
        raise SystemExit(f"no JSON layer directory among {[str(d) for d in JSON_LAYER_DIRS]}")
    for layer in sorted(layer_dir.glob("*.py")):
        if layer.name.startswith("_"):
            continue
        domain = layer.stem.replace("_", "-")
        for module in closure(_imported_library_modules(layer)):
            result[module].append(domain)
    return result


def files_by_domain(files: Iterable[VectorFile]) -> dict[str, list[VectorFile]]:
    """Every vector file of each domain (mcp-stdio has two: decode/session and encode/spawn)."""
    by_domain: dict[str, list[VectorFile]] = {}
    for vector_file in files:
        by_domain.setdefault(vector_file.domain, []).append(vector_file)
    return by_domain


def direct_domains() -> dict[str, set[str]]:
    """For each library module, the domains whose JSON layer imports it itself."""
    found: dict[str, set[str]] = {}
    layer_dir = next((d for d in JSON_LAYER_DIRS if d.is_dir()), None)
    for layer in sorted(layer_dir.glob("[!_]*.py")) if layer_dir else []:
        for module in _imported_library_modules(layer):
            found.setdefault(module, set()).add(layer.stem.replace("_", "-"))
    return found


# --- running ------------------------------------------------------------------------


FIXTURES_ENV = "HANZO_HOOK_FIXTURES"


def export_fixtures() -> None:
    """Point the shadow copy's JSON layers at this checkout's ``fixtures/hooks``.

    The hooks and tool-call-pipeline layers look for the hook programs beside their own
    file (``<checkout>/fixtures/hooks``); in the shadow copy that is the temporary
    directory, which has none. They honour ``HANZO_HOOK_FIXTURES`` first; set it here,
    before any child forks, whatever the harness would default it to.
    """
    os.environ[FIXTURES_ENV] = str(ROOT / "fixtures" / "hooks")


_CHUNK = 16  # cases per batch: the child stops at the first batch that does not pass


def _run_child(shadow: Path, files: list[VectorFile]) -> None:
    """In the forked child: import the shadow impl_python, run the files' cases on the
    python platform, and exit 0 iff every case passes."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    sys.path.insert(0, str(shadow))
    os.environ["PYTHONPATH"] = os.pathsep.join(
        [str(shadow), str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]
    )
    # The OS domains run in a confined child, `python -m adapters.serve`, which puts its
    # working directory first on sys.path: in the checkout that finds the unmutated
    # impl_python before PYTHONPATH's copy. Started in the shadow folder, it finds the copy.
    os.chdir(shadow)
    import impl_python

    if not str(impl_python.__file__).startswith(str(shadow)):
        os._exit(3)  # the shadow copy was not picked up: the result would mean nothing
    from adapters.registry import create
    from runners import run_cases, start_platform

    # In-process: this forked child is the isolation (it is SIGKILLed on a timeout); a
    # served child (adapters/served.py) runs in a session of its own and would outlive it.
    platform = start_platform("python", lambda: create("python", in_process=True))
    for vector_file in files:
        cases = vector_file.cases
        for at in range(0, len(cases), _CHUNK):
            outcomes = run_cases(platform, vector_file, cases[at : at + _CHUNK])
            if any(o.status != "pass" for o in outcomes):
                os._exit(1)
    os._exit(0)


def run_domains(shadow: Path, files: list[VectorFile], limit: float) -> str:
    """'pass', 'fail', 'timeout' or 'broken' (the child could not use the shadow copy)."""
    pid = os.fork()
    if pid == 0:
        try:
            # A process group of its own: the hooks domains start hook programs (some
            # sleep or daemonize on purpose), and a mutant may leave them behind.
            os.setpgid(0, 0)
            _run_child(shadow, files)
        finally:
            os._exit(4)
    deadline = time.monotonic() + limit
    try:
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                code = os.waitstatus_to_exitcode(status)
                return {0: "pass", 3: "broken"}.get(code, "fail")
            if time.monotonic() > deadline:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                return "timeout"
            time.sleep(0.005)
    finally:
        _kill_group(pid)


def _kill_group(pgid: int) -> None:
    """Kill whatever the child's process group still holds (hook programs a mutant left)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--module", action="append", default=[], help="e.g. sse (repeatable)")
    parser.add_argument("--list", action="store_true", help="list the mutants and exit")
    parser.add_argument(
        "--mutant",
        action="append",
        default=[],
        metavar="KEY",
        help="run only this mutant (module:line:col:operator, as --list prints; repeatable)",
    )
    parser.add_argument("--json", help="also write every mutant's outcome to this file")
    parser.add_argument(
        "--report", metavar="JSON", help="report the outcomes saved by --json, running nothing"
    )
    args = parser.parse_args(argv)
    equivalent: dict[str, str] = json.loads(EQUIVALENT_FILE.read_text(encoding="utf-8"))
    if args.report:
        rows = json.loads(Path(args.report).read_text(encoding="utf-8"))
        rows = rows["mutants"] if isinstance(rows, dict) else rows  # older layout
        saved = []
        for i, r in enumerate(rows):
            module, line, col, operator = r["key"].split(":", 3)
            saved.append((Mutant(module, i, int(line), int(col), operator), r["outcome"]))
        report(saved, equivalent, whole_library=not args.module)
        return 0

    # The harness is imported once here and inherited by every forked child; the
    # library must not be, so that each child imports its shadow copy.
    sys.path.insert(0, str(ROOT))
    export_fixtures()
    import adapters.registry  # noqa: F401
    from runners import load_vectors

    vectors = files_by_domain(load_vectors([ROOT / "vectors"]))
    # The loader checks case roots with the reference's own rule
    # (runners/vectors/confinement.py imports impl_python.conformance.case_root, a JSON
    # layer, never mutated). It keeps its reference; the children import afresh.
    shared = [name for name in sys.modules if name.split(".")[0] == "impl_python"]
    if any(name not in CASE_ROOT_PACKAGES for name in shared):
        raise SystemExit(
            f"impl_python was imported before forking; mutants would not be seen: {shared}"
        )
    for name in shared:
        del sys.modules[name]
    coverage = domains_by_module()
    modules = sorted(coverage)
    if args.module:
        modules = [m for m in modules if m.removesuffix(".py") in args.module]
    if args.mutant:
        modules = [m for m in modules if any(k.startswith(m + ":") for k in args.mutant)]

    if args.list:
        for module in modules:
            for mutant in mutants_of(module)[1]:
                print(mutant.key)
        return 0

    outcomes: list[tuple[Mutant, str]] = []
    with tempfile.TemporaryDirectory(prefix="mutate-python-") as tmp:
        shadow = Path(tmp)
        shutil.copytree(
            LIBRARY, shadow / "impl_python", ignore=shutil.ignore_patterns("__pycache__")
        )
        for module in modules:
            domains = coverage[module]
            files = [f for d in domains for f in vectors.get(d, [])]
            tree, mutants = mutants_of(module)
            if args.mutant:
                mutants = [m for m in mutants if m.key in args.mutant]
            if not domains:
                outcomes += [(m, "unreached") for m in mutants]
                continue
            target = shadow / "impl_python" / module
            original = target.read_text(encoding="utf-8")
            # Baseline, one domain at a time: the mutants then run the fastest domain
            # first, so that most of them are killed before the slow ones start.
            took_by_file: dict[Path, float] = {}
            for vector_file in files:
                started = time.monotonic()
                baseline = run_domains(shadow, [vector_file], limit=600)
                took_by_file[vector_file.path] = time.monotonic() - started
                if baseline != "pass":
                    print(
                        f"{module}: the unmutated library does not pass {vector_file.path.name} "
                        f"({baseline}); fix that first"
                    )
                    return 2
            # The domains that call the module themselves first (they kill most
            # mutants in their first batch), then the fastest.
            direct = direct_domains().get(module, set())
            files.sort(key=lambda f: (f.domain not in direct, took_by_file[f.path]))
            took = sum(took_by_file.values())
            limit = max(10.0, 5 * took)
            print(
                f"{module}: {len(mutants)} mutants, vector files (in run order) "
                f"{', '.join(f'{f.path.name} {took_by_file[f.path]:.1f}s' for f in files)}",
                flush=True,
            )
            try:
                for done, mutant in enumerate(mutants, 1):
                    target.write_text(mutated_source(tree, mutant.index), encoding="utf-8")
                    outcome = run_domains(shadow, files, limit)
                    if outcome == "broken":
                        print("the shadow copy was not imported; aborting")
                        return 2
                    outcomes.append((mutant, outcome))
                    if done % 50 == 0:
                        print(f"  {done}/{len(mutants)}", flush=True)
            finally:
                target.write_text(original, encoding="utf-8")

    report(outcomes, equivalent, whole_library=not (args.module or args.mutant))
    if args.json:
        rows = [{"key": m.key, "outcome": o} for m, o in outcomes]
        Path(args.json).write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    return 0


def report(
    outcomes: list[tuple[Mutant, str]], equivalent: dict[str, str], *, whole_library: bool
) -> None:
    survivors = []
    totals = dict.fromkeys(
        ("mutants", "killed", "equivalent", "schema", "unreachable", "survived", "unreached"), 0
    )
    by_module: dict[str, dict[str, int]] = {}
    for mutant, outcome in outcomes:
        counts = by_module.setdefault(mutant.module, dict.fromkeys(totals, 0))
        status = {"fail": "killed", "timeout": "killed"}.get(outcome, outcome)
        if status == "pass":
            reason = equivalent.get(mutant.key)
            status = "survived" if reason is None else reason.split(":", 1)[0]
            if status not in totals:
                raise SystemExit(f"{EQUIVALENT_FILE.name}: {mutant.key}: unknown kind {status!r}")
        for c in (counts, totals):
            c["mutants"] += 1
            c[status] += 1
        if status == "survived":
            source = (LIBRARY / mutant.module).read_text(encoding="utf-8")
            line = source.splitlines()[mutant.line - 1]
            survivors.append(f"  {mutant.key}    {line.strip()}")

    def percent(killed: int, judged: int) -> str:
        return f"{100 * killed / judged:.1f}%" if judged else "-"

    def row(name: str, c: dict[str, int]) -> str:
        listed = c["equivalent"] + c["schema"] + c["unreachable"]
        return (
            f"| {name} | {c['mutants']} | {c['killed']} | {c['equivalent']} | {c['schema']} | "
            f"{c['unreachable']} | {c['survived']} | {c['unreached']} | "
            f"{percent(c['killed'], c['mutants'] - c['equivalent'])} | "
            f"{percent(c['killed'], c['mutants'] - listed)} |"
        )

    print(
        "\n| module | mutants | killed | equivalent | schema-blocked | unreachable API "
        "| survived | module unreached | score | score (reachable) |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for module, c in sorted(by_module.items()):
        print(row(module, c))
    print(row("**all**", totals))
    print(
        "\nscore = killed / (mutants - equivalent); "
        "score (reachable) = killed / (mutants - equivalent - schema-blocked - unreachable API)"
    )
    if survivors:
        print(f"\n{len(survivors)} survivors not listed in {EQUIVALENT_FILE.name}:")
        print("\n".join(survivors))
    stale = sorted(set(equivalent) - {m.key for m, _ in outcomes})
    if stale and whole_library:  # the library changed under these entries: review them
        print(f"\n{len(stale)} entries of {EQUIVALENT_FILE.name} match no mutant:")
        print("\n".join(f"  {k}" for k in stale))


if __name__ == "__main__":
    sys.exit(main())
