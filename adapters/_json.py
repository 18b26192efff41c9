"""The one JSON text and the one JSON sameness, for the harness and its served children.

**The text.** Every JSON text the harness compares byte for byte is *compact*:
``json.dumps(value, ensure_ascii=False, separators=(",", ":"))``, keys in their own
order, NaN and the infinities refused (``compact_text``). A request's input, a case's
expected output, a served child's answer and the expect extension's ``expect`` string
are that text, so equal texts are equal values and the expect/ACK path may compare
them without decoding. The *canonical* text (``canonical_text``) is the compact text
with keys sorted, NaN allowed: what a case's content hash is taken over. A results
line is the compact text with NaN allowed (``results_text``: an output the harness
reports need not be I-JSON). Each is one C encoder made once, called as
``chunks(value, 0)``: ``JSONEncoder.encode`` makes a new encoder per call, which is most
of encoding a small value. None checks for circular values (every value here is a
decoded tree or an implementation's output, for which a circular value is a
RecursionError that ``compact_text`` reports as ValueError).

**Sameness.** Two JSON values are the same (``same_json``) when they are equal as JSON
means it: objects by their members whatever the keys' order, arrays element by
element, an integer-valued float equal to the integer (``1`` and ``1.0``: JSON has
one number type), a boolean never a number, and beyond I-JSON's exact range
(2^53) numbers compared as the doubles they stand for. The judge
(``runners.judge.compare``), triage and ``generate`` all decide sameness here.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

__all__ = [
    "canonical_chunks",
    "canonical_text",
    "compact_ascii",
    "compact_chunks",
    "compact_text",
    "encode_string",
    "is_number",
    "results_text",
    "same_json",
    "same_scalar",
]

encode_string: Callable[[str], str] = json.encoder.encode_basestring
"""A str as a JSON string (non-ASCII kept), as every compact text writes one."""


def _not_json(value: Any) -> Any:
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _chunks(sort_keys: bool, allow_nan: bool) -> Callable[[Any, int], Sequence[str]]:
    """The chunks of ``json.dumps(value, ensure_ascii=False, separators=(",", ":"),
    sort_keys=..., allow_nan=...)``, from one encoder made once."""
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:  # no C accelerator: the ordinary encoder, in one chunk
        fallback = json.JSONEncoder(
            ensure_ascii=False,
            separators=(",", ":"),
            sort_keys=sort_keys,
            allow_nan=allow_nan,
            check_circular=False,
        )
        return lambda value, _level: (fallback.encode(value),)
    chunks: Callable[[Any, int], Sequence[str]] = make(
        None, _not_json, encode_string, None, ":", ",", sort_keys, False, allow_nan
    )
    return chunks


compact_chunks = _chunks(sort_keys=False, allow_nan=False)
canonical_chunks = _chunks(sort_keys=True, allow_nan=True)
_results_chunks = _chunks(sort_keys=False, allow_nan=True)
_join = "".join


def compact_text(value: Any) -> str:
    """The compact text of ``value``. Raises ValueError (NaN, an infinity, a circular
    value) or TypeError (not JSON)."""
    try:
        return _join(compact_chunks(value, 0))
    except RecursionError:
        raise ValueError("circular or too deeply nested") from None


def compact_ascii(value: Any) -> str:
    """The compact text with every non-ASCII character escaped: the form of a line whose
    compact text has no UTF-8 form (a lone surrogate), which carries it faithfully."""
    return json.dumps(value, separators=(",", ":"), allow_nan=False)


def canonical_text(value: Any) -> str:
    """The compact text with keys sorted (NaN allowed): equal for equal decoded values."""
    return _join(canonical_chunks(value, 0))


def results_text(value: Any) -> str:
    """The compact text, NaN allowed (what a results document is written in)."""
    return _join(_results_chunks(value, 0))


def is_number(v: Any) -> bool:
    """A JSON number (a boolean is not one)."""
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def same_scalar(a: Any, b: Any) -> bool:
    """Sameness of two values neither of which is an object or an array (or of anything,
    by Python's ``==`` within one type)."""
    if is_number(a) and is_number(b):
        if max(abs(a), abs(b)) > 2**53:
            # Beyond I-JSON's exact range a JSON number means a double (JS prints the
            # double 2^64 as 18446744073709552000): compare the doubles.
            return float(a) == float(b)
        return bool(a == b)
    return type(a) is type(b) and bool(a == b)


def same_json(a: Any, b: Any) -> bool:
    """Whether ``a`` and ``b`` are the same JSON value (see the module's docstring).

    Two values of one plain JSON type are decided by that type's own test; anything else
    (an int against a float, a Mapping that is not a dict, an int subclass) by
    ``_same_general``."""
    kind = type(a)
    if kind is type(b):
        if kind is dict:
            return len(a) == len(b) and all(k in b and same_json(v, b[k]) for k, v in a.items())
        if kind is list:
            return len(a) == len(b) and all(map(same_json, a, b))
        if kind is str or kind is bool or a is None:
            return bool(a == b)
    return _same_general(a, b)


def _same_general(a: Any, b: Any) -> bool:
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(same_json(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(map(same_json, a, b))
    if isinstance(a, (Mapping, list)) or isinstance(b, (Mapping, list)):
        return False
    return same_scalar(a, b)
