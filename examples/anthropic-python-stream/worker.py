"""A conformance worker for anthropic 2.15.0 (PyPI), the Anthropic Python SDK, on stream-assembly.

Install and run it as its README.md says (its own virtualenv, from requirements.txt).

It speaks docs/protocol.md on stdin/stdout. For each case it serves the case's frames,
written back as an SSE body, as the HTTP response of a fake endpoint (the SDK's own
transport hook: an ``httpx2.MockTransport`` under ``Anthropic(http_client=...)``) and
reads it through the SDK's public stream helper, ``client.messages.stream(...)``: ``text``
events are the text deltas; each ``content_block_stop`` of a ``tool_use`` block is a tool
call (its ``input`` the SDK's, parsed by jiter; ``input_json`` the block's
``input_json_delta`` fragments joined); ``message_stop`` the stop, with the final
message's stop reason and usage; an ``anthropic.APIStatusError`` (the SDK's answer to
``event: error``) the error. Nothing is corrected: the differences are the SDK's, and the
ledger next to this file records them.
"""

from __future__ import annotations

import json
import sys
import traceback
from importlib import metadata
from typing import Any

import anthropic
import httpx2


def sse_body(frames: list[dict[str, Any]]) -> bytes:
    """The frames as the event stream a server would send (each data line its own field)."""
    out = []
    for frame in frames:
        lines = [] if frame["event"] is None else [f"event: {frame['event']}"]
        lines += [f"data: {line}" for line in frame["data"].split("\n")]
        out.append("\n".join(lines) + "\n\n")
    return "".join(out).encode("utf-8")


def stream_assembly(case_input: dict[str, Any]) -> dict[str, Any]:
    body = sse_body(case_input["frames"])

    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=body)

    client = anthropic.Anthropic(
        api_key="test",
        base_url="http://sdk.test",
        max_retries=0,
        http_client=httpx2.Client(transport=httpx2.MockTransport(handler)),
    )
    events: list[dict[str, Any]] = []
    usage = None
    fragments: dict[int, list[str]] = {}
    stream: Any = None
    manager = client.messages.stream(
        model="m", max_tokens=1024, messages=[{"role": "user", "content": "hi"}]
    )
    try:
        with manager as stream:
            for event in stream:
                if event.type == "text" and event.text:
                    events.append({"type": "content_delta", "text": event.text})
                elif event.type == "content_block_delta" and event.delta.type == "input_json_delta":
                    fragments.setdefault(event.index, []).append(event.delta.partial_json)
                elif event.type == "content_block_stop":
                    # Before message_start the helper passes raw events through, and a
                    # raw content_block_stop carries no block: the helper assembled nothing.
                    block = getattr(event, "content_block", None)
                    if block is None or block.type != "tool_use":
                        continue
                    value = block.input
                    # jiter takes NaN and Infinity: such an input exists but no JSON
                    # answer can hold it, so the case crashes with the reason.
                    json.dumps(value, allow_nan=False)
                    error = None if isinstance(value, dict) else "not_object"
                    events.append(
                        {
                            "type": "tool_use",
                            "id": block.id,
                            "name": block.name,
                            "input": value if error is None else None,
                            "input_json": "".join(fragments.get(event.index, [])),
                            "input_error": error,
                        }
                    )
                elif event.type == "message_stop":
                    message = getattr(event, "message", None)  # raw before message_start
                    stop = None if message is None else message.stop_reason
                    events.append(
                        {"type": "message_stop", "stop_reason": stop, "provider_stop_reason": stop}
                    )
                    if message is not None:
                        u = message.usage
                        usage = {"input_tokens": u.input_tokens, "output_tokens": u.output_tokens}
    except anthropic.APIStatusError as e:
        error_body = e.body.get("error") if isinstance(e.body, dict) else None
        kind = error_body.get("type") if isinstance(error_body, dict) else None
        text = error_body.get("message") if isinstance(error_body, dict) else e.message
        events.append({"type": "error", "error_type": kind or "unknown", "message": text or ""})
    if usage is None and stream is not None:
        # Ended without message_stop (an error, or the body's end): the usage the helper
        # holds so far, if it has a snapshot (it has one once message_start was read).
        try:
            u = stream.current_message_snapshot.usage
        except AssertionError:
            pass
        else:
            usage = {"input_tokens": u.input_tokens, "output_tokens": u.output_tokens}
    return {"events": events, "usage": usage}


DOMAINS = {"stream-assembly": stream_assembly}


def answer(request: dict[str, Any]) -> dict[str, Any]:
    if request.get("cmd") == "start":
        return {
            "ok": True,
            "implementation": {
                "name": "anthropic",
                "version": metadata.version("anthropic"),
                "language": f"python {sys.version.split()[0]}",
                "domains": sorted(DOMAINS),
            },
        }
    run = DOMAINS.get(request.get("domain", ""))
    if run is None:
        return {"id": request.get("id", ""), "crash": {"message": "unknown domain", "detail": ""}}
    if request["input"].get("dialect") != "anthropic":
        reason = "the Anthropic SDK reads only the anthropic dialect"
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
