"""Hypothesis strategies per domain, for ``hanzo-conformance generate``.

A domain's strategies are the module ``strategies.<domain_snake>`` (found by name,
like the Python JSON layers), so a new domain brings its own. It provides:

* ``inputs()``: a strategy of JSON inputs valid against the domain's ``$defs.input``
  and aimed at the domain's edges (what hand-written vectors tend to miss);
* ``clauses(case_input, response)``: the contract clauses one input exercised, given
  the reference's response (for coverage and for ``hypothesis.target``);
* ``PROPERTIES``: properties checked on every platform beyond equality with the
  reference (:class:`Property`).

A module may also decode inputs from bytes: ``RECORD`` (bytes per input) and
``decode(record)`` (bytes -> input, reading them through :class:`Reader`; an
:class:`Encoded` input brings its JSON text, which the search then need not make). The
search then draws a whole batch as one byte string, cut into records: one Hypothesis choice
per batch instead of several per input, which is what makes thousands of cases a
second possible (Hypothesis's per-choice cost is tens of microseconds). Zero is the
simplest choice of every read, so Hypothesis lowering bytes shrinks the input.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any, TypeVar

from hypothesis import strategies as st

Response = Mapping[str, Any]


@dataclass(frozen=True)
class Property:
    """A property of one platform's answers to a few related requests.

    ``requests(probe)`` gives the inputs to run for one drawn probe; ``check(probe,
    responses)`` returns None when the property holds on that platform's responses
    (in the same order), else a one-line reason. ``candidate(probe)``, when given,
    is the input a vector showing a failure should hold. ``record`` and ``decode``,
    when given, draw probes from byte records as the differential search draws inputs
    (much cheaper than ``probes``, which then only serves single draws).
    """

    name: str
    clauses: tuple[str, ...]
    probes: st.SearchStrategy[Any]
    requests: Callable[[Any], list[Any]]
    check: Callable[[Any, Sequence[Response]], str | None]
    candidate: Callable[[Any], Any] | None = None
    record: int = 0
    decode: Callable[[bytes], Any] | None = None


def joined(pieces: Sequence[str], size: int) -> st.SearchStrategy[str]:
    """Strings of ``size`` pieces (``pieces[0]`` should be ``""``), drawn as one byte string.

    One ``binary`` draw is one Hypothesis choice, many times cheaper than a list of
    ``sampled_from`` (the difference between hundreds and thousands of inputs per
    second). Its size is fixed because Hypothesis draws short byte strings by
    default; it still shrinks to short strings, since a zero byte is the empty piece.
    """
    return st.binary(min_size=size, max_size=size).map(
        lambda b: "".join(pieces[x % len(pieces)] for x in b)
    )


T = TypeVar("T")

# The JSON text every platform gets for an input (as adapters.messages writes it).
encode_input = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode


class Encoded(dict[str, Any]):
    """An input (a JSON object) with its JSON text ``json``, exactly ``encode_input``'s.

    ``runners.generate.search`` makes one for each decoded record (or takes the one a
    module's ``decode`` made, when it can write the text for less) and sends the text
    as is. To anything else it is the plain input; no one changes an input once made.
    """

    __slots__ = ("json",)

    def __init__(self, case_input: Mapping[str, Any], text: str) -> None:
        super().__init__(case_input)
        self.json = text


class Reader:
    """Choices read from a record, byte by byte; past its end every byte reads as 0.

    Every read maps 0 to its simplest choice (the first option, ``lo``, False), so a
    record shrunk toward zero bytes decodes to a simpler input.
    """

    __slots__ = ("_at", "_data")

    def __init__(self, data: bytes) -> None:
        self._data = data
        self._at = 0

    def byte(self) -> int:
        at = self._at
        self._at = at + 1
        return self._data[at] if at < len(self._data) else 0

    def take(self, count: int) -> bytes:
        """The next ``count`` bytes (zero-padded)."""
        at = self._at
        self._at = at + count
        chunk = self._data[at : at + count]
        return chunk + bytes(count - len(chunk)) if len(chunk) < count else chunk

    def pick(self, options: Sequence[T]) -> T:
        return options[self.byte() % len(options)]

    def chance(self, one_in: int) -> bool:
        """True about once in ``one_in`` reads (never for a zero byte)."""
        return self.byte() % one_in == one_in - 1

    def integer(self, lo: int, hi: int) -> int:
        """An integer in [lo, hi], from as many bytes as the range needs."""
        span = hi - lo + 1
        width = max(1, (span.bit_length() + 7) // 8)
        return lo + int.from_bytes(self.take(width), "big") % span

    def joined(self, pieces: Sequence[str], count: int) -> str:
        """``count`` pieces concatenated (``pieces[0]`` should be ``""``: see :func:`joined`)."""
        n = len(pieces)
        return "".join([pieces[b % n] for b in self.take(count)])


def records(size: int, decode: Callable[[bytes], T]) -> st.SearchStrategy[T]:
    """Single inputs drawn as one ``size``-byte record and decoded."""
    return st.binary(min_size=size, max_size=size).map(decode)


def module_name(domain: str) -> str:
    return f"{__name__}.{domain.replace('-', '_')}"


def load(domain: str) -> ModuleType | None:
    """The domain's strategy module, or None when the domain has none."""
    try:
        return importlib.import_module(module_name(domain))
    except ModuleNotFoundError as e:
        if e.name == module_name(domain):
            return None
        raise


def output_of(response: Response) -> Any:
    """The output of a response, or None for an error or crash."""
    return response.get("output")


def body(response: Response) -> dict[str, Any]:
    """A response without its request id, for comparing answers to different requests."""
    return {k: v for k, v in response.items() if k != "id"}


def described(response: Response) -> str:
    """A short text for a response, for property failure reasons."""
    if "output" in response:
        text = repr(response["output"])
    elif "error" in response:
        text = f"error {response['error'].get('code')}"
    elif "skip" in response:
        text = f"skip ({response['skip'].get('reason', '')})"
    else:
        text = f"crash {response.get('crash', {}).get('message', '')}"
    return text if len(text) <= 200 else text[:197] + "..."
