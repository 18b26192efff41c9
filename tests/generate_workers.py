"""Planted-fault platforms for ``python -m adapters.serve generate_workers:NAME``.

The generate tests run these behind a real ``WorkerAdapter`` (tests/ on the
child's path), so the search's out-of-process path is tested with a fault to find.
"""

from __future__ import annotations

from miniatures import CrLfAcrossChunks

from adapters.protocol import Adapter


def crlf() -> Adapter:
    return CrLfAcrossChunks("crlf")
