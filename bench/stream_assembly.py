"""Stream assembly on long streams: our three assemblers beside the providers' SDK helpers.

Usage (from the repository root; the SDKs in a virtualenv of their own, as the examples do)::

    python -m venv /tmp/sdk-bench
    /tmp/sdk-bench/bin/pip install -r examples/openai-python-stream/requirements.txt \\
        -r examples/anthropic-python-stream/requirements.txt
    npm ci --prefix examples/openai-js-stream && npm ci --prefix examples/anthropic-js-stream
    /tmp/sdk-bench/bin/python bench/stream_assembly.py [--repeat 5] [--scale 1] \
        --node "$(.venv/bin/python -c 'from adapters.js import find_node; print(find_node())')"

Four workloads, each one response body (SSE bytes) built here: many small text deltas
and many tool calls (each call's arguments in many small fragments), in each dialect.
Every contender gets the same body bytes and does the whole read, SSE parsing included:
ours is sse-frames' SseFrameBuffer (fed 16 KiB chunks) then the StreamAssembler, on
each platform; the SDKs read the body through their public stream helpers, served by
their own transport hooks (httpx2.MockTransport, a custom fetch), to the final message.
Times are the median of ``--repeat`` runs (wall clock, one process per language, the
contenders interleaved); the ratio is the SDK's median over ours. The tool calls and
texts every contender assembles are checked against ours once before timing.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from impl_python.sse import SseFrameBuffer  # noqa: E402
from impl_python.stream_assembly import StreamAssembler, ToolUse  # noqa: E402

CHUNK = 16384
_dump = json.JSONEncoder(separators=(",", ":")).encode


def _frame(data: str, event: str | None = None) -> str:
    return ("" if event is None else f"event: {event}\n") + f"data: {data}\n\n"


def _chunk(delta: dict[str, Any], finish: str | None = None) -> str:
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    body = {
        "id": "c",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "m",
        "choices": [choice],
    }
    return _frame(_dump(body))


def _arguments(i: int) -> str:
    return _dump({"path": f"/tmp/file-{i}.txt", "line": i, "text": "lorem ipsum dolor " * 4})


def _pieces(text: str, size: int) -> list[str]:
    return [text[k : k + size] for k in range(0, len(text), size)]


def openai_text(n: int) -> bytes:
    out = [_chunk({"role": "assistant", "content": ""})]
    out += [_chunk({"content": f"w{i % 97} "}) for i in range(n)]
    out += [_chunk({}, "stop"), _frame("[DONE]")]
    return "".join(out).encode()


def openai_tools(calls: int) -> bytes:
    out = [_chunk({"role": "assistant", "content": None})]
    for i in range(calls):
        head = {
            "index": i,
            "id": f"call_{i}",
            "type": "function",
            "function": {"name": "write", "arguments": ""},
        }
        out.append(_chunk({"tool_calls": [head]}))
        for piece in _pieces(_arguments(i), 4):
            out.append(_chunk({"tool_calls": [{"index": i, "function": {"arguments": piece}}]}))
    out += [_chunk({}, "tool_calls"), _frame("[DONE]")]
    return "".join(out).encode()


def _anthropic_start() -> str:
    message = {
        "id": "msg",
        "type": "message",
        "role": "assistant",
        "content": [],
        "model": "m",
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 1},
    }
    return _frame(_dump({"type": "message_start", "message": message}), "message_start")


def _anthropic_end(stop: str) -> str:
    delta = {
        "type": "message_delta",
        "delta": {"stop_reason": stop, "stop_sequence": None},
        "usage": {"output_tokens": 9},
    }
    return _frame(_dump(delta), "message_delta") + _frame(
        _dump({"type": "message_stop"}), "message_stop"
    )


def _block(kind: str, payload: dict[str, Any]) -> str:
    return _frame(_dump({"type": kind, **payload}), kind)


def anthropic_text(n: int) -> bytes:
    out = [
        _anthropic_start(),
        _block("content_block_start", {"index": 0, "content_block": {"type": "text", "text": ""}}),
    ]
    for i in range(n):
        out.append(
            _block(
                "content_block_delta",
                {"index": 0, "delta": {"type": "text_delta", "text": f"w{i % 97} "}},
            )
        )
    out += [_block("content_block_stop", {"index": 0}), _anthropic_end("end_turn")]
    return "".join(out).encode()


def anthropic_tools(calls: int) -> bytes:
    out = [_anthropic_start()]
    for i in range(calls):
        block = {"type": "tool_use", "id": f"toolu_{i}", "name": "write", "input": {}}
        out.append(_block("content_block_start", {"index": i, "content_block": block}))
        for piece in _pieces(_arguments(i), 4):
            delta = {"type": "input_json_delta", "partial_json": piece}
            out.append(_block("content_block_delta", {"index": i, "delta": delta}))
        out.append(_block("content_block_stop", {"index": i}))
    out.append(_anthropic_end("tool_use"))
    return "".join(out).encode()


def ours(dialect: str, body: bytes) -> tuple[str, list[tuple[str, str, Any]]]:
    frames = SseFrameBuffer()
    assembler = StreamAssembler(dialect)
    events = []
    for at in range(0, len(body), CHUNK):
        for frame in frames.feed(body[at : at + CHUNK]):
            events.extend(assembler.feed(frame))
    events.extend(assembler.end())
    text = "".join(e.text for e in events if type(e).__name__ == "ContentDelta")
    calls = [(e.id, e.name, e.input) for e in events if isinstance(e, ToolUse)]
    return text, calls


def openai_sdk(dialect: str, body: bytes) -> tuple[str, list[tuple[str, str, Any]]]:
    import httpx2
    import openai

    def handler(request: Any) -> Any:
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=body)

    transport = httpx2.MockTransport(handler)
    client = openai.OpenAI(
        api_key="x",
        base_url="http://b.test/v1",
        max_retries=0,
        http_client=httpx2.Client(transport=transport),
    )
    with client.chat.completions.stream(
        model="m", messages=[{"role": "user", "content": "x"}]
    ) as stream:
        for _ in stream:
            pass
        final = stream.get_final_completion()
    message = final.choices[0].message
    calls = [
        (c.id, c.function.name, json.loads(c.function.arguments)) for c in message.tool_calls or []
    ]
    return message.content or "", calls


def anthropic_sdk(dialect: str, body: bytes) -> tuple[str, list[tuple[str, str, Any]]]:
    import anthropic
    import httpx2

    def handler(request: Any) -> Any:
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=body)

    transport = httpx2.MockTransport(handler)
    client = anthropic.Anthropic(
        api_key="x",
        base_url="http://b.test",
        max_retries=0,
        http_client=httpx2.Client(transport=transport),
    )
    with client.messages.stream(
        model="m", max_tokens=10, messages=[{"role": "user", "content": "x"}]
    ) as stream:
        for _ in stream:
            pass
        final = stream.get_final_message()
    text = "".join(b.text for b in final.content if b.type == "text")
    calls = [(b.id, b.name, b.input) for b in final.content if b.type == "tool_use"]
    return text, calls


def seconds(read: Callable[[str, bytes], object], dialect: str, body: bytes) -> float:
    start = time.perf_counter()
    read(dialect, body)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every workload's size")
    parser.add_argument("--node", default=shutil.which("node") or "node", help="a Node >= 22")
    args = parser.parse_args()
    n_text, n_calls = int(4000 * args.scale), int(40 * args.scale)
    workloads = {
        "openai-text": ("openai-chat", openai_text(n_text), openai_sdk),
        "openai-tools": ("openai-chat", openai_tools(n_calls), openai_sdk),
        "anthropic-text": ("anthropic", anthropic_text(n_text), anthropic_sdk),
        "anthropic-tools": ("anthropic", anthropic_tools(n_calls), anthropic_sdk),
    }
    folder = Path(tempfile.mkdtemp(prefix="stream-assembly-bench-"))
    rows: dict[str, dict[str, float]] = {}
    try:
        for name, (dialect, body, sdk) in workloads.items():
            (folder / f"{name}.sse").write_bytes(body)
            expected = ours(dialect, body)
            assert sdk(dialect, body) == expected, f"{name}: the SDK assembled something else"
            ours_s, sdk_s = [], []
            for _ in range(args.repeat):  # interleaved
                ours_s.append(seconds(ours, dialect, body))
                sdk_s.append(seconds(sdk, dialect, body))
            rows[name] = {"py-ours": statistics.median(ours_s), "py-sdk": statistics.median(sdk_s)}
        js = subprocess.run(
            [
                args.node,
                str(ROOT / "bench" / "stream-assembly-js.mjs"),
                str(folder),
                str(args.repeat),
            ],
            check=True,
            capture_output=True,
            text=True,
            timeout=1800,
        )
        for name, timing in json.loads(js.stdout).items():
            rows[name].update(timing)
        rust = subprocess.run(
            [
                "cargo",
                "run",
                "-q",
                "--release",
                "-p",
                "hanzo-stream",
                "--example",
                "assemble_bench",
                "--",
                str(folder),
                str(args.repeat),
            ],
            cwd=ROOT,
            check=True,
            capture_output=True,
            text=True,
            timeout=1800,
        )
        for name, timing in json.loads(rust.stdout).items():
            rows[name].update(timing)
    finally:
        shutil.rmtree(folder)
    print("| workload | body | py ours | py SDK | ratio | js ours | js SDK | ratio | rust ours |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, (_dialect, body, _sdk) in workloads.items():
        r = rows[name]
        cells = [
            name,
            f"{len(body) / 1e6:.2f} MB",
            f"{r['py-ours'] * 1e3:.1f} ms",
            f"{r['py-sdk'] * 1e3:.1f} ms",
            f"{r['py-sdk'] / r['py-ours']:.1f}x",
            f"{r['js-ours'] * 1e3:.1f} ms",
            f"{r['js-sdk'] * 1e3:.1f} ms",
            f"{r['js-sdk'] / r['js-ours']:.1f}x",
            f"{r['rust-ours'] * 1e3:.2f} ms",
        ]
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
