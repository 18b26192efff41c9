"""Read a saved results document (``run --format json``), refusing anything else clearly."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ._schemas import pointer, results_validator
from ._textsafe import bound
from .exceptions import HarnessError


class ResultsFileError(HarnessError):
    """A file given to ``report`` is not a results document; the message names it."""


def read_results(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ResultsFileError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise ResultsFileError(f"{path}: is a folder, not a results file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise ResultsFileError(f"{path}: cannot be read: {e}") from None
    try:
        doc = json.loads(text)
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
    return doc  # type: ignore[no-any-return]
