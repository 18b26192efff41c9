"""A conformance worker for openai 3.57.0 (PyPI), the OpenAI Python SDK, on stream-assembly.

Install and run it as its README.md says (its own virtualenv, from requirements.txt).

It speaks docs/protocol.md on stdin/stdout. For each case it serves the case's frames,
written back as an SSE body, as the HTTP response of a fake endpoint (the SDK's own
transport hook: an ``httpx2.MockTransport`` under ``OpenAI(http_client=...)``) and reads
it through the SDK's public stream helper, ``client.chat.completions.stream(...)``:
``content.delta`` events are the text deltas; the final completion's
``choices[0].message.tool_calls`` are the tool calls (their ``arguments`` through
``json.loads``, as OpenAI's function-calling guide does); its ``finish_reason`` and
``usage`` the stop reason and usage; an ``openai.APIError`` the error. Only naming is
mapped (finish reasons to the contract's vocabulary, STREAM-8c); nothing is corrected:
the differences are the SDK's, and the ledger next to this file records them.
"""

from __future__ import annotations

import json
import sys
import traceback
from importlib import metadata
from typing import Any

import httpx2
import openai

STOP_REASONS = {
    "stop": "end_turn",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
    "length": "max_tokens",
}


def sse_body(frames: list[dict[str, Any]]) -> bytes:
    """The frames as the event stream a server would send (each data line its own field)."""
    out = []
    for frame in frames:
        lines = [] if frame["event"] is None else [f"event: {frame['event']}"]
        lines += [f"data: {line}" for line in frame["data"].split("\n")]
        out.append("\n".join(lines) + "\n\n")
    return "".join(out).encode("utf-8")


def tool_input(arguments: str) -> tuple[Any, str | None]:
    """``json.loads(arguments)``, what a runtime on this SDK executes the tool with."""
    try:
        value = json.loads(arguments)
    except ValueError:
        return None, "invalid_json"
    # json.loads takes NaN and Infinity: that input exists but no JSON answer can hold
    # it, so the case crashes with the reason rather than being written as something else.
    json.dumps(value, allow_nan=False)
    return (value, None) if isinstance(value, dict) else (None, "not_object")


def stream_assembly(case_input: dict[str, Any]) -> dict[str, Any]:
    body = sse_body(case_input["frames"])

    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=body)

    client = openai.OpenAI(
        api_key="test",
        base_url="http://sdk.test/v1",
        max_retries=0,
        http_client=httpx2.Client(transport=httpx2.MockTransport(handler)),
    )
    events: list[dict[str, Any]] = []
    usage = None
    stream: Any = None
    try:
        with client.chat.completions.stream(
            model="m", messages=[{"role": "user", "content": "hi"}]
        ) as stream:
            for event in stream:
                if event.type == "content.delta" and event.delta:
                    events.append({"type": "content_delta", "text": event.delta})
            final = stream.get_final_completion()
    except openai.APIError as e:
        body_ = e.body if isinstance(e.body, dict) else {}
        kind = body_.get("type") or body_.get("code") or "unknown"
        events.append({"type": "error", "error_type": kind, "message": e.message})
        # The usage the helper holds when the error came, if it had a snapshot yet.
        try:
            seen = stream.current_completion_snapshot.usage if stream is not None else None
        except AssertionError:
            seen = None
        if seen is not None:
            usage = {"input_tokens": seen.prompt_tokens, "output_tokens": seen.completion_tokens}
        return {"events": events, "usage": usage}
    choice = final.choices[0] if final.choices else None
    for call in (choice.message.tool_calls or []) if choice else []:
        arguments = call.function.arguments
        value, error = tool_input(arguments)
        events.append(
            {
                "type": "tool_use",
                "id": call.id,
                "name": call.function.name,
                "input": value,
                "input_json": arguments,
                "input_error": error,
            }
        )
    finish = choice.finish_reason if choice else None
    stop = None if finish is None else STOP_REASONS.get(finish, finish)
    events.append({"type": "message_stop", "stop_reason": stop, "provider_stop_reason": finish})
    if final.usage is not None:
        usage = {
            "input_tokens": final.usage.prompt_tokens,
            "output_tokens": final.usage.completion_tokens,
        }
    return {"events": events, "usage": usage}


DOMAINS = {"stream-assembly": stream_assembly}


def answer(request: dict[str, Any]) -> dict[str, Any]:
    if request.get("cmd") == "start":
        return {
            "ok": True,
            "implementation": {
                "name": "openai",
                "version": metadata.version("openai"),
                "language": f"python {sys.version.split()[0]}",
                "domains": sorted(DOMAINS),
            },
        }
    run = DOMAINS.get(request.get("domain", ""))
    if run is None:
        return {"id": request.get("id", ""), "crash": {"message": "unknown domain", "detail": ""}}
    if request["input"].get("dialect") != "openai-chat":
        reason = "the OpenAI SDK reads only the openai-chat dialect"
        return {"id": request["id"], "skip": {"reason": reason}}
    try:
        return {"id": request["id"], "output": run(request["input"])}
    except Exception as e:  # a crash answers this case; the worker goes on
        return {
            "id": request["id"],
            "crash": {"message": repr(e), "detail": traceback.format_exc()},
        }


def main() -> None:
    for line in sys.stdin:
        request = json.loads(line)
        if request.get("cmd") == "stop":
            break
        sys.stdout.write(json.dumps(answer(request)) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
