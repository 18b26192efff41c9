"""Read a saved results document (``run --format json``), refusing anything else clearly."""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
import tempfile
from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import IO, Any

from adapters._json import encode_string, results_text

from .._input_files import loads_unique, not_regular
from .._textsafe import bound
from ..exceptions import HarnessError
from ..vectors.schemas import pointer, results_validator
from . import skips


class ResultsFileError(HarnessError):
    """A file given to ``report`` is not a results document; the message names it."""


def read_results(path: Path) -> dict[str, Any]:
    if (refused := not_regular(path)) is not None:
        raise ResultsFileError(f"{path}: {refused}")
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ResultsFileError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise ResultsFileError(f"{path}: is a folder, not a results file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise ResultsFileError(f"{path}: cannot be read: {e}") from None
    try:
        doc = loads_unique(text)
    except (ValueError, RecursionError) as e:
        raise ResultsFileError(
            f"{path}: not JSON ({bound(str(e), 200)}); expected the output of "
            "`hanzo-conformance run --format json`"
        ) from None
    errors = sorted(results_validator().iter_errors(doc), key=lambda e: list(e.absolute_path))
    if errors:
        first = errors[0]
        raise ResultsFileError(
            f"{path}: not a results document: at {pointer(first.absolute_path) or '(root)'}: "
            f"{bound(first.message, 300)}"
            + (f" (and {len(errors) - 1} more problems)" if len(errors) > 1 else "")
        )
    _check_summary(path, doc)
    return doc  # type: ignore[no-any-return]


def _check_summary(path: Path, doc: Mapping[str, Any]) -> None:
    """The summary's counts are those of its results: a results file is evidence, and a
    summary edited to say "pass" must not make ``report`` (the gate) pass."""
    counts = Counter(r["status"] for r in doc["results"])
    summary = doc["summary"]
    claimed = {s: summary.get(s, 0) for s in (*counts, "fail", "error", "not_run", "partial")}
    claimed["total"] = summary["total"]
    actual = {**{s: counts.get(s, 0) for s in claimed}, "total": sum(counts.values())}
    wrong = [
        f"{s} {claimed[s]} (the results have {actual[s]})"
        for s in claimed
        if claimed[s] != actual[s]
    ]
    if summary["diverged"] != (actual["fail"] + actual["error"] > 0):
        wrong.append(f"diverged {str(summary['diverged']).lower()}")
    # The skip and partial groups, and the partial results no ledger records (the gate
    # fails on those), are the results' too; a summary from before groups has none.
    found = skips.incomplete_of(doc["results"])
    if summary.get("partial_unrecorded", 0) != found.get("partial_unrecorded", 0):
        wrong.append(
            f"partial_unrecorded {summary.get('partial_unrecorded', 0)} "
            f"(the results have {found.get('partial_unrecorded', 0)})"
        )
    if "skips" in summary or "partials" in summary:
        claimed_groups, actual_groups = skips.counts(summary), skips.counts(found)
        if claimed_groups != actual_groups:
            differing = sorted(
                k
                for k in {*claimed_groups, *actual_groups}
                if claimed_groups.get(k) != actual_groups.get(k)
            )
            first = differing[0]
            wrong.append(
                f"{first[0]} group {bound(' '.join(first[1:]), 200)} counts "
                f"{claimed_groups.get(first, 0)} (the results have {actual_groups.get(first, 0)})"
            )
    if wrong:
        raise ResultsFileError(
            f"{path}: its summary does not match its results: " + ", ".join(sorted(wrong))
        )


FORMAT = 2
"""Results documents written since issue 13: one result (and one case) per line, the
summary last, so a run writes each result as it is judged. Still one JSON document
(``results.schema.json``); documents without ``format`` (written whole) read the same."""


class ResultsWriter:
    """A results document written while the run goes, then put in place at once.

    Results go to a temporary file beside ``destination`` (or in the system's
    temporary folder), case records to a second one; ``finish`` appends the cases
    and the summary and returns the finished file. A write that fails (a full disk)
    is remembered in ``failure`` and later writes are skipped: the run goes on.
    """

    def __init__(self, folder: Path | None) -> None:
        self.failure: str | None = None
        self._results = tempfile.NamedTemporaryFile(  # noqa: SIM115 - closed by finish/discard
            "w",
            dir=folder,
            prefix=".hanzo-conformance-results-",
            suffix=".json",
            delete=False,
            encoding="utf-8",
            errors="backslashreplace",
        )
        self.path = Path(self._results.name)
        self._cases = tempfile.TemporaryFile(  # noqa: SIM115 - closed by finish/discard
            "w+", encoding="utf-8", errors="backslashreplace", dir=folder
        )
        self._separator = "\n"
        self._case_separator = "\n"
        self._write(self._results, f'{{"format":{FORMAT},"results":[')

    def _write(self, stream: IO[str], text: str) -> None:
        if self.failure is None:
            try:
                stream.write(text)
            except OSError as e:
                self.failure = f"the results could not be written: {e.strerror or e}"

    def results(self, records: Iterable[Mapping[str, Any]]) -> None:
        self.lines([results_text(r) for r in records])

    def lines(self, lines: list[str]) -> None:
        """Results already encoded, one JSON object each (compact, as ``results`` writes)."""
        if lines:
            self._write(self._results, self._separator + ",\n".join(lines))
            self._separator = ",\n"

    def cases(self, records: Iterable[tuple[str, Mapping[str, Any]]]) -> None:
        self.case_lines([f"{encode_string(key)}:{results_text(r)}" for key, r in records])

    def case_lines(self, lines: list[str]) -> None:
        """Case records already encoded, each ``"key":{...}``."""
        if lines:
            self._write(self._cases, self._case_separator + ",\n".join(lines))
            self._case_separator = ",\n"

    def finish(self, summary: Mapping[str, Any]) -> Path:
        self._write(self._results, '\n],"cases":{')
        if self.failure is None:
            try:
                self._cases.seek(0)
                shutil.copyfileobj(self._cases, self._results, 1 << 20)
            except OSError as e:
                self.failure = f"the results could not be written: {e.strerror or e}"
        self._write(self._results, '\n},"summary":' + results_text(summary) + "}\n")
        for stream in (self._results, self._cases):
            try:
                stream.close()
            except OSError as e:
                self.failure = self.failure or f"the results could not be written: {e}"
        return self.path

    def discard(self) -> None:
        for stream in (self._results, self._cases):
            with contextlib.suppress(OSError):
                stream.close()
        with contextlib.suppress(OSError):
            self.path.unlink()


def put_in_place(written: Path, destination: Path | None) -> str | None:
    """Move a finished results file to ``destination`` (stdout when None); the error, if any."""
    try:
        if destination is None:
            sys.stdout.flush()
            binary = getattr(sys.stdout, "buffer", None)  # None: a text stream (captured)
            with written.open(
                "rb" if binary else "r", encoding=None if binary else "utf-8"
            ) as stream:
                shutil.copyfileobj(stream, binary or sys.stdout, 1 << 20)
            (binary or sys.stdout).flush()
            return None
        in_place = not destination.is_symlink() and (
            not destination.exists() or destination.is_file()
        )
        if in_place and written.parent.resolve() == destination.parent.resolve():
            os.replace(written, destination)
            return None
        with written.open("rb") as source, destination.open("wb") as target:
            shutil.copyfileobj(source, target, 1 << 20)
        return None
    except OSError as e:
        return (
            f"hanzo-conformance: the results could not be written to "
            f"{destination or 'stdout'}: {e.strerror or e}"
        )
    finally:
        with contextlib.suppress(OSError):
            written.unlink()
