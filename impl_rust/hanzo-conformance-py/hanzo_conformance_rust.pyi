"""The Rust platform of hanzo-conformance (the hanzo-* crates), for the harness.

Every function takes and returns JSON text. Contract errors and panics inside a
crate are data in the result, never exceptions; ``ValueError`` means the caller
sent something that is not JSON or not the request shape.
"""

__all__ = ["implementation", "run_batch"]

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
