"""Hypothesis strategies per domain, for ``hanzo-conformance generate``.

A domain's strategies are the module ``strategies.<domain_snake>`` (found by name,
like the Python JSON layers), so a new domain brings its own. It provides:

* ``inputs()``: a strategy of JSON inputs valid against the domain's ``$defs.input``
  and aimed at the domain's edges (what hand-written vectors tend to miss);
* ``clauses(case_input, response)``: the contract clauses one input exercised, given
  the reference's response (for coverage and for ``hypothesis.target``);
* ``PROPERTIES``: properties checked on every platform beyond equality with the
  reference (:class:`Property`).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from hypothesis import strategies as st

Response = Mapping[str, Any]


@dataclass(frozen=True)
class Property:
    """A property of one platform's answers to a few related requests.

    ``requests(probe)`` gives the inputs to run for one drawn probe; ``check(probe,
    responses)`` returns None when the property holds on that platform's responses
    (in the same order), else a one-line reason. ``candidate(probe)``, when given,
    is the input a vector showing a failure should hold.
    """

    name: str
    clauses: tuple[str, ...]
    probes: st.SearchStrategy[Any]
    requests: Callable[[Any], list[Any]]
    check: Callable[[Any, Sequence[Response]], str | None]
    candidate: Callable[[Any], Any] | None = None


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
    else:
        text = f"crash {response.get('crash', {}).get('message', '')}"
    return text if len(text) <= 200 else text[:197] + "..."
