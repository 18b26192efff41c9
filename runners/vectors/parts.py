"""A large vector file read case by case: memory bounded by a part's cases, not the file.

A file past ``PARTS_FROM_BYTES`` is read twice as text, a block at a time: a first pass
finds the top-level members other than ``cases`` (before or after it), skipping over
the cases; a second pass takes the cases in parts of ``cases_per_part``. Each part is
the file's other members with that part's cases, checked by the one loader
(``load.load_vector_file``) exactly as the whole file would be, its problems' pointers
moved to the cases' places in the file. Ids used twice are found across parts by
keeping each id's hash and first index, never the cases. A file whose top level or a
case is not even JSON is loaded whole, so its problem is named as the loader names it.
"""

from __future__ import annotations

import codecs
import dataclasses
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..exceptions import Problem, VectorFileError
from .format import canonical_pieces
from .load import VectorFile, load_vector_file

PARTS_FROM_BYTES = 16 * 2**20
"""Vector files larger than this are read in parts (smaller ones by the loader at once)."""
CASES_PER_PART = 2000

_BLOCK_CHARS = 1 << 20
_MOST_VALUE_CHARS = 64 * 2**20
"""A value not read by then (one not JSON, whose end is never found, or nested past
Python's recursion limit) has the whole file loaded instead, to be named."""
_SPACE = re.compile(r"[ \t\n\r]*")
_SCAN = json.JSONDecoder().scan_once  # type: ignore[attr-defined]
_CASE_AT = re.compile(r"^/cases/(\d+)")
_FIRST_USED = re.compile(r"^duplicate id \(first used by /cases/\d+\)$")
# A problem placed by line and column, which are the part's: the whole file names it.
_PLACED = re.compile(r"line \d+, column \d+\)$")


class _NotPlainJson(Exception):
    """The text is not JSON (or not an object with a ``cases`` array) where the reader
    looks: the whole file is loaded instead, and the loader says what is wrong."""


class _Text:
    """A file's text, a block at a time: the window held starts at the reader's mark."""

    def __init__(self, path: Path) -> None:
        self._stream = path.open("rb")
        self._decode = codecs.getincrementaldecoder("utf-8")()  # a BOM: the loader's say
        self.text = ""
        self.at = 0
        self._eof = False

    def close(self) -> None:
        self._stream.close()

    def _more(self) -> bool:
        if self._eof:
            return False
        block = self._stream.read(_BLOCK_CHARS)
        try:
            self.text += self._decode.decode(block, final=not block)
        except UnicodeDecodeError as e:
            raise _NotPlainJson from e
        self._eof = not block
        return True

    def drop_read(self) -> None:
        """Forget the text before the reader's place, once it is a block's worth (not
        after every value: each drop copies the rest of the window)."""
        if self.at >= _BLOCK_CHARS:
            self.text = self.text[self.at :]
            self.at = 0

    def char(self) -> str:
        """The next character that is not white space ("" at the end); not consumed."""
        while True:
            self.at = _SPACE.match(self.text, self.at).end()  # type: ignore[union-attr]
            if self.at < len(self.text) or not self._more():
                return self.text[self.at : self.at + 1]

    def expect(self, char: str) -> None:
        if self.char() != char:
            raise _NotPlainJson
        self.at += 1

    def value(self) -> tuple[Any, str]:
        """The next JSON value, parsed as ``json.loads`` would, and its text."""
        self.char()
        start = self.at
        while True:
            try:
                value, end = _SCAN(self.text, start)
            except (StopIteration, ValueError, RecursionError):
                end = None
            # A value running to the end of the text read may go on (a number) or be cut.
            if end is not None and (end < len(self.text) or self._eof):
                self.at = end
                return value, self.text[start:end]
            if len(self.text) - start > _MOST_VALUE_CHARS or not self._more():
                raise _NotPlainJson


def _members(path: Path) -> Iterator[tuple[str, Any, str]]:
    """The top-level members in order, (key, value, value text); the ``cases`` member's
    value is skipped over (None, "")."""
    text = _Text(path)
    try:
        text.expect("{")
        if text.char() == "}":
            return
        while True:
            key, _ = text.value()
            if not isinstance(key, str):
                raise _NotPlainJson
            text.expect(":")
            if key == "cases":
                for _ in _array(text):
                    pass
                yield key, None, ""
            else:
                value, value_text = text.value()
                yield key, value, value_text
            text.drop_read()
            if text.char() == "}":
                return
            text.expect(",")
    finally:
        text.close()


def _array(text: _Text) -> Iterator[tuple[Any, str]]:
    """The values of the array at the reader's place, each with its text."""
    text.expect("[")
    if text.char() == "]":
        text.at += 1
        return
    while True:
        yield text.value()
        text.drop_read()
        if text.char() == "]":
            text.at += 1
            return
        text.expect(",")


def _cases(path: Path) -> Iterator[tuple[Any, str]]:
    """The values of the top-level ``cases`` array, each with its text."""
    text = _Text(path)
    try:
        text.expect("{")
        while True:
            key, _ = text.value()
            text.expect(":")
            if key == "cases":
                yield from _array(text)
                return
            text.value()
            text.drop_read()
            text.expect(",")
    finally:
        text.close()


class _Header:
    """The top-level members but ``cases``, as text around a part's cases."""

    def __init__(self, path: Path) -> None:
        before: list[str] = []
        after: list[str] = []
        self.values: dict[str, Any] = {}
        found = 0
        for key, value, value_text in _members(path):
            if key == "cases":
                found += 1
                continue
            self.values[key] = value
            (after if found else before).append(f"{json.dumps(key)}: {value_text}")
        if found != 1:  # none, or a duplicate key the loader names
            raise _NotPlainJson
        self._open = "{" + "".join(m + ", " for m in before) + '"cases": ['
        self._close = "]" + "".join(", " + m for m in after) + "}"

    def document(self, case_texts: list[str]) -> bytes:
        return (self._open + ", ".join(case_texts) + self._close).encode("utf-8")


def _moved(problem: Problem, offset: int) -> Problem:
    """A part's problem at its case's place in the file."""
    where = _CASE_AT.sub(lambda m: f"/cases/{int(m.group(1)) + offset}", problem.pointer)
    return Problem(problem.path, problem.case_id, where, problem.message)


def load_vector_parts(path: Path, cases_per_part: int | None = None) -> Iterator[VectorFile]:
    """The file's cases as VectorFiles of at most ``cases_per_part`` (CASES_PER_PART)
    each, in order (one, with no cases, for a file with none), each but the last
    ``continues``. VectorFileError, after the last good part, lists the problems of every
    part from the first bad one on (the loader's, pointers as in the whole file, and ids
    used twice anywhere in it)."""
    per_part = CASES_PER_PART if cases_per_part is None else cases_per_part
    try:
        header = _Header(path)
    except _NotPlainJson:
        yield load_vector_file(path)
        return
    problems: list[Problem] = []
    first_index: dict[int, int] = {}  # hash of an id: the index of its first case
    start = 0
    texts: list[str] = []
    ids: list[Any] = []
    cases = _cases(path)

    own: set[tuple[str, str]] = set()  # the first part's problems outside its cases

    def part() -> VectorFile | None:
        try:
            vf = load_vector_file(path, header.document(texts))
        except VectorFileError as e:
            if any(_PLACED.search(problem.message) for problem in e.problems):
                raise _NotPlainJson from e
            for problem in e.problems:
                if _CASE_AT.match(problem.pointer) is None:
                    if not start:
                        own.add((problem.pointer, problem.message))
                    elif (problem.pointer, problem.message) in own:
                        continue  # the file's own members: named by the first part
                if _FIRST_USED.match(problem.message):
                    continue  # ids used twice are found across parts below
                problems.append(_moved(problem, start))
            vf = None
        for index, case_id in enumerate(ids, start):
            if not isinstance(case_id, str):
                continue
            first = first_index.setdefault(hash(case_id), index)
            if first != index:
                message = f"duplicate id (first used by /cases/{first})"
                problems.append(Problem(path, case_id, f"/cases/{index}/id", message))
        return None if problems or vf is None else dataclasses.replace(vf, first_case=start)

    # A part is handed on once the next case is read: it says whether more follow.
    held: VectorFile | None = None
    try:
        for value, case_text in cases:
            if held is not None:
                yield dataclasses.replace(held, continues=True)
                held = None
            texts.append(case_text)
            ids.append(value.get("id") if isinstance(value, dict) else None)
            if len(texts) == per_part:
                held = part()
                start += len(texts)
                texts, ids = [], []
        if held is not None:
            yield held
        last = part() if texts or not start else None
    except _NotPlainJson:
        yield from _whole(path, start)
        return
    if last is not None:
        yield last
    if problems:
        raise VectorFileError(problems)


def _whole(path: Path, start: int) -> Iterator[VectorFile]:
    """The whole file loaded at once, to name what the parts cannot (a value not JSON, a
    problem placed by line and column); its cases from ``start``."""
    vf = load_vector_file(path)  # raises, naming the problem
    yield dataclasses.replace(vf, cases=vf.cases[start:], first_case=start)


def file_domain(path: Path) -> str | None:
    """The top-level ``domain`` of a file (None: not a string, or the file not JSON),
    read without holding its cases."""
    try:
        domain = _Header(path).values.get("domain")
    except (_NotPlainJson, OSError):
        return None
    return domain if isinstance(domain, str) else None


def in_parts(path: Path) -> bool:
    """Whether a run reads the file in parts (its size is past PARTS_FROM_BYTES)."""
    try:
        return path.stat().st_size > PARTS_FROM_BYTES
    except OSError:
        return False


def is_canonical(path: Path) -> bool:
    """Whether the file's text is its canonical layout (``format.canonical``), compared a
    case at a time (the file is read as ``Path.read_text`` reads it). The file is one the
    loader accepts."""

    def members() -> Iterator[tuple[str, Any]]:
        for key, value, _ in _members(path):
            yield key, (value for value, _ in _cases(path)) if key == "cases" else value

    with path.open(encoding="utf-8") as text:
        for piece in canonical_pieces(members()):
            if text.read(len(piece)) != piece:
                return False
        return text.read(1) == ""
