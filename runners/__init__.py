"""hanzo-conformance: shared JSON vectors run against every platform.

The public Python API; the CLI (``hanzo-conformance``) and the pytest plugin are
built on these names. They load on first use (PEP 562), so importing one small
module of the package (the console script's ``runners._console``) imports nothing else.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .exceptions import HarnessError, PlatformUnavailable, Problem, VectorFileError
    from .judge.compare import Difference, diff
    from .judge.outcomes import Outcome
    from .reports.text import document, render_text
    from .run.batches import StartedPlatform, run_cases, run_matrix, start_platform
    from .vectors.load import Case, VectorFile, load_vector_file, load_vectors

_HOMES = {
    ".judge.compare": ("Difference", "diff"),
    ".judge.outcomes": ("Outcome",),
    ".reports.text": ("document", "render_text"),
    ".run.batches": ("StartedPlatform", "run_cases", "run_matrix", "start_platform"),
    ".vectors.load": ("Case", "VectorFile", "load_vector_file", "load_vectors"),
    ".exceptions": ("HarnessError", "PlatformUnavailable", "Problem", "VectorFileError"),
}
_HOME = {name: module for module, names in _HOMES.items() for name in names}

__all__ = [
    "Case",
    "Difference",
    "HarnessError",
    "Outcome",
    "PlatformUnavailable",
    "Problem",
    "StartedPlatform",
    "VectorFile",
    "VectorFileError",
    "diff",
    "document",
    "load_vector_file",
    "load_vectors",
    "render_text",
    "run_cases",
    "run_matrix",
    "start_platform",
]


def __getattr__(name: str) -> Any:
    module = _HOME.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value  # once: later lookups do not come here
    return value
