// mcp-stdio JS half of bench/mcp_stdio_decode.py: impl_js's StdioMessageDecoder against
// @modelcontextprotocol/sdk 1.32.2's ReadBuffer + processReadBuffer (installed in
// examples/mcp-js-stdio), on the same file cut into 64 KiB chunks; prints the medians.
//   node bench/mcp-stdio-js.mjs STREAM_FILE REPEAT
import { readFileSync } from "node:fs";

import { StdioMessageDecoder } from "../impl_js/src/mcp-stdio.js";

const sdkPath = new URL("../examples/mcp-js-stdio/node_modules/@modelcontextprotocol/sdk/dist/esm/client/stdio.js", import.meta.url);
const { StdioClientTransport } = await import(sdkPath.href);

const [file, repeatText] = process.argv.slice(2);
const data = readFileSync(file);
const chunks = [];
for (let i = 0; i < data.length; i += 65536) chunks.push(data.subarray(i, i + 65536));

function ours() {
  const decoder = new StdioMessageDecoder();
  let n = 0;
  for (const c of chunks) n += decoder.feed(c).length;
  return n + decoder.close().length;
}

function sdk() {
  // The transport's stdout 'data' handler: append, then processReadBuffer().
  const transport = new StdioClientTransport({ command: "replay" });
  let n = 0;
  transport.onmessage = () => n++;
  transport.onerror = () => n++;
  for (const c of chunks) {
    transport._readBuffer.append(c);
    transport.processReadBuffer();
  }
  return n;
}

const count = ours();
if (count !== sdk()) throw new Error(`message counts differ: ${count} vs ${sdk()}`);
const times = { ours: [], sdk: [] };
for (let r = 0; r < Number(repeatText); r++) {
  for (const [name, fn] of [["ours", ours], ["sdk", sdk]]) {
    const start = process.hrtime.bigint();
    fn();
    times[name].push(Number(process.hrtime.bigint() - start) / 1e9);
  }
}
const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(JSON.stringify({ ours: median(times.ours), sdk: median(times.sdk), messages: count }));
