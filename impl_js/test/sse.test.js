// SSE-10: long lines and blocks fed in tiny or large chunks come out whole and in
// order, and each frame comes out of the feed call whose chunk completes it, though
// the parser holds bytes undecoded until a block or, past its hold limit, a line ends.
import { test } from "node:test";
import assert from "node:assert/strict";
import { SseFrameBuffer } from "../src/sse.js";

const encoder = new TextEncoder();

/**
 * @param {Uint8Array[]} chunks
 * @returns {import("../src/sse.js").SseFrame[]}
 */
function feedAll(chunks) {
  const buffer = new SseFrameBuffer();
  return chunks.flatMap((chunk) => buffer.feed(chunk));
}

/** A value of `n` characters that differ along the line, with a few non-ASCII ones. */
function value(n) {
  let text = "";
  for (let i = 0; i < n; i += 1) text += i % 1000 === 999 ? "\u20ac" : String.fromCharCode(97 + (i % 26));
  return text;
}

test("a very long line in one-byte chunks, ended by a one-byte or a longer chunk", () => {
  // 70 000 is past the hold limit (64 KiB), where a one-byte chunk is held only if it ends no line.
  for (const n of [4095, 4096, 4097, 20_000, 70_000]) {
    const bytes = encoder.encode(`data: ${value(n)}`);
    const ones = Array.from(bytes, (b) => Uint8Array.of(b));
    const want = [{ event: null, data: value(n), id: null, retry: null }];
    assert.deepEqual(feedAll([...ones, encoder.encode("\n"), encoder.encode("\n")]), want, `n=${n}, LF alone`);
    assert.deepEqual(feedAll([...ones, encoder.encode("\r\n\r\n")]), want, `n=${n}, CRLF in a longer chunk`);
    // Exactly the blocks pending, then an empty line: the line is not empty.
    assert.deepEqual(feedAll([...ones, encoder.encode("\r"), encoder.encode("\r")]), want, `n=${n}, CR alone`);
  }
});

test("a very long line in two-byte chunks keeps its order", () => {
  const bytes = encoder.encode(`event: ${value(30_001)}\ndata: x\n\n`);
  const chunks = [];
  for (let i = 0; i < bytes.length; i += 2) chunks.push(bytes.subarray(i, i + 2));
  assert.deepEqual(feedAll(chunks), [{ event: value(30_001), data: "x", id: null, retry: null }]);
});

// SSE-11 for chunks of 4 KiB or more, which are decoded in one piece up to their
// last complete character (the streaming decoder keeps the rest): the frames are
// the same as with one-byte chunks (always the streaming decoder), and ill-formed
// bytes become U+FFFD as the WHATWG UTF-8 decoder makes them.

const BIG = 5000;

/** `data: ` and `n` ASCII letters, so a chunk boundary after it falls where the test puts it. */
function filler(n) {
  return encoder.encode(`data: ${value(n).replaceAll("\u20ac", "e")}\n`);
}

/** @param {...(Uint8Array | number[])} parts */
function concat(...parts) {
  return Uint8Array.from(parts.flatMap((part) => Array.from(part)));
}

test("a character split between two large chunks, at every byte of it", () => {
  for (const char of ["\u00e9", "\u20ac", "\u{1f600}"]) {
    const head = filler(BIG);
    const stream = concat(head, encoder.encode(`data: ${char}x\r\n\r\n`));
    const want = [{ event: null, data: `${value(BIG).replaceAll("\u20ac", "e")}\n${char}x`, id: null, retry: null }];
    const charAt = head.length + 6;
    for (let cut = charAt; cut <= charAt + encoder.encode(char).length; cut += 1) {
      // Then a large chunk, or a small one (the rest of the character goes through the streaming decoder).
      const tails = [[stream.subarray(cut)], Array.from(stream.subarray(cut), (b) => Uint8Array.of(b))];
      for (const tail of tails) {
        assert.deepEqual(feedAll([stream.subarray(0, cut), ...tail]), want, `${char} cut at +${cut - charAt}`);
      }
    }
  }
});

test("a large chunk's memory reused after feed does not change the split character", () => {
  const bytes = concat(filler(BIG), encoder.encode("data: \u20ac\n\n"));
  const buffer = new SseFrameBuffer();
  const scratch = bytes.slice(0, bytes.length - 3);
  const frames = buffer.feed(scratch); // ends after the first byte of the euro sign
  scratch.fill(0x41);
  frames.push(...buffer.feed(bytes.subarray(bytes.length - 3)));
  assert.equal(frames.length, 1);
  assert.equal(frames[0]?.data.slice(-2), "\n\u20ac");
});

test("ill-formed UTF-8 in and at the end of large chunks becomes U+FFFD as WHATWG says", () => {
  const head = filler(BIG);
  const text = value(BIG).replaceAll("\u20ac", "e");
  /** @type {[string, Uint8Array[], string][]} */
  const cases = [
    ["an invalid byte", [concat(head, [0x64, 0x61, 0x74, 0x61, 0x3a, 0x61, 0xff, 0x62, 0x0a, 0x0a])], "a\ufffdb"],
    ["a surrogate", [concat(head, [0x64, 0x61, 0x74, 0x61, 0x3a, 0xed, 0xa0, 0x80, 0x0a, 0x0a])], "\ufffd\ufffd\ufffd"],
    // E2 82 is one maximal subpart: one U+FFFD, then the A.
    ["a truncated sequence before the next chunk's ASCII", [concat(head, [0x64, 0x61, 0x74, 0x61, 0x3a, 0xe2, 0x82]), concat([0x41, 0x0a, 0x0a], head)], "\ufffdA"],
    // E0 then 80: 80 cannot follow E0, so both bytes are replaced.
    ["a lead byte whose next byte cannot follow it", [concat(head, [0x64, 0x61, 0x74, 0x61, 0x3a, 0xe0]), concat([0x80, 0x0a, 0x0a], head)], "\ufffd\ufffd"],
  ];
  for (const [what, chunks, data] of cases) {
    const frames = feedAll([...chunks, encoder.encode("\n\n")]);
    assert.equal(frames[0]?.data, `${text}\n${data}`, what);
    // Later large chunks (after the ill-formed one) still decode.
    if (chunks.length === 2) assert.equal(frames[1]?.data, text, `${what}: the next block`);
  }
});

test("a BOM starting a large first chunk is dropped, a later one kept", () => {
  const bytes = concat([0xef, 0xbb, 0xbf], filler(BIG), [0xef, 0xbb, 0xbf], encoder.encode(": x\n\n"));
  assert.deepEqual(feedAll([bytes]), [{ event: null, data: value(BIG).replaceAll("\u20ac", "e"), id: null, retry: null }]);
  const second = concat(filler(BIG), [0xef, 0xbb, 0xbf], encoder.encode("data: y\n\n"));
  // The kept BOM starts the second line, whose name is then not `data` (SSE-7e).
  assert.deepEqual(feedAll([second]), [{ event: null, data: value(BIG).replaceAll("\u20ac", "e"), id: null, retry: null }]);
});

test("small chunks switching between all-ASCII and not decode as one stream", () => {
  // Runs of ASCII and non-ASCII small chunks (the ASCII check is skipped after
  // several non-ASCII chunks, then retried), a character split before an
  // all-ASCII chunk, and an incomplete sequence before one (one U+FFFD).
  const ascii = encoder.encode("data: plain ascii line\n");
  const accented = encoder.encode("data: caf\u00e9 \u20ac\n");
  /** @type {Uint8Array[]} */
  const chunks = [encoder.encode("\ufeff")];
  let want = "";
  for (let round = 0; round < 3; round += 1) {
    for (let i = 0; i < 320; i += 1) {
      const chunk = (i >> 6) % 2 === 1 ? accented : ascii; // runs of 64, the last ASCII
      chunks.push(chunk);
      want += new TextDecoder().decode(chunk).slice(6);
    }
    chunks.push(encoder.encode("data: x"), Uint8Array.of(0xe2), encoder.encode("y\n")); // E2 then ASCII: one U+FFFD
    const euro = encoder.encode("data: \u20ac\n"); // cut inside the euro sign
    chunks.push(euro.subarray(0, 7), euro.subarray(7, 8), euro.subarray(8));
    want += "x\ufffdy\n\u20ac\n";
  }
  chunks.push(encoder.encode("\n"));
  const frames = feedAll(chunks);
  assert.equal(frames.length, 1);
  assert.equal(frames[0]?.data, want.slice(0, -1));
});

test("every frame comes out of the chunk that completes it, under any chunking", () => {
  // Blocks of every ending, comments, a block longer than the hold limit (64 KiB)
  // and a run of comment lines longer than it; each prefix fed whole is the reference,
  // and the frames are the ones the text holds.
  const text =
    "data: a\r\n\r\nevent: e\rdata: b\r\r: c\n\nid: 1\n\n" +
    `data: ${value(70_000)}\ndata: ${value(300)}\n\n` +
    ": keep-alive\r\n".repeat(6000) +
    "data: \u20ac\r\n\r\n\ndata: z\n\r\n";
  const bytes = encoder.encode(text);
  const frame = (/** @type {Partial<import("../src/sse.js").SseFrame>} */ fields) => ({ event: null, data: "", id: null, retry: null, ...fields });
  const want = [
    frame({ data: "a" }),
    frame({ event: "e", data: "b" }),
    frame({ id: "1" }),
    frame({ data: `${value(70_000)}\n${value(300)}` }),
    frame({ data: "\u20ac" }),
    frame({ data: "z" }),
  ];
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648);
  for (const most of [1, 3, 700, 9000, 80_000]) {
    const buffer = new SseFrameBuffer();
    let fed = 0;
    /** @type {import("../src/sse.js").SseFrame[]} */
    const frames = [];
    while (fed < bytes.length) {
      const size = Math.min(bytes.length - fed, 1 + (next() % most));
      const got = buffer.feed(bytes.subarray(fed, fed + size));
      frames.push(...got);
      fed += size;
      // Checked at the end, and where a frame came out or every ~500 bytes (a feed of
      // each prefix whole is quadratic).
      if (fed === bytes.length || got.length > 0 || Math.floor(fed / 499) !== Math.floor((fed - size) / 499)) {
        const whole = new SseFrameBuffer().feed(bytes.subarray(0, fed));
        assert.deepEqual(frames, whole, `chunks of up to ${most} bytes, ${fed} bytes fed`);
      }
    }
    assert.deepEqual(frames, want, `chunks of up to ${most} bytes`);
  }
});

test("a held line completed by a large chunk that ends with an empty line is read once", () => {
  // The large chunk's first line ending completes the held line; the rest of the
  // chunk, from just past that ending to its very end, is decoded where it is (not
  // ASCII, so by a decoder rather than as Latin-1).
  const rest = `data: y\n${"data: x\u20ac\n".repeat(600)}\n`;
  for (const first of ["data: a", "data: a\r"]) {
    const large = encoder.encode(`\n${rest}`);
    assert.ok(large.length >= 4096);
    const want = [{ event: null, data: ["a", "y", ...Array(600).fill("x\u20ac")].join("\n"), id: null, retry: null }];
    assert.deepEqual(feedAll([encoder.encode(first), large]), want, JSON.stringify(first));
  }
});

test("a line held past the hold limit is decoded up to its chunk's last line ending, the rest held", () => {
  // Past 64 KiB held, a chunk is decoded up to its last line ending (not only its
  // last empty line), and the incomplete line after it stays held.
  const comment = encoder.encode(`: ${"c".repeat(70_000)}`); // no line ending: all held
  const long = "z".repeat(5000);
  /** @type {[string, Uint8Array[], import("../src/sse.js").SseFrame[]][]} */
  const cases = [
    ["a small chunk", [comment, encoder.encode("\ndata: x"), encoder.encode("y\n\n")], [{ event: null, data: "xy", id: null, retry: null }]],
    ["a large chunk", [comment, encoder.encode(`\ndata: ${long}`), encoder.encode("\n\n")], [{ event: null, data: long, id: null, retry: null }]],
  ];
  for (const [what, chunks, want] of cases) assert.deepEqual(feedAll(chunks), want, what);
});

test("a line over 1 MiB held in small chunks, then the next block", () => {
  // The held buffer, grown past 1 MiB, is given up once the line is decoded; what
  // follows the line in that chunk is held again, once.
  const bytes = encoder.encode(`data: ${value(1_100_000)}`);
  const chunks = [];
  for (let at = 0; at < bytes.length; at += 4000) chunks.push(bytes.subarray(at, at + 4000));
  chunks.push(encoder.encode("\n\ndata: z"), encoder.encode("\n\n"));
  assert.deepEqual(feedAll(chunks), [
    { event: null, data: value(1_100_000), id: null, retry: null },
    { event: null, data: "z", id: null, retry: null },
  ]);
});

test("a held line completed by a large chunk's CR, which ends with a cut character", () => {
  // The chunk has CR endings only; its first one completes the held line, and the
  // bytes after its last one (a line ending inside the euro sign) stay held, undecoded.
  const large = concat(encoder.encode(`\r\rdata: ${"x".repeat(5000)}\r\rdata: `), [0xe2, 0x82]);
  assert.deepEqual(feedAll([encoder.encode("data: a"), large, concat([0xac], encoder.encode("\r\r"))]), [
    { event: null, data: "a", id: null, retry: null },
    { event: null, data: "x".repeat(5000), id: null, retry: null },
    { event: null, data: "\u20ac", id: null, retry: null },
  ]);
});

test("an LF after a chunk-final CR that ended a long held line is swallowed (SSE-3b)", () => {
  // The large chunk's only line ending is its last byte, a CR completing the held
  // line (decoded past the hold limit); the next chunk's LF is that CR's CRLF, not an empty line.
  const chunks = [encoder.encode("data: a"), encoder.encode(`${"b".repeat(66_000)}\r`), encoder.encode("\ndata: c\n\n")];
  assert.deepEqual(feedAll(chunks), [{ event: null, data: `a${"b".repeat(66_000)}\nc`, id: null, retry: null }]);
});

test("a chunk that starts with U+0001 after a dispatched block keeps it", () => {
  // Only an LF right after a CR is dropped at a chunk's start (SSE-3b; a CR there is the
  // vector cr-starting-a-chunk-after-a-dispatch-is-an-empty-line): U+0001 starts a line
  // whose name is then not `data` (SSE-7e).
  const a = { event: null, data: "a", id: null, retry: null };
  assert.deepEqual(feedAll([encoder.encode("data: a\n\n"), encoder.encode("\u0001data: b\n\n")]), [a]);
});

test("feed takes only a Uint8Array", () => {
  assert.throws(() => new SseFrameBuffer().feed(/** @type {any} */ ("data: x\n\n")), TypeError);
  assert.throws(() => new SseFrameBuffer().feed(/** @type {any} */ ([100, 10, 10])), TypeError);
});
