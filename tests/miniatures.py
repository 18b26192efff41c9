"""Deliberately wrong platforms, to prove the harness reports each kind of wrongness.

Each wraps the real Python reference and breaks it in one way.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from adapters.protocol import BaseAdapter, Implementation, Request, Response, crash
from adapters.python import PythonAdapter


class _Wrapped(BaseAdapter):
    def __init__(self, name: str) -> None:
        self.name = name
        self.inner = PythonAdapter()

    def start(self) -> Implementation:
        return self.inner.start()

    def run(self, requests: Sequence[Request]) -> list[Response]:
        return self.inner.run(requests)

    def stop(self) -> None:
        self.inner.stop()


def first_string_appended(value: Any) -> Any:
    """The output with "!" appended to its first string leaf (depth-first)."""
    value = copy.deepcopy(value)
    done = False

    def walk(node: Any) -> Any:
        nonlocal done
        if done:
            return node
        if isinstance(node, str):
            done = True
            return node + "!"
        if isinstance(node, dict):
            return {k: walk(v) for k, v in node.items()}
        if isinstance(node, list):
            return [walk(v) for v in node]
        return node

    return walk(value)


class Liar(_Wrapped):
    """Returns a subtly wrong output for every request (optionally only when `when` says so)."""

    def __init__(
        self, name: str = "liar", when: Callable[[Request], bool] = lambda r: True
    ) -> None:
        super().__init__(name)
        self.when = when

    def run(self, requests: Sequence[Request]) -> list[Response]:
        out = []
        for request, response in zip(requests, self.inner.run(requests), strict=True):
            if "output" in response and self.when(request):
                response = {
                    "id": response["id"],
                    "output": first_string_appended(response["output"]),
                }
            out.append(response)
        return out


class WrongErrorCode(_Wrapped):
    """Every contract error comes back with another code."""

    def run(self, requests: Sequence[Request]) -> list[Response]:
        return [
            {"id": r["id"], "error": {"code": "something_else", "message": "x"}}
            if "error" in r
            else r
            for r in self.inner.run(requests)
        ]


class ErrorForEverything(_Wrapped):
    """Answers every request with a contract error."""

    def run(self, requests: Sequence[Request]) -> list[Response]:
        return [{"id": r["id"], "error": {"code": "bad_input", "message": "no"}} for r in requests]


class Crasher(_Wrapped):
    """Crashes on every request, with a traceback-like detail."""

    def run(self, requests: Sequence[Request]) -> list[Response]:
        return [crash(r["id"], "boom", "Traceback: the stderr of the crash") for r in requests]


class ClassCrasher(_Wrapped):
    """Crashes on every request with a message naming an error class, then the case id
    (a variable part, as a real message's positions and bytes are)."""

    def __init__(self, name: str, error: str = "UnicodeDecodeError") -> None:
        super().__init__(name)
        self.error = error

    def run(self, requests: Sequence[Request]) -> list[Response]:
        return [crash(r["id"], f"{self.error}: cannot decode {r['id']}") for r in requests]


class ShapeDrift(_Wrapped):
    """Adds an undeclared field to every output object (caught by the output schema)."""

    def run(self, requests: Sequence[Request]) -> list[Response]:
        out = []
        for response in self.inner.run(requests):
            if "output" in response and isinstance(response["output"], dict):
                response = {"id": response["id"], "output": {**response["output"], "extra": 1}}
            out.append(response)
        return out


class Lacking(_Wrapped):
    """Implements no domain at all."""

    def start(self) -> Implementation:
        return replace(self.inner.start(), domains=frozenset())


class Raiser(_Wrapped):
    """An adapter that breaks its own contract by raising from run()."""

    def run(self, requests: Sequence[Request]) -> list[Response]:
        raise RuntimeError("adapter bug")


class Dropper(_Wrapped):
    """Answers only the first request of a batch."""

    def run(self, requests: Sequence[Request]) -> list[Response]:
        return self.inner.run(requests)[:1]


class NoStart(_Wrapped):
    def start(self) -> Implementation:
        raise OSError("no such executable: hanzo-worker")


# Planted faults for `hanzo-conformance generate` (tests/test_generate.py): each is
# the reference with one bug a real implementation could have, on one domain.


class _OneDomainFault(_Wrapped):
    domain = ""

    def run(self, requests: Sequence[Request]) -> list[Response]:
        out = []
        for request in requests:
            if request["domain"] == self.domain:
                out.append(self.faulty(request))
            else:
                out.append(self.inner.run([request])[0])
        return out

    def faulty(self, request: Request) -> Response:
        raise NotImplementedError


class CrLfAcrossChunks(_OneDomainFault):
    """sse-frames: a CR ending one chunk and the LF starting the next are two line endings."""

    domain = "sse-frames"

    def faulty(self, request: Request) -> Response:
        chunks = list(request["input"]["chunks"])
        for i in range(1, len(chunks)):
            # Only a boundary right after a CR counts (an empty chunk keeps the state).
            before = "".join(chunks[:i])
            if before.endswith("\r") and chunks[i].startswith("\n"):
                chunks[i] = "\r" + chunks[i][1:]  # this parser sees a second line ending
        return self.inner.run([{**request, "input": {**request["input"], "chunks": chunks}}])[0]


class StrictUtf8(CrLfAcrossChunks):
    """The CR|LF fault, plus hanzoai's crash: a ``bytes`` case's bytes decoded as strict
    UTF-8, so an ill-formed sequence raises ``UnicodeDecodeError`` (its message shows the
    bytes and positions, which vary; its cause does not). Text holding "boom" crashes
    with another cause."""

    def faulty(self, request: Request) -> Response:
        case_input = request["input"]
        text = "".join(case_input["chunks"])
        if "boom" in text:
            return crash(request["id"], f"TypeError: boom at {text.index('boom')}")
        if case_input.get("encoding") == "bytes":
            try:
                text.encode("latin-1").decode("utf-8")
            except UnicodeDecodeError as e:
                return crash(request["id"], repr(e), "Traceback: ...")
        return super().faulty(request)


def _utf16_units(text: str) -> str:
    """Each astral character as two BMP private-use characters (its two UTF-16 units)."""
    out = []
    for c in text:
        cp = ord(c)
        if cp > 0xFFFF:
            cp -= 0x10000
            out += [chr(0xE000 + (cp >> 10)), chr(0xE400 + (cp & 0x3FF))]
        else:
            out.append(c)
    return "".join(out)


class QuestionMarkUtf16(_OneDomainFault):
    """permission-policy: `?` matches one UTF-16 code unit (half an astral character)."""

    domain = "permission-policy"

    def faulty(self, request: Request) -> Response:
        case_input = request["input"]
        patterns = [r["tool_pattern"] for r in case_input["rules"]]
        if not any("?" in p for p in patterns) or any("[" in p for p in patterns):
            # Only `?` is wrong here: without one (and without sets, which would see
            # the units too) the answer is the reference's.
            return self.inner.run([request])[0]
        units = {
            "rules": [
                {**r, "tool_pattern": _utf16_units(r["tool_pattern"])} for r in case_input["rules"]
            ],
            "tool_name": _utf16_units(case_input["tool_name"]),
        }
        response = self.inner.run([{**request, "input": units}])[0]
        if "output" in response:
            audit = {**response["output"]["audit"], "tool_name": case_input["tool_name"]}
            response = {"id": response["id"], "output": {**response["output"], "audit": audit}}
        return response


class BackoffWrapsAt64(_OneDomainFault):
    """backoff-timing: base_ms * 2^k in 64-bit arithmetic with the shift taken mod 64."""

    domain = "backoff-timing"

    def faulty(self, request: Request) -> Response:
        response = self.inner.run([request])[0]
        if "output" not in response:
            return response
        case_input = request["input"]
        steps = case_input["steps"] if "steps" in case_input else ["next"] * case_input["attempts"]
        samples = iter(case_input.get("samples", ()))
        delays = list(response["output"]["delays_ms"])
        attempt, index = 0, 0
        for step in steps:
            if step == "reset":
                attempt = 0
                continue
            sample = next(samples, None) if case_input["jitter"] == "full" else None
            if attempt >= 64:
                wrapped = (case_input["base_ms"] << (attempt % 64)) % 2**64
                cap = min(case_input["max_ms"], wrapped)
                delays[index] = cap if sample is None else int(sample * cap)
            attempt, index = attempt + 1, index + 1
        return {"id": response["id"], "output": {"delays_ms": delays}}


class StalePkcePairs(_OneDomainFault):
    """oauth-pkce: generate() returns the same pair every time (a seeded, not secure, RNG)."""

    domain = "oauth-pkce"

    def faulty(self, request: Request) -> Response:
        if request["input"].get("generate") is True:
            verifier = "A" * 43
            challenge = "DwBzhbb51LfusnSGBa_hqYSgo7-j8BTQnip4TOnlzRo"  # S256 of 43 "A"s
            return {"id": request["id"], "output": {"verifier": verifier, "challenge": challenge}}
        return self.inner.run([request])[0]


class Rewriter(_Wrapped):
    """Rewrites every output with ``rewrite`` (tests that need one precise wrongness)."""

    def __init__(self, name: str, rewrite: Callable[[Any], Any]) -> None:
        super().__init__(name)
        self.rewrite = rewrite

    def run(self, requests: Sequence[Request]) -> list[Response]:
        return [
            {"id": r["id"], "output": self.rewrite(copy.deepcopy(r["output"]))}
            if "output" in r
            else r
            for r in self.inner.run(requests)
        ]


class Recorder(BaseAdapter):
    """Any adapter, appending the cases of each ``run()`` call to ``log`` as one JSON line.

    Not wrong itself: it shows how a harness batches (pytest under xdist appends from
    several processes; each line is one short write).
    """

    def __init__(self, inner: Any, log: str) -> None:
        self.inner = inner
        self.name = inner.name
        self.log = log

    def start(self) -> Implementation:
        result: Implementation = self.inner.start()
        return result

    def run(self, requests: Sequence[Request]) -> list[Response]:
        cases = list(dict.fromkeys(r["id"].rpartition("#")[0] for r in requests))
        with open(self.log, "a", encoding="utf-8") as log:
            log.write(json.dumps(cases) + "\n")
        result: list[Response] = self.inner.run(requests)
        return result

    def stop(self) -> None:
        self.inner.stop()


def wrong_error_code() -> WrongErrorCode:
    """``WrongErrorCode`` as a served child's factory (``adapters.serve miniatures:...``)."""
    return WrongErrorCode("wrong-error-code")


class ErrorMessage(_Wrapped):
    """Every contract error keeps its code and comes back with this message instead (one
    that JSON must escape), e.g. to follow a message through the expect-error extension."""

    MESSAGE = 'said "no" \\ to caf\u00e9 \u2028 \t \U0001f600 \x7f'

    def __init__(self, name: str = "error-message", message: str = MESSAGE) -> None:
        super().__init__(name)
        self.message = message

    def run(self, requests: Sequence[Request]) -> list[Response]:
        return [
            {"id": r["id"], "error": {"code": r["error"]["code"], "message": self.message}}
            if "error" in r
            else r
            for r in self.inner.run(requests)
        ]


def lone_surrogate_message() -> ErrorMessage:
    """``ErrorMessage`` whose message is not I-JSON (a lone surrogate)."""
    return ErrorMessage("lone-surrogate", "bad \ud800 message")
