"""hanzo-conformance: shared JSON vectors run against every platform.

The public Python API; the CLI (``hanzo-conformance``) and the pytest plugin are
built on these names.
"""

from ._compare import Difference, diff
from ._outcomes import Outcome
from ._report import document, render_text
from ._run import StartedPlatform, run_cases, run_matrix, start_platform
from ._vectors import Case, VectorFile, load_vector_file, load_vectors
from .exceptions import HarnessError, PlatformUnavailable, Problem, VectorFileError

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
