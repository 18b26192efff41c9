"""mcp-stdio: decoding a large server stdout stream, ours against the official SDKs'.

Python: impl_python's StdioMessageDecoder against mcp 2.3.0's stdio_client reader (its
TextReceiveStream + split loop + _parse_line, driven through the replay process of
examples/mcp-python-stdio/worker.py), interleaved in one process. JS: impl_js's
StdioMessageDecoder against @modelcontextprotocol/sdk 1.32.2's ReadBuffer +
processReadBuffer (bench/mcp-stdio-js.mjs, one node process). Rust: hanzo-mcp-stdio's
StdioMessageDecoder against rmcp 3.11.0's AsyncRwTransport::receive (bench/mcp-stdio-rust,
a binary outside the root workspace). All start from the same
bytes, cut into 64 KiB chunks (a pipe's read size), and must yield the same number of
messages before they are timed. Medians of --repeat runs; ratio = SDK time / ours.

    python -m venv examples/mcp-python-stdio/.venv   # as its README says
    examples/mcp-python-stdio/.venv/bin/pip install -r examples/mcp-python-stdio/requirements.txt
    npm ci --prefix examples/mcp-js-stdio
    CARGO_TARGET_DIR=examples/rmcp-stdio/target cargo build --release --locked \\
        --manifest-path bench/mcp-stdio-rust/Cargo.toml
    examples/mcp-python-stdio/.venv/bin/python bench/mcp_stdio_decode.py --repeat 5 \\
        --node "$(.venv/bin/python -c 'from adapters.js import find_node; print(find_node())')"
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "examples" / "mcp-python-stdio"))

from impl_python.mcp_stdio import StdioMessageDecoder  # noqa: E402

CHUNK = 65536


def stream(kind: str) -> bytes:
    """A server's stdout: many small messages, or tools/list pages of long tools."""
    lines = []
    if kind == "small":
        for i in range(40_000):
            if i % 4 == 3:
                params = {"progressToken": i, "progress": i, "message": "étape ✓"}
                lines.append(
                    {"jsonrpc": "2.0", "method": "notifications/progress", "params": params}
                )
            else:
                content = [{"type": "text", "text": f"line {i}: résultat 😀 " * 4}]
                lines.append({"jsonrpc": "2.0", "id": i, "result": {"content": content}})
    else:
        for i in range(400):
            tools = [
                {
                    "name": f"tool_{i}_{j}",
                    "description": "Reads a file. " * 40,
                    "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}},
                }
                for j in range(40)
            ]
            lines.append(
                {"jsonrpc": "2.0", "id": i, "result": {"tools": tools, "nextCursor": str(i)}}
            )
    text = "".join(json.dumps(m, ensure_ascii=False, separators=(",", ":")) + "\n" for m in lines)
    return text.encode("utf-8")


def chunks_of(data: bytes) -> list[bytes]:
    return [data[i : i + CHUNK] for i in range(0, len(data), CHUNK)]


def ours(chunks: list[bytes]) -> int:
    decoder = StdioMessageDecoder()
    return sum(len(decoder.feed(c)) for c in chunks) + len(decoder.close())


def sdk(chunks: list[bytes]) -> int:
    import anyio
    import worker  # examples/mcp-python-stdio/worker.py: the SDK's reader, replayed

    latin = [c.decode("latin-1") for c in chunks]
    out = anyio.run(
        worker._decode, {"op": "decode", "chunks": latin, "encoding": "bytes", "eof": True}
    )
    return len(out["messages"])


def timed(fn, chunks: list[bytes]) -> float:  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    fn(chunks)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--node", default="node")
    default_rust = ROOT / "examples" / "rmcp-stdio" / "target" / "release" / "mcp-stdio-rust-bench"
    parser.add_argument("--rust", default=str(default_rust))
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for kind in ("small", "tools"):
            data = stream(kind)
            chunks = chunks_of(data)
            n_ours, n_sdk = ours(chunks), sdk(chunks)
            assert n_ours == n_sdk, (kind, n_ours, n_sdk)
            py_ours, py_sdk = [], []
            for _ in range(args.repeat):
                py_ours.append(timed(ours, chunks))
                py_sdk.append(timed(sdk, chunks))
            path = Path(folder) / f"{kind}.jsonl"
            path.write_bytes(data)
            js = subprocess.run(
                [args.node, str(ROOT / "bench" / "mcp-stdio-js.mjs"), str(path), str(args.repeat)],
                capture_output=True,
                text=True,
                check=True,
            )
            js_result = json.loads(js.stdout)
            rust = subprocess.run(
                [args.rust, str(path), str(args.repeat)], capture_output=True, text=True, check=True
            )
            rust_result = json.loads(rust.stdout)
            assert js_result["messages"] == rust_result["messages"] == n_ours
            medians = (statistics.median(py_ours), statistics.median(py_sdk))
            rows.append((kind, len(data), n_ours, *medians, js_result, rust_result))
    head = "| stream | bytes | messages | py ours | py mcp 2.3.0 | ratio | js ours "
    head += "| js sdk 1.32.2 | ratio | rust ours | rust rmcp 3.11.0 | ratio |"
    print(head)
    print("|---" * 12 + "|")
    for kind, size, n, po, ps, js, rs in rows:
        ms = lambda t: f"{t * 1e3:.1f} ms"  # noqa: E731
        print(
            f"| {kind} | {size / 1e6:.1f} MB | {n} | {ms(po)} | {ms(ps)} | {ps / po:.1f}x "
            f"| {ms(js['ours'])} | {ms(js['sdk'])} | {js['sdk'] / js['ours']:.1f}x "
            f"| {ms(rs['ours'])} | {ms(rs['sdk'])} | {rs['sdk'] / rs['ours']:.1f}x |"
        )


if __name__ == "__main__":
    main()
