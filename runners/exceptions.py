"""Every error the harness itself raises.

A run goes through these steps, and each can fail in its own way:

* find and read the vector files (``VectorFileError``: not JSON, wrong shape,
  duplicate ids, a domain with no schema; each problem names the file, the case
  id and the JSON pointer);
* start each platform (``PlatformUnavailable``, raised by ``Adapter.start``: the
  extension is not built, Node is missing, the worker never completed its
  handshake). The run goes on: the platform is reported unavailable once, with
  its stderr, and each of its cases is an ``error`` pointing there;
* run the cases. Nothing a platform does there raises: a crash, hang or protocol
  violation becomes that case's ``error`` outcome (see ``adapters/protocol.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

# Raised by adapters (which do not depend on the runners), so defined beside the Adapter protocol.
from adapters.protocol import PlatformUnavailable

__all__ = ["HarnessError", "PlatformUnavailable", "Problem", "UnknownPlatform", "VectorFileError"]


class HarnessError(Exception):
    """Base of the harness's own errors."""


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a vector file."""

    path: Path
    case_id: str | None
    pointer: str
    message: str

    def __str__(self) -> str:
        where = f"case {self.case_id!r}" if self.case_id else "file"
        pointer = self.pointer or "(root)"
        return f"{self.path}: {where} at {pointer}: {self.message}"


class VectorFileError(HarnessError):
    """A vector file (or several) could not be used; ``problems`` lists every reason."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))


class UnknownPlatform(HarnessError):
    def __init__(self, name: str, known: list[str]) -> None:
        super().__init__(f"unknown platform {name!r}; known: {', '.join(known)}")
