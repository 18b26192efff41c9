"""The Rust platform of hanzo-conformance (the hanzo-* crates), for the harness.

Every function takes and returns JSON text. Contract errors and panics inside a
crate are data in the result, never exceptions; ``ValueError`` means the caller
sent something that is not JSON or not the request shape.
"""

__all__ = ["implementation", "run_batch", "run_line"]

def implementation() -> str:
    """``{"name": "hanzo-rust", "version", "language": "rust", "domains": [...]}`` as JSON."""

def run_batch(requests_json: str) -> str:
    """Run a JSON array of ``{"id", "domain", "input"}`` requests (the GIL is released).

    Returns a JSON array with one response per request, in order, ids echoed: each is
    ``{"id", "output"}``, ``{"id", "error": {"code", "message"}}`` or
    ``{"id", "crash": {"message", "detail"}}``.

    Raises:
        ValueError: the batch is not JSON, not an array, or a request lacks a string
            ``id``, a string ``domain`` or an ``input``.
    """

def run_line(line: bytes) -> bytes | None:
    """Answer one worker-protocol request line (docs/protocol.md): a ``run`` line (UTF-8
    ``{"cmd": "run", "id", "domain", "input"}``) or, for a line that does not begin with
    ``{``, a tab-run line (``<id> TAB <domain> TAB <expectation> TAB <input JSON>``).

    The GIL is released. Returns the response line (one of the responses above, then a
    newline) as UTF-8 bytes, or ``None`` when ``run_batch`` would refuse the request
    (not UTF-8, not JSON, a lone surrogate, no string ``id`` ...) or a tab-run line is
    not taken apart (not four fields, an expectation other than empty, ``=…`` or ``!…``).

    A line with ``"expect": "<JSON text>"`` (the expect extension) is answered ``b"=\\n"``
    when the output is that JSON value: the same text as serde writes it, or an equal
    ``serde_json::Value`` (any key order; a boolean is never a number, ``1`` is not
    ``1.0``); otherwise as without it. A line with ``"expect_error": "<code>"`` (the
    expect-error extension) whose contract error has that code is answered
    ``b'!"<message>"\\n'`` (the message as a JSON string). A tab-run line is answered as
    the ``run`` line with its expectation: ``=<JSON text>`` as ``expect``, ``!<code>`` as
    ``expect_error``, empty as neither.
    """
