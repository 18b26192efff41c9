"""The one base class of every contract error in impl_python."""

from __future__ import annotations


class HanzoError(Exception):
    """A contract error: ``code`` is stable and compared across platforms; the message is not."""

    code: str = "error"

    def __init__(self, message: str, *, code: str | None = None) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code
