"""The http-retry worker shared by the Stainless-generated SDKs (openai, anthropic,
hanzoai): their retry loops are one code base, so one worker drives each through its
real client on a scripted transport; each example's ``worker.py`` names its SDK.

Each case builds the SDK's client (``max_retries`` from the case) whose HTTP client has
a ``MockTransport``: request ``i`` gets the case's ``i``-th response (a transport error
is raised as ``ConnectError`` or ``ReadTimeout``), and any request after the scripted
ones gets a 200. The request is ``client.request(Response, FinalRequestOptions(method,
url))``, so the SDK's own retry loop decides everything. Nothing sleeps: ``time.sleep``
is replaced by a recorder, ``time.time`` by the case's clock, and
``<package>._base_client.random`` (the jitter draw) by the case's sample mapped to
``r = 4 * (1 - s)``, which makes the SDK's ``cap * (1 - 0.25 * r)`` equal to ``cap * s``
(README: for ``s < 0.75`` that ``r`` lies outside ``random()``'s range).

What the worker reports, per decision: ``retry`` (whether the SDK sent another
request), ``delay_ms`` (the recorded sleep, in whole milliseconds rounded down),
``reason`` (the SDK's own debug log line for that response, mapped one to one,
below) and ``delay_source`` (``backoff`` if the SDK drew its jitter for that sleep,
else the header the sleep equals). A case at attempt ``k`` is the SDK's retry ``k``:
``k`` scripted 503s with ``x-should-retry: true`` come first (their sleeps are not
reported). It speaks docs/protocol.md on stdin/stdout.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import logging
import math
import sys
import time
import traceback
from importlib import metadata
from typing import Any


class _Sdk:
    """The SDK's package, its private retry modules and its HTTP library, imported."""

    def __init__(self, name: str, client: str, base_url: str, http: str) -> None:
        self.name = name
        self.package = importlib.import_module(name)
        self.base_client = importlib.import_module(f"{name}._base_client")
        self.models = importlib.import_module(f"{name}._models")
        self.http = importlib.import_module(http)
        self.client_class = getattr(self.package, client)
        self.base_url = base_url


SDK: Any = None  # the _Sdk main() serves

# Past this many scripted retries a case is skipped rather than replayed one by one.
MOST_SCRIPTED_RETRIES = 50
# The SDK's debug lines (<package>/_base_client.py, _should_retry) -> the contract's reasons.
LOG_REASONS = (
    ("Retrying as header `x-should-retry` is set to `true`", "server_requested"),
    ("Not retrying as header `x-should-retry` is set to `false`", "server_declined"),
    ("Not retrying because `Retry-After`", "retry_after_exceeds_cap"),
    ("Retrying due to status code", "retryable_status"),
    ("Not retrying", "status_not_retryable"),
)
PRELUDE = {"status": 503, "headers": [["x-should-retry", "true"], ["retry-after-ms", "1"]]}


class Recorder(logging.Handler):
    """The SDK's log lines, each with the number of requests sent when it was logged."""

    def __init__(self, calls: list[Any]) -> None:
        super().__init__(logging.DEBUG)
        self.calls = calls
        self.lines: list[tuple[int, str]] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append((len(self.calls), record.getMessage()))


def _reply(item: dict[str, Any], request: Any) -> Any:
    if "error" in item:
        if item["error"] == "connect":
            raise SDK.http.ConnectError("scripted connection failure", request=request)
        raise SDK.http.ReadTimeout("scripted timeout", request=request)
    headers = [(name, value) for name, value in item["headers"]]
    return SDK.http.Response(item["status"], headers=headers, json={"error": {}})


RETRYING = ("server_requested", "retryable_status", "retryable_error")


def _decision(
    index: int,
    max_retries: int,
    item: dict[str, Any],
    calls: list[Any],
    sleeps: list[tuple[int, float]],
    draws: list[int],
    recorder: Recorder,
) -> dict[str, Any]:
    retried = len(calls) > index + 1
    lines = [line for at, line in recorder.lines if at == index + 1]
    reason = None
    for line in lines:
        for prefix, name in LOG_REASONS:
            if line.startswith(prefix) and (
                name != "status_not_retryable" or line == "Not retrying"
            ):
                reason = name
                break
        if reason:
            break
    if "error" in item:
        reason = "retryable_error" if retried else reason
    elif 100 <= item["status"] < 300:
        reason = "not_an_error"
    if not retried and (reason is None or reason in RETRYING) and index >= max_retries:
        # No retries left: the SDK gave up whatever _should_retry said (or it never asked).
        reason = "retries_exhausted"
    if not retried:
        return {"retry": False, "delay_ms": None, "reason": reason, "delay_source": None}
    [sleep] = [seconds for at, seconds in sleeps if at == index + 1]
    delay_ms = math.floor(round(sleep * 1000, 6))
    if index + 1 in draws:
        source = "backoff"
    else:
        ms_values = [v for n, v in item.get("headers", []) if n.lower() == "retry-after-ms"]
        source = "retry-after"
        for value in ms_values:
            try:
                if float(value) == sleep * 1000:
                    source = "retry-after-ms"
            except ValueError:
                pass
    return {
        "retry": True,
        "delay_ms": delay_ms,
        "reason": reason or "retryable_status",
        "delay_source": source,
    }


def http_retry(case_input: dict[str, Any]) -> dict[str, Any] | None:
    max_retries = case_input["max_retries"]
    if "steps" in case_input:
        steps = case_input["steps"]
        first = 0
    else:
        attempt = case_input["attempt"]
        if attempt > MOST_SCRIPTED_RETRIES and attempt < max_retries:
            return None
        step = {k: case_input[k] for k in ("response", "now_ms", "sample")}
        first = min(attempt, max_retries)
        steps = [{**step, "response": PRELUDE}] * first + [step]
    calls: list[Any] = []
    sleeps: list[tuple[int, float]] = []
    draws: list[int] = []

    def handler(request: Any) -> Any:
        calls.append(request)
        index = len(calls) - 1
        return (
            _reply(steps[index]["response"], request)
            if index < len(steps)
            else SDK.http.Response(200, json={})
        )

    def current() -> dict[str, Any]:
        return steps[min(len(calls), len(steps)) - 1]

    def sample() -> float:
        draws.append(len(calls))
        return 4 * (1 - current()["sample"])

    recorder = Recorder(calls)
    logger = logging.getLogger(SDK.base_client.__name__)
    logger.addHandler(recorder)
    logger.setLevel(logging.DEBUG)
    saved = (time.sleep, time.time, SDK.base_client.random)
    time.sleep = lambda seconds: sleeps.append((len(calls), seconds))
    time.time = lambda: current()["now_ms"] / 1000
    SDK.base_client.random = sample
    try:
        http = SDK.http.Client(transport=SDK.http.MockTransport(handler))
        client = SDK.client_class(
            api_key="test",
            base_url=SDK.base_url,
            max_retries=max_retries,
            http_client=http,
        )
        options = SDK.models.FinalRequestOptions.construct(
            method=case_input["method"], url="/retry"
        )
        with contextlib.suppress(SDK.package.APIError):  # the SDK gave up: decisions say why
            client.request(SDK.http.Response, options)
    finally:
        time.sleep, time.time, SDK.base_client.random = saved
        logger.removeHandler(recorder)
    decisions = []
    for index in range(first, len(steps)):
        if len(calls) <= index:
            # The SDK stopped before this request: its retries were used up.
            decisions.append(
                {
                    "retry": False,
                    "delay_ms": None,
                    "reason": "retries_exhausted",
                    "delay_source": None,
                }
            )
            break
        response = steps[index]["response"]
        decision = _decision(index, max_retries, response, calls, sleeps, draws, recorder)
        decisions.append(decision)
        if not decision["retry"]:
            break
    return {"decisions": decisions} if "steps" in case_input else decisions[0]


DOMAINS = {"http-retry": http_retry}


def answer(request: dict[str, Any]) -> dict[str, Any]:
    if request.get("cmd") == "start":
        return {
            "ok": True,
            "implementation": {
                "name": SDK.name,
                "version": metadata.version(SDK.name),
                "language": "python",
                "domains": sorted(DOMAINS),
            },
        }
    run = DOMAINS.get(request.get("domain", ""))
    if run is None:
        return {"id": request.get("id", ""), "crash": {"message": "unknown domain", "detail": ""}}
    try:
        output = run(request["input"])
    except Exception as e:  # a crash answers this case; the worker goes on
        return {
            "id": request["id"],
            "crash": {"message": repr(e), "detail": traceback.format_exc()},
        }
    if output is None:
        return {
            "id": request["id"],
            "skip": {"reason": f"attempt above {MOST_SCRIPTED_RETRIES}: each retry is replayed"},
        }
    return {"id": request["id"], "output": output}


def main(name: str, client: str, base_url: str, http: str) -> None:
    """Serve the protocol for the SDK ``name`` (its client class ``client``, talking to
    ``base_url`` over the HTTP library ``http``)."""
    global SDK
    SDK = _Sdk(name, client, base_url, http)
    for line in sys.stdin:
        request = json.loads(line)
        if request.get("cmd") == "stop":
            break
        sys.stdout.write(json.dumps(answer(request)) + "\n")
        sys.stdout.flush()
