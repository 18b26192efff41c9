"""The vector files of a run, in (domain, path) order, loaded all at once or one at a time.

A run over vectors of ordinary size loads and checks every file before anything
runs (an invalid file is exit 2 with nothing run). Past ``STREAM_FROM_BYTES`` of
vector files a run loads each file when it reaches it and drops it when its cases
are done, so memory does not grow with the number of cases (issue 13): the files'
domains are read from their first bytes to order them, and an invalid file is
found when the run reaches it (the run then stops with exit 2, listing the
problems of every file left).
"""

from __future__ import annotations

import json
import re
from array import array
from collections.abc import Iterator, Sequence
from pathlib import Path

from ..exceptions import HarnessError, Problem, VectorFileError
from ..gate.verdict import in_shard
from . import parts
from .load import VectorFile, find_vector_files, load_vector_file, load_vectors

STREAM_FROM_BYTES = 16 * 2**20
"""Vector files larger than this in total are loaded one at a time, as the run reaches them."""

_PEEK_BYTES = 1 << 16
_SPACE = re.compile(r"[ \t\n\r]*")
_SCAN = json.JSONDecoder().scan_once  # type: ignore[attr-defined]


def peek_domain(path: Path) -> str | None:
    """The top-level ``domain`` of a vector file from its first bytes (None: not found there).

    The top-level members are decoded in order until ``domain``; canonical files have
    it second, so only a few hundred bytes are read as JSON.
    """
    try:
        with path.open("rb") as stream:
            head = stream.read(_PEEK_BYTES)
    except OSError:
        return None
    text = head.decode("utf-8", "ignore").removeprefix("\ufeff")
    try:
        at = _SPACE.match(text, 0).end()  # type: ignore[union-attr]
        if text[at : at + 1] != "{":
            return None
        at += 1
        while True:
            at = _SPACE.match(text, at).end()  # type: ignore[union-attr]
            key, at = _SCAN(text, at)
            at = _SPACE.match(text, at).end()  # type: ignore[union-attr]
            if text[at : at + 1] != ":":
                return None
            at = _SPACE.match(text, at + 1).end()  # type: ignore[union-attr]
            value, at = _SCAN(text, at)
            if key == "domain":
                return value if isinstance(value, str) else None
            at = _SPACE.match(text, at).end()  # type: ignore[union-attr]
            if text[at : at + 1] != ",":
                return None
            at += 1
    except (StopIteration, ValueError, RecursionError):
        return None  # the member runs past the bytes read, or the text is not JSON


class VectorSource:
    """Every vector file of a run, and which domains it runs."""

    def __init__(self, sources: Sequence[Path], domains: Sequence[str]) -> None:
        paths, problems = find_vector_files(sources)
        if problems:
            raise VectorFileError(problems)
        self.sources = sources
        self.domains = set(domains)
        self.streamed = sum(_size(p) for p in paths) > STREAM_FROM_BYTES
        if self.streamed:
            self._loaded: list[VectorFile] | None = None
            keyed = []
            for path in paths:
                domain = peek_domain(path)
                if domain is None and parts.in_parts(path):
                    domain = parts.file_domain(path) or ""
                if domain is None:  # not in its first bytes: the whole file says
                    try:
                        domain = load_vector_file(path).domain
                    except VectorFileError:
                        domain = ""  # found again, with its problems, when the run loads it
                keyed.append((domain, str(path), path))
            keyed.sort()
            self._paths = [path for _, _, path in keyed]
            known = {domain for domain, _, _ in keyed}
        else:
            files = sorted(load_vectors(paths), key=lambda vf: (vf.domain, str(vf.path)))
            self._loaded = files
            self._paths = [vf.path for vf in files]
            known = {vf.domain for vf in files}
        if self.domains:
            unknown = self.domains - known
            if unknown:
                raise HarnessError(f"no vectors for domain(s): {', '.join(sorted(unknown))}")
        if not self._paths:
            raise HarnessError("no vector files found in " + ", ".join(map(str, sources)))

    def case_count(self, shard: tuple[int, int] | None) -> int | None:
        """Cases the run covers, when known before it (not when files load as it goes)."""
        if self._loaded is None:
            return None
        return sum(
            1
            for vf in self._loaded
            if self.runs(vf)
            for c in vf.cases
            if shard is None or in_shard(vf.domain, c.id, shard)
        )

    def runs(self, vf: VectorFile) -> bool:
        return not self.domains or vf.domain in self.domains

    def files(self, paths: Sequence[Path] | None = None) -> Iterator[VectorFile]:
        """Every file (or those of ``paths``), in (domain, path) order; VectorFileError after
        the last good one."""
        if self._loaded is not None:
            if paths is None:
                yield from self._loaded
            else:
                wanted = set(paths)
                yield from (vf for vf in self._loaded if vf.path in wanted)
            return
        problems: list[Problem] = []
        domain = None
        earlier = EarlierIds()
        for path in self._paths if paths is None else paths:
            # A large file comes in parts (the same path, ``first_case`` above 0 after the
            # first), so that its cases are not all held at once.
            loaded = parts.load_vector_parts(path) if parts.in_parts(path) else None
            try:
                for vf in loaded or (load_vector_file(path),):
                    if vf.domain != domain:
                        domain, earlier = vf.domain, EarlierIds()
                    for case_id, first in earlier.add(vf.path, [c.id for c in vf.cases]):
                        message = f"id already used in {first} for domain {domain}"
                        problems.append(Problem(vf.path, case_id, "/cases", message))
                    if not problems:
                        yield vf
                    del vf  # not held here while the next file or part loads
            except VectorFileError as e:
                problems.extend(e.problems)
        if problems:
            raise VectorFileError(problems)

    @property
    def paths(self) -> list[Path]:
        """Every file's path, in the order the run takes them."""
        return list(self._paths)

    def load(self, path: Path) -> VectorFile:
        """One file of the run (already loaded, when the vectors are small)."""
        for vf in self._loaded or ():
            if vf.path == path:
                return vf
        return load_vector_file(path)

    def split(self, parts: int) -> list[list[Path]]:
        """The files in at most ``parts`` runs of consecutive files of about equal size
        (a harness job each: ``runners.run.jobs``); order kept, none empty."""
        sizes = [_size(p) or 1 for p in self._paths]
        total = sum(sizes)
        groups: list[list[Path]] = []
        group: list[Path] = []
        filled = 0
        for path, size in zip(self._paths, sizes, strict=True):
            # A new group when this file's middle lies past the current group's share.
            if group and (filled + size / 2) > total * (len(groups) + 1) / parts:
                groups.append(group)
                group = []
            group.append(path)
            filled += size
        groups.append(group)
        return groups


class EarlierIds:
    """The ids of a domain's earlier files, 12 bytes each (their ``hash`` and file), so a
    domain of a million cases in many files is checked for an id used twice without
    keeping a million strings. Two different ids with one 64-bit hash would be reported
    as one id used twice: about one chance in 30 million at a million ids."""

    def __init__(self) -> None:
        self._hashes = array("q")
        self._files = array("l")
        self._paths: list[Path] = []

    def add(self, path: Path, ids: Sequence[str]) -> Iterator[tuple[str, Path]]:
        """(id, earlier file) for each of ``ids`` (a file's) an earlier file used."""
        mine = {hash(case_id): case_id for case_id in ids}
        # The usual answer, none, from one C-speed pass over the earlier hashes (a set of
        # them would cost about 60 bytes an id); the Python walk only names the ones found.
        if not mine.keys().isdisjoint(self._hashes):
            for hashed, index in zip(self._hashes, self._files, strict=True):
                case_id = mine.get(hashed)
                if case_id is not None:
                    yield case_id, self._paths[index]
        self._paths.append(path)
        self._hashes.extend(mine)
        self._files.extend([len(self._paths) - 1] * len(mine))


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0
