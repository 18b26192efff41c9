"""hanzo-conformance: validate, list and run the shared vectors across platforms."""

from __future__ import annotations

import argparse
import contextlib
import json
import shutil
import signal
import sys
import tempfile
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, Any

from . import _options as opt
from ._output import check_writable, refuse_inputs, write_atomically, write_results
from .exceptions import HarnessError, VectorFileError
from .gate.ledger import LedgerGate, ledger_from_results, ledger_text, load_ledger
from .gate.verdict import EXIT_USAGE, exit_code
from .judge.marks import ClauseMarks
from .reports.history import render_history
from .reports.html import render_html
from .reports.markdown import render_markdown
from .reports.meta import isolation, run_metadata
from .reports.results_file import ResultsWriter, put_in_place, read_results
from .reports.text import Problems, render_text, text_report
from .run import merge, signals
from .run import stream as _stream
from .run.batches import StartedPlatform
from .run.jobs import run_jobs
from .run.platforms import describe, factories, stop_all
from .run.progress import Progress
from .run.progress import wanted as progress_wanted
from .vectors.clauses import DEPARTS_FROM, FILLS_GAP, SECURITY, domain_contract, marked_clauses
from .vectors.format import canonical
from .vectors.load import VECTORS_DIR, VectorFile, load_vectors, vector_paths
from .vectors.schemas import extra_schema_dirs
from .vectors.stream import VectorSource


def _sources(args: argparse.Namespace) -> list[Path]:
    sources = [] if args.no_default_vectors else [VECTORS_DIR]
    return sources + [Path(p) for p in args.vectors]


def _load(args: argparse.Namespace) -> list[VectorFile]:
    files = load_vectors(_sources(args))
    if args.domain:
        unknown = set(args.domain) - {vf.domain for vf in files}
        if unknown:
            raise HarnessError(f"no vectors for domain(s): {', '.join(sorted(unknown))}")
        files = [vf for vf in files if vf.domain in args.domain]
    if not files:
        raise HarnessError("no vector files found in " + ", ".join(map(str, _sources(args))))
    return sorted(files, key=lambda vf: (vf.domain, str(vf.path)))


def cmd_validate(args: argparse.Namespace) -> int:
    files = _load(args)
    total = sum(len(vf.cases) for vf in files)
    print(f"ok: {len(files)} vector files, {total} cases, all valid against schemas/")
    return 0


def _shown(path: Path) -> str:
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def cmd_fmt(args: argparse.Namespace) -> int:
    """Rewrite vector files in the canonical layout; only files that validate are touched."""
    # Validation raises (exit 2) naming every problem before anything is written.
    files = load_vectors(vector_paths(_sources(args)))
    paths = [vf.path for vf in files if not args.domain or vf.domain in args.domain]
    unformatted = []
    for path in paths:
        text = path.read_text(encoding="utf-8")
        formatted = canonical(json.loads(text))
        if formatted != text:
            unformatted.append(path)
            if not args.check:
                write_atomically(path, formatted)
    verb = "would reformat" if args.check else "reformatted"
    for path in unformatted:
        print(f"{verb} {_shown(path)}")
    print(f"{len(paths) - len(unformatted)} of {len(paths)} vector files already canonical")
    return 1 if args.check and unformatted else 0


def cmd_list(args: argparse.Namespace) -> int:
    files = _load(args)
    for vf in files:
        errors = sum(c.expects_error for c in vf.cases)
        tags = Counter(t for c in vf.cases for t in c.tags)
        print(f"{vf.domain}  ({vf.path.name}): {len(vf.cases)} cases, {errors} expect an error")
        if tags:
            print("  tags: " + ", ".join(f"{t} ({n})" for t, n in sorted(tags.items())))
        _list_marked(vf)
    return 0


def _clause_order(item: tuple[str, Any]) -> tuple[str, int, str]:
    """CFG-2 before CFG-10: by prefix, number, then letter."""
    prefix, _, rest = item[0].rpartition("-")
    digits = rest.rstrip("abcdefghijklmnopqrstuvwxyz")
    return prefix, int(digits) if digits.isdigit() else 0, rest[len(digits) :]


def _list_marked(vf: VectorFile) -> None:
    """The domain's clauses that depart from HIP-301 (or fill a gap in it) and its
    security-relevant ones, each with the number of cases citing it and why."""
    contract = domain_contract(vf.domain)
    if contract is None or not contract.markers:
        return
    citing = Counter(clause for c in vf.cases for clause in c.clauses)
    for title, kinds in (
        ("departs from HIP-301 or fills a gap in it", (DEPARTS_FROM, FILLS_GAP)),
        ("security-relevant", (SECURITY,)),
    ):
        lines = [
            f"    {clause} ({citing[clause]} case{'s' if citing[clause] != 1 else ''}): "
            + (m.text() if m.kind != SECURITY else m.reason)
            for clause, markers in sorted(contract.markers.items(), key=_clause_order)
            for m in markers
            if m.kind in kinds
        ]
        if lines:
            print(f"  {title}:")
            print("\n".join(lines))


def cmd_run(args: argparse.Namespace) -> int:
    output = Path(args.output) if args.output else None
    if output is not None:
        check_writable(output)  # before anything runs: a typo never costs a run
    vectors = VectorSource(_sources(args), args.domain)
    if output is not None:
        inputs = [("the vector file", p) for p in vectors.paths]
        refuse_inputs(output, inputs + [("the ledger", Path(p)) for p in args.expectations])
    ledgers = [load_ledger(Path(p)) for p in args.expectations]
    chosen = factories(args.platform, args.worker, args.case_timeout, args.in_process)
    writer = ResultsWriter(_spool_folder(output)) if args.format == "json" else None
    # The full text report (--output with --format text) lists every problem: they wait
    # in a file of their own, not in memory.
    spool = (
        tempfile.TemporaryFile("w+", encoding="utf-8", errors="backslashreplace")  # noqa: SIM115
        if output is not None and writer is None
        else None
    )
    try:
        return _stream_run(args, output, vectors, ledgers, chosen, writer, spool)
    finally:
        if writer is not None:
            writer.discard()  # nothing left once the results are in place
        if spool is not None:
            spool.close()


def _spool_folder(output: Path | None) -> Path | None:
    """Beside ``--output`` (so the finished file is renamed into place), else the system's."""
    if output is None or output.is_symlink() or (output.exists() and not output.is_file()):
        return None
    return output.parent if str(output.parent) else Path(".")


def _stream_run(
    args: argparse.Namespace,
    output: Path | None,
    vectors: VectorSource,
    ledgers: list[Any],
    chosen: Sequence[tuple[str, Callable[[], Any]]],
    writer: ResultsWriter | None,
    spool: IO[str] | None,
) -> int:
    groups = vectors.split(args.jobs) if args.jobs > 1 else []
    if len(groups) > 1:
        return _jobs_run(args, output, vectors, ledgers, chosen, writer, spool, groups)
    state = _stream.RunState()
    platforms: list[StartedPlatform] = []
    progress = _progress_bar(args, vectors, len(chosen))
    # A signal stops the run between chunks or while it waits, never amid a write; after
    # the run, building the report and writing it are not interrupted at all.
    with signals.handled(signal.SIG_IGN):
        with signals.handled(_stream.interrupt_handler(state)):
            platforms = _stream.start_platforms(chosen, state)
            by_name = {p.name: p for p in platforms}

            def shared(platform: str, message: str) -> bool:
                """The message a platform gives every case at once: it did not start, or
                it was declared broken (known by the time its cases are written)."""
                p = by_name.get(platform)
                if p is None:
                    return False
                return message in (p.failure, p.adapter and p.adapter.broken)

            gate = LedgerGate(ledgers, by_name)
            problems = Problems(shared, args.max_problems, spool, ClauseMarks.from_contracts())
            sink = _stream.Sink(gate, problems, writer, progress.advance if progress else None)
            try:
                interrupted = _stream.run(
                    vectors.files(),
                    vectors.runs,
                    args.shard,
                    platforms,
                    sink,
                    state,
                    lambda: stop_all(platforms),
                )
            finally:
                stop_all(platforms)
                if progress:
                    progress.close()
        described = {p.name: describe(p) for p in platforms}
        summary = _summary(sink, described, ledgers, args.shard, opt.recorded_options(args))
        code = _report_run(args, output, summary, sink, writer, spool)
    return 128 + interrupted if interrupted is not None else code


def _jobs_run(
    args: argparse.Namespace,
    output: Path | None,
    vectors: VectorSource,
    ledgers: list[Any],
    chosen: Sequence[tuple[str, Callable[[], Any]]],
    writer: ResultsWriter | None,
    spool: IO[str] | None,
    groups: list[list[Path]],
) -> int:
    """``_stream_run`` with the files split across harness jobs (``runners.run.jobs``)."""
    progress = _progress_bar(args, vectors, len(chosen))
    gate = LedgerGate(ledgers, [name for name, _ in chosen])
    problems = Problems(
        lambda _platform, _message: False, args.max_problems, spool, ClauseMarks.from_contracts()
    )
    sink = _stream.Sink(gate, problems, writer, progress.advance if progress else None)
    with signals.handled(signal.SIG_IGN):  # after the run: the report is written whole
        try:
            interrupted, platforms = run_jobs(
                vectors, groups, args.shard, chosen, sink, _spool_folder(output)
            )
        finally:
            if progress:
                progress.close()
        summary = _summary(sink, platforms, ledgers, args.shard, opt.recorded_options(args))
        code = _report_run(args, output, summary, sink, writer, spool)
    return 128 + interrupted if interrupted is not None else code


def _summary(
    sink: _stream.Sink,
    platforms: dict[str, Any],
    ledgers: list[Any],
    shard: tuple[int, int] | None,
    options: dict[str, Any],
) -> dict[str, Any]:
    """The results document's summary, from what went through ``sink`` (``run``'s and
    ``merge``'s: one maker)."""
    summary = sink.tally.summary(platforms)
    summary["run"] = run_metadata(sink.digest)
    note = isolation(summary)
    if note is not None:
        summary["run"]["isolation"] = note
    if shard:
        summary["run"]["shard"] = f"{shard[0]}/{shard[1]}"
    summary["run"]["options"] = options
    if ledgers:
        summary["expectations"] = {
            "ledgers": [str(ledger.path) for ledger in ledgers],
            "problems": [p.to_json() for p in sink.gate.problems()],
        }
    summary["marked_clauses"] = marked_clauses(sink.domains)
    summary["clusters"] = [
        sink.marks.to_json(c) for c in sink.marks.ordered(sink.clusters.clusters())
    ]
    summary["triage"] = sink.triage
    if sink.triage_omitted:
        summary["triage_omitted"] = sink.triage_omitted
    return summary


def _report_run(
    args: argparse.Namespace,
    output: Path | None,
    summary: dict[str, Any],
    sink: _stream.Sink,
    writer: ResultsWriter | None,
    spool: IO[str] | None,
) -> int:
    """Print the run's report and write ``--output``; the exit code (before any signal's)."""
    causes = sink.clusters.clusters()
    problems = sink.problems
    if output is None:
        rest = "`run --output FILE` writes every one"
    elif writer is not None:
        rest = f"`hanzo-conformance report {output} --output FILE` writes every one"
    else:
        rest = f"every one is in {output}"
    head, tail = text_report(summary, causes, problems, args.max_problems, sink.marks, rest)
    table = "\n\n".join([*head, *problems.kept[: args.max_problems], *tail])
    code = exit_code({"summary": summary})
    failure = None
    if writer is not None:
        written = writer.finish(summary)
        failure = writer.failure and f"hanzo-conformance: {writer.failure}"
        if output is None:
            sys.stdout.flush()
            return EXIT_USAGE if (failure or put_in_place(written, None)) else code
        failure = failure or put_in_place(written, output)
    elif output is not None and spool is not None:
        # The file is the full report: every problem.
        head, tail = text_report(summary, causes, problems, None, sink.marks)
        failure = _write_full_report(output, head, spool, tail)
    print(table)
    if output is None:
        sys.stdout.flush()
        return code
    if failure:
        print(failure, file=sys.stderr)
        sys.stdout.flush()
        return EXIT_USAGE
    print(f"\nfull {'results' if args.format == 'json' else 'report'} written to {output}")
    sys.stdout.flush()
    return code


def _write_full_report(
    output: Path, head: list[str], spool: IO[str], tail: list[str]
) -> str | None:
    """The text report with every problem block (from ``spool``), written to ``output``."""
    try:
        with open(output, "w", encoding="utf-8", errors="backslashreplace") as stream:
            for part in head:
                stream.write(part + "\n\n")
            spool.seek(0)
            shutil.copyfileobj(spool, stream, 1 << 20)
            stream.write("\n\n".join(tail) + "\n")
    except OSError as e:
        return f"hanzo-conformance: the results could not be written to {output}: {e.strerror or e}"
    return None


def _progress_bar(
    args: argparse.Namespace, vectors: VectorSource, platforms: int
) -> Progress | None:
    if not progress_wanted(sys.stderr, args.quiet):
        return None
    cases = vectors.case_count(args.shard)
    return Progress(cases * platforms if cases is not None else None)


def cmd_merge(args: argparse.Namespace) -> int:
    """Join the results files of the shards of one run into the run's (``runners.run.merge``)."""
    output = Path(args.output)
    check_writable(output)
    paths = [Path(p) for p in args.results]
    refuse_inputs(output, [("the results file it reads,", p) for p in paths])
    shards = merge.read_shards(paths)
    merge.check_harness(shards)
    options = merge.options(shards)
    vectors = VectorSource(_sources(args), options.get("domain", []))
    ledgers = [load_ledger(Path(p)) for p in merge.ledger_paths(shards)]
    platforms = merge.platforms(shards)
    writer = ResultsWriter(_spool_folder(output))
    try:
        gate = LedgerGate(ledgers, platforms)

        def shared(platform: str, message: str) -> bool:
            """As in a run: the message a platform gave every case at once."""
            info = platforms.get(platform, {})
            return bool(message) and message in (info.get("failure"), info.get("broken"))

        sink = _stream.Sink(gate, Problems(shared, args.max_problems, None), writer)
        merge.replay(shards, vectors, sink)
        summary = _summary(sink, platforms, ledgers, None, options)
        summary["run"] = merge.merged_run(shards, summary["run"])
        print(f"merged shards {', '.join(f'{s.name} ({s.path})' for s in shards)}\n")
        return _report_run(args, output, summary, sink, writer, None)
    finally:
        writer.discard()


def merge_parser(sub: Any) -> None:
    p = sub.add_parser(
        "merge",
        help="join the results files of the shards of one run (`run --shard I/N`) into one",
    )
    p.add_argument(
        "results", nargs="+", metavar="RESULTS", help="every shard's `run --format json` results"
    )
    opt.OUTPUT.add(p, required=True, help="write the merged results here")
    opt.VECTORS.add(p, help="the --vectors the shards were run with (repeatable)")
    opt.NO_DEFAULT_VECTORS.add(p)
    opt.SCHEMAS.add(p)
    opt.MAX_PROBLEMS.add(p, help="failures printed in full (default 10; the results have all)")
    p.set_defaults(func=cmd_merge, format="json")


def cmd_report(args: argparse.Namespace) -> int:
    output = Path(args.output) if args.output else None
    if output is not None:
        check_writable(output)
        refuse_inputs(output, [("the results file it reads,", Path(args.results))])
    doc = read_results(Path(args.results))
    # Only the terminal view is bounded; a report written to a file has every problem.
    bounded = args.max_problems if output is None else None
    text = render_report(doc, args.format, bounded, args.results)
    if output is None:
        print(text)
        return exit_code(doc)
    failure = write_results(output, text if text.endswith("\n") else text + "\n")
    if failure:
        print(failure, file=sys.stderr)
        return EXIT_USAGE
    print(f"{args.format} report written to {output}")
    return exit_code(doc)


def render_report(
    doc: dict[str, Any], fmt: str, max_problems: int | None, results: str = "RESULTS"
) -> str:
    """The report in ``fmt``; ``max_problems`` None: every problem (a report written to a
    file), else bounded (the terminal), each cut saying how to see the rest."""
    rest = f"`hanzo-conformance report {results} --format {fmt} --output FILE` writes every one"
    if fmt == "markdown":
        return render_markdown(doc, bounded=max_problems is not None, rest=rest)
    if fmt == "html":
        return render_html(doc)
    return render_text(doc, max_problems=max_problems, rest=rest)


def report_options(p: argparse.ArgumentParser) -> None:
    """report's formats (issue 9): text, Markdown (PR comment, step summary), HTML (one file)."""
    p.add_argument("--format", choices=("text", "markdown", "html"), default="text")
    p.add_argument("--output", metavar="FILE", help="write the report here instead of stdout")


def cmd_expectations(args: argparse.Namespace) -> int:
    """Write (or rewrite) a platform's ledger from a run's results, for a maintainer to review."""
    doc = read_results(Path(args.results))
    target = Path(args.update)
    previous = load_ledger(target) if target.exists() else None
    platform = args.platform or (previous.platform if previous else None)
    if platform is None:
        names = [p for p in doc["summary"]["platforms"] if p != "python"]
        if len(names) != 1:
            raise HarnessError("say which platform's ledger to write: --platform NAME")
        platform = names[0]
    if platform not in doc["summary"]["platforms"]:
        raise HarnessError(f"{args.results} has no results for platform {platform!r}")
    info = doc["summary"]["platforms"][platform]
    if info.get("failure") or info.get("broken"):
        # Every case's error would then be written down as a known divergence.
        why = info.get("failure") or info.get("broken")
        raise HarnessError(
            f"{platform} did not run its cases in {args.results} ({why}): no ledger is "
            "written from that; make it run, then run again"
        )
    ledger = ledger_from_results(doc, platform, previous)
    check_writable(target)
    write_atomically(target, ledger_text(ledger))
    clusters = sum("cluster" in e for e in ledger["entries"])
    print(
        f"wrote {target}: {len(ledger['entries'])} entries for {platform} "
        f"({clusters} cluster entries); review each reason, link and owner"
    )
    return 0


def gate_options(p: argparse.ArgumentParser) -> None:
    """run's ledger, sharding and progress options (issue 9)."""
    p.add_argument(
        "-q", "--quiet", action="store_true", help="no progress bar (it is off in CI anyway)"
    )
    opt.EXPECTATIONS.add(p)
    opt.SHARD.add(p)


def cmd_history(args: argparse.Namespace) -> int:
    docs = [(path, read_results(Path(path))) for path in args.results]
    print(render_history(docs))
    return 0


def history_parser(sub: Any) -> None:
    p = sub.add_parser(
        "history", help="which cases changed status across several saved runs (oldest first)"
    )
    p.add_argument("results", nargs="+", metavar="FILE", help="`run --format json` results")
    p.set_defaults(func=cmd_history)


def expectations_parser(sub: Any) -> None:
    p = sub.add_parser(
        "expectations", help="write a platform's expectations ledger from a run's results"
    )
    p.add_argument("--update", required=True, metavar="LEDGER", help="the ledger file to write")
    p.add_argument(
        "--results", required=True, metavar="FILE", help="a `run --format json` results file"
    )
    p.add_argument("--platform", help="whose ledger (default: the ledger's, or the only one)")
    p.set_defaults(func=cmd_expectations)


def cmd_generate(args: argparse.Namespace) -> int:
    from .generate.cli import generate

    return generate(args)


def cmd_promote(args: argparse.Namespace) -> int:
    from .generate.candidates import promote

    target = promote(
        args.domain,
        args.candidate,
        args.id,
        args.description,
        args.clause or None,
        vectors_dir=args.vectors_dir,
    )
    print(f"promoted {args.candidate} to {_shown(target)} as {args.id}")
    return 0


def add_generate_parsers(sub: Any) -> None:
    """``generate`` and ``promote`` (issue 10)."""
    p = sub.add_parser("generate", help="search for inputs the platforms disagree on (Hypothesis)")
    opt.DOMAIN.add(p, required=True, help="domain (repeatable)")
    opt.PLATFORM.add(
        p, help="compare this platform with the python reference (repeatable; default all)"
    )
    opt.WORKER.add(p, help="also compare an out-of-process platform speaking docs/protocol.md")
    opt.CASE_TIMEOUT.add(p)
    opt.MAX_EXAMPLES.add(p)
    opt.BATCH.add(p)
    p.add_argument(
        "--tmpdir",
        default="auto",
        metavar="DIR",
        help="where platforms make case directories (trees, settings files, hook roots); "
        "default auto: a private folder in /dev/shm when writable (memory: no disk "
        "journal), else the system's; 'system' for the system's",
    )
    opt.SEED.add(p)
    p.add_argument("--report", action="store_true", help="print the clause coverage")
    p.add_argument("--no-properties", action="store_true", help="only the differential search")
    p.add_argument("--no-write", action="store_true", help="do not write vectors/candidates/")
    opt.EXPECTATIONS.add(
        p,
        metavar="LEDGER",
        help="a platform's expectations ledger: inputs on which it diverges only in the "
        "clusters it records are not findings, so the search looks past them (repeatable)",
    )
    opt.IN_PROCESS.add(p)
    p.add_argument(
        "--vectors-dir",
        type=Path,
        default=None,
        metavar="DIR",
        help="the vectors folder whose candidates/ receives findings (default the project's "
        "vectors/; with --worker, a folder outside the checkout in the system's temp dir)",
    )
    p.set_defaults(func=cmd_generate)

    p = sub.add_parser("promote", help="move a reviewed candidate into the domain's vector file")
    p.add_argument("domain")
    p.add_argument("candidate", metavar="CANDIDATE_ID")
    p.add_argument("--id", required=True, help="the case's new kebab-case id")
    p.add_argument("--description", required=True, help="why the case exists")
    p.add_argument("--clause", action="append", default=[], help="clause id (repeatable; replaces)")
    p.add_argument("--vectors-dir", type=Path, default=VECTORS_DIR, metavar="DIR")
    p.set_defaults(func=cmd_promote)


def schema_options(p: argparse.ArgumentParser) -> None:
    opt.SCHEMAS.add(p)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="hanzo-conformance", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    def vector_options(p: argparse.ArgumentParser) -> None:
        opt.VECTORS.add(p)
        opt.NO_DEFAULT_VECTORS.add(p)
        opt.DOMAIN.add(p)
        schema_options(p)

    p = sub.add_parser("validate", help="check every vector file against schemas/")
    vector_options(p)
    p.set_defaults(func=cmd_validate)

    p = sub.add_parser("fmt", help="rewrite vector files in the canonical layout")
    vector_options(p)
    p.add_argument("--check", action="store_true", help="only report files not in the layout")
    p.set_defaults(func=cmd_fmt)

    p = sub.add_parser("list", help="domains, case counts and tags")
    vector_options(p)
    p.set_defaults(func=cmd_list)

    p = sub.add_parser("run", help="run the matrix and print the parity report")
    vector_options(p)
    opt.PLATFORM.add(p)
    opt.WORKER.add(p)
    opt.CASE_TIMEOUT.add(p)
    opt.IN_PROCESS.add(p)
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument(
        "--output",
        metavar="FILE",
        help="write the report here (with --format json, the table is still printed)",
    )
    opt.MAX_PROBLEMS.add(
        p, help="failures printed in full (default 10; the --output report has all)"
    )
    gate_options(p)
    opt.JOBS.add(p)
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("report", help="render a saved --format json result file")
    p.add_argument("results", metavar="FILE")
    opt.MAX_PROBLEMS.add(
        p, default=50, help="failures printed in full (default 50; the --output report has all)"
    )
    report_options(p)
    p.set_defaults(func=cmd_report)
    add_generate_parsers(sub)
    expectations_parser(sub)
    history_parser(sub)
    merge_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    twice = opt.repeated_names(args)
    if twice is not None:
        parser.error(twice)
    # A lone surrogate in a message must not turn a finished run into an encoding error.
    with contextlib.suppress(AttributeError, ValueError):
        sys.stdout.reconfigure(errors="backslashreplace")  # type: ignore[union-attr]
    try:
        with extra_schema_dirs(getattr(args, "schemas", [])):
            code: int = args.func(args)
        return code
    except VectorFileError as e:
        print(f"hanzo-conformance: invalid vectors ({len(e.problems)} problems):", file=sys.stderr)
        for problem in e.problems:
            print(f"  {problem}", file=sys.stderr)
        return 2
    except (HarnessError, ValueError) as e:
        print(f"hanzo-conformance: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # before or after a run (a run handles its own signals)
        print("hanzo-conformance: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
