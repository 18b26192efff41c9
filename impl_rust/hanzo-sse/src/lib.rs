//! Incremental Server-Sent Events frame parsing (HIP-301; contract:
//! `docs/domains/sse-frames.md`, clauses `SSE-1`..`SSE-10`).
//!
//! Feed the byte chunks of a response body in stream order to one
//! [`SseFrameBuffer`]; each call to [`SseFrameBuffer::feed`] returns the frames
//! that chunk completes. The bytes are decoded as UTF-8 across chunks (a
//! character split between chunks survives; invalid sequences become U+FFFD,
//! `SSE-11`). Chunk boundaries never change the result, and feeding is linear
//! in the total input: only newly fed bytes are scanned, and the incomplete
//! line is kept in a growable buffer.
//!
//! Speed (`bench/README.md`): a chunk is validated as UTF-8 with `simdutf8` and
//! searched for CR and LF with `memchr`, both SIMD; lines are interpreted in
//! place, and the only copies are of field values and of a line cut by a chunk
//! boundary.
//!
//! ```
//! use hanzo_sse::{SseFrame, SseFrameBuffer};
//!
//! let mut buffer = SseFrameBuffer::new();
//! assert!(buffer.feed(b"event: greet\r\ndata: hel\xE2\x82").is_empty());
//! let frames = buffer.feed(b"\xACo\r\n\r\n");
//! assert_eq!(
//!     frames,
//!     vec![SseFrame {
//!         event: Some("greet".to_owned()),
//!         data: "hel\u{20ac}o".to_owned(),
//!         id: None,
//!         retry: None,
//!     }]
//! );
//! ```

use std::{mem, str};

/// The largest accepted `retry` value, 2^53−1 (`SSE-7d`): every platform,
/// including JavaScript numbers, represents it exactly.
pub const MAX_RETRY: u64 = (1 << 53) - 1;

/// Number of decimal digits of [`MAX_RETRY`].
const MAX_RETRY_DIGITS: usize = 16;

/// One dispatched block (`SSE-8a`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct SseFrame {
    /// The last `event` value of the block, or `None` if the block had no `event` line.
    pub event: Option<String>,
    /// The `data` values joined with LF; empty if the block had no `data` line.
    pub data: String,
    /// The last accepted `id` value of the block, or `None`. `Some("")` is an id.
    pub id: Option<String>,
    /// The last accepted `retry` value of the block, or `None`.
    pub retry: Option<u64>,
}

/// Accumulates byte chunks and returns complete SSE frames.
#[derive(Debug, Clone, Default)]
pub struct SseFrameBuffer {
    /// The start of a UTF-8 sequence cut by the end of the last chunk (`SSE-11b`).
    split: SplitChar,
    /// What to drop if it starts the next non-empty chunk.
    skip: Skip,
    /// The incomplete line (`SSE-3d`); one buffer, reused for every line.
    pending: String,
    /// The current block.
    block: Block,
    /// How many frames the last call to [`Self::feed`] returned.
    last_frames: usize,
}

/// The first 1 to 3 bytes of a UTF-8 sequence whose other bytes have not been fed yet.
#[derive(Debug, Clone, Copy, Default)]
struct SplitChar {
    bytes: [u8; 4],
    /// How many of `bytes` are held; 0 when no sequence is split.
    len: usize,
}

/// The code point dropped if it starts the next non-empty chunk. Empty chunks
/// leave it alone (`SSE-1`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum Skip {
    /// A BOM: no non-empty chunk has been seen yet (`SSE-2`).
    #[default]
    Bom,
    /// An LF: the last code point fed was CR (`SSE-3b`).
    Lf,
    /// Nothing.
    Nothing,
}

/// The state of the block being read; reset on every dispatch (`SSE-8c`).
#[derive(Debug, Clone, Default)]
struct Block {
    event: Option<String>,
    /// The `data` values joined with LF (`SSE-7b`); its buffer is reused by the next block.
    data: String,
    /// A `data` line was accepted (so an empty `data` is one empty value).
    has_data: bool,
    id: Option<String>,
    retry: Option<u64>,
    /// An `event`, `data`, `id` or `retry` line was accepted (`SSE-8a`).
    touched: bool,
}

impl SseFrameBuffer {
    /// A fresh buffer at the start of a stream.
    pub fn new() -> Self {
        Self::default()
    }

    /// Feed the next chunk of the stream; returns the frames it completes, in order.
    ///
    /// The returned `Vec` allocates only when a frame completes.
    #[inline]
    pub fn feed(&mut self, chunk: &[u8]) -> Vec<SseFrame> {
        // Sized by the last call's frames: the next chunk of a stream usually
        // completes about as many, and growing a `Vec` of frames from empty
        // reallocated and copied it ~8 times per 64 KiB chunk.
        let mut frames = Vec::with_capacity(self.last_frames);
        self.feed_into(chunk, &mut frames);
        self.last_frames = frames.len();
        frames
    }

    /// Like [`Self::feed`], but appends the frames to `frames`: a caller that
    /// drains one `Vec` after every chunk reuses its allocation (saving 10-20% of
    /// the time on many small events, measured at 64 KiB chunks).
    ///
    /// ```
    /// let mut buffer = hanzo_sse::SseFrameBuffer::new();
    /// let mut frames = Vec::new();
    /// for chunk in [&b"data: a\n\nda"[..], b"ta: b\n\n"] {
    ///     buffer.feed_into(chunk, &mut frames);
    ///     for frame in frames.drain(..) {
    ///         assert!(!frame.data.is_empty());
    ///     }
    /// }
    /// ```
    #[inline]
    pub fn feed_into(&mut self, chunk: &[u8], frames: &mut Vec<SseFrame>) {
        if let &[byte] = chunk {
            if self.feed_byte(byte, frames) {
                return;
            }
        }
        if self.split.len == 0 {
            if let Ok(text) = simdutf8::basic::from_utf8(chunk) {
                self.feed_text(text, frames);
                return;
            }
        }
        self.feed_lossy(chunk, frames);
    }

    /// The common one-byte chunks (chunks of single characters) with less work
    /// than the general path, and the same result; `false` if `byte` needs the
    /// general path (a line ending, an invalid byte).
    #[inline]
    fn feed_byte(&mut self, byte: u8, frames: &mut Vec<SseFrame>) -> bool {
        if self.split.len == 0 {
            if byte.is_ascii() {
                if byte == b'\r' || byte == b'\n' {
                    return false;
                }
                // It continues the pending line. A BOM or LF to skip cannot be this
                // byte, so nothing is skipped any more either way.
                self.skip = Skip::Nothing;
                self.pending.push(char::from(byte));
                return true;
            }
            // The lead byte of a multi-byte sequence, held until the sequence is
            // complete: exactly the bytes the general path would hold (SSE-11b).
            if (0xC2..=0xF4).contains(&byte) {
                self.split.bytes[0] = byte;
                self.split.len = 1;
                return true;
            }
            return false;
        }
        let held = self.split.len;
        let mut bytes = self.split.bytes;
        bytes[held] = byte;
        match str::from_utf8(&bytes[..=held]) {
            Ok(text) => {
                self.split.len = 0;
                if self.skip == Skip::Nothing {
                    // Not a line ending, and nothing to skip: it continues the pending line.
                    self.pending.push_str(text);
                } else {
                    self.feed_text(text, frames);
                }
                true
            }
            Err(error) if error.error_len().is_none() => {
                // Still a valid prefix of a sequence.
                self.split.bytes = bytes;
                self.split.len = held + 1;
                true
            }
            Err(_) => false,
        }
    }

    /// [`Self::feed`] for a chunk that is not valid UTF-8 on its own: complete the
    /// split sequence first, replace each maximal invalid subpart with U+FFFD, and
    /// hold a sequence cut by the end of the chunk (`SSE-11`).
    fn feed_lossy(&mut self, mut chunk: &[u8], frames: &mut Vec<SseFrame>) {
        if self.split.len > 0 {
            let held = self.split.len;
            let mut bytes = self.split.bytes;
            let taken = chunk.len().min(4 - held);
            bytes[held..held + taken].copy_from_slice(&chunk[..taken]);
            match str::from_utf8(&bytes[..held + taken]) {
                Ok(text) => {
                    // At most 4 bytes, every one of them part of the completed character.
                    self.feed_text(text, frames);
                    chunk = &chunk[taken..];
                }
                Err(error) => {
                    let valid = error.valid_up_to();
                    if valid > 0 {
                        // The split character completed; what follows it is decoded below.
                        let text = str::from_utf8(&bytes[..valid]).unwrap_or_default();
                        self.feed_text(text, frames);
                        chunk = &chunk[valid - held..];
                    } else if let Some(invalid) = error.error_len() {
                        self.feed_text("\u{fffd}", frames);
                        // The held bytes are a valid prefix, so the invalid part covers them.
                        chunk = &chunk[invalid - held..];
                    } else {
                        // Still incomplete: the whole chunk continues the sequence.
                        self.split.bytes = bytes;
                        self.split.len = held + taken;
                        return;
                    }
                }
            }
            self.split.len = 0;
        }
        loop {
            match simdutf8::compat::from_utf8(chunk) {
                Ok(text) => {
                    self.feed_text(text, frames);
                    return;
                }
                Err(error) => {
                    let valid = error.valid_up_to();
                    let text = simdutf8::basic::from_utf8(&chunk[..valid]).unwrap_or_default();
                    self.feed_text(text, frames);
                    if let Some(invalid) = error.error_len() {
                        self.feed_text("\u{fffd}", frames);
                        chunk = &chunk[valid + invalid..];
                    } else {
                        // A sequence cut by the end of the chunk: at most 3 bytes.
                        let tail = &chunk[valid..];
                        self.split.bytes[..tail.len()].copy_from_slice(tail);
                        self.split.len = tail.len();
                        return;
                    }
                }
            }
        }
    }

    /// Parse decoded text (`SSE-2` to `SSE-9`), appending the frames it completes.
    ///
    /// Line endings are found with `memchr2` (SIMD), and every line is
    /// interpreted in place in `chunk`; only a line cut by the end of the chunk
    /// is copied, into [`Self::pending`].
    fn feed_text(&mut self, chunk: &str, frames: &mut Vec<SseFrame>) {
        let bytes = chunk.as_bytes();
        let Some(&first) = bytes.first() else {
            return;
        };
        let start = match self.skip {
            Skip::Bom if bytes.starts_with(BOM) => BOM.len(),
            // The LF of a CRLF whose CR, at the end of the last chunk, ended the line.
            Skip::Lf if first == b'\n' => 1,
            Skip::Bom | Skip::Lf | Skip::Nothing => 0,
        };
        // A chunk-final CR has ended its line; an LF starting the next chunk is its CRLF's.
        self.skip = if bytes.last() == Some(&b'\r') {
            Skip::Lf
        } else {
            Skip::Nothing
        };
        // Most streams have no CR at all: one pass that finds none lets the
        // lines be found by the cheaper one-byte search.
        let start = if memchr::memchr(b'\r', bytes).is_none() {
            self.lines(chunk, start, memchr::memchr_iter(b'\n', bytes), frames)
        } else {
            self.lines(
                chunk,
                start,
                memchr::memchr2_iter(b'\n', b'\r', bytes),
                frames,
            )
        };
        if let Some(rest) = chunk.get(start..) {
            self.pending.push_str(rest);
        }
    }

    /// Interpret the complete lines of `chunk` from `start`, given the
    /// positions of its line endings (every CR and LF, in order); returns where
    /// its incomplete last line starts.
    #[inline]
    fn lines(
        &mut self,
        chunk: &str,
        mut start: usize,
        ends: impl Iterator<Item = usize>,
        frames: &mut Vec<SseFrame>,
    ) -> usize {
        let bytes = chunk.as_bytes();
        for end in ends {
            if end < start {
                // The LF of a CRLF within the chunk (SSE-3b).
                continue;
            }
            // CR, LF and CR and LF are all ASCII, so every index here is a char boundary.
            let line = &chunk[start..end];
            start = if bytes[end] == b'\r' && bytes.get(end + 1) == Some(&b'\n') {
                end + 2
            } else {
                end + 1
            };
            if self.pending.is_empty() {
                self.block.line(line, frames);
            } else {
                self.pending.push_str(line);
                self.block.line(&self.pending, frames);
                // Keep the allocation for the next incomplete line.
                self.pending.clear();
            }
        }
        start
    }
}

/// The UTF-8 byte order mark, dropped once at the start of the stream (`SSE-2`).
const BOM: &[u8] = "\u{feff}".as_bytes();

impl Block {
    /// Interpret one complete line (`SSE-4` to `SSE-8`).
    fn line(&mut self, line: &str, frames: &mut Vec<SseFrame>) {
        if line.is_empty() {
            if let Some(frame) = self.dispatch() {
                frames.push(frame);
            }
            return;
        }
        // The common case first: a data line with a colon (same result as below).
        if let Some(value) = line.strip_prefix("data:") {
            self.push_data(value.strip_prefix(' ').unwrap_or(value));
            return;
        }
        // Then event lines, as below but without the search for the colon.
        if let Some(value) = line.strip_prefix("event:") {
            let value = value.strip_prefix(' ').unwrap_or(value);
            self.event = (!value.is_empty()).then(|| value.to_owned());
            self.touched = true;
            return;
        }
        let (name, value) = match line.split_once(':') {
            Some(("", _)) => return, // comment (SSE-5)
            Some((name, value)) => (name, value.strip_prefix(' ').unwrap_or(value)),
            None => (line, ""),
        };
        match name {
            // The empty value unsets the event type (SSE-7a).
            "event" => {
                self.event = (!value.is_empty()).then(|| value.to_owned());
                self.touched = true;
            }
            "data" => self.push_data(value),
            // An id containing NUL is ignored (SSE-7c).
            "id" if !value.contains('\0') => {
                self.id = Some(value.to_owned());
                self.touched = true;
            }
            "retry" => {
                if let Some(retry) = parse_retry(value) {
                    self.retry = Some(retry);
                    self.touched = true;
                }
            }
            // Unknown names, and rejected id lines (SSE-7e).
            _ => {}
        }
    }

    /// Append one `data` value, LF-separated from the previous one (`SSE-7b`).
    fn push_data(&mut self, value: &str) {
        if self.has_data {
            self.data.push('\n');
        }
        self.data.push_str(value);
        self.has_data = true;
        self.touched = true;
    }

    /// End the block: the frame if any field was accepted, and a reset either way (`SSE-8`).
    /// (A block with no accepted line holds nothing to reset.)
    fn dispatch(&mut self) -> Option<SseFrame> {
        if !self.touched {
            return None;
        }
        // `data` is a scratch buffer kept from block to block, so that a block of many
        // data lines grows no new buffer; the frame gets an exact copy. Past
        // `KEEP_DATA` the buffer itself goes into the frame (no copy, nothing large kept).
        let data = if self.data.capacity() > KEEP_DATA {
            mem::take(&mut self.data)
        } else {
            let data = self.data.as_str().to_owned();
            self.data.clear();
            data
        };
        self.has_data = false;
        self.touched = false;
        Some(SseFrame {
            event: self.event.take(),
            data,
            id: self.id.take(),
            retry: self.retry.take(),
        })
    }
}

/// The largest `data` buffer a [`Block`] keeps between blocks, in bytes.
const KEEP_DATA: usize = 64 * 1024;

/// The value of a `retry` field, or `None` if the line is to be ignored (`SSE-7d`):
/// non-empty, ASCII digits only, at most [`MAX_RETRY`]; leading zeros allowed.
pub fn parse_retry(value: &str) -> Option<u64> {
    if value.is_empty() || !value.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let digits = value.trim_start_matches('0');
    if digits.is_empty() {
        return Some(0);
    }
    if digits.len() > MAX_RETRY_DIGITS {
        return None;
    }
    digits.parse::<u64>().ok().filter(|&n| n <= MAX_RETRY)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(data: &str) -> SseFrame {
        SseFrame {
            data: data.to_owned(),
            ..SseFrame::default()
        }
    }

    fn feed_all(chunks: &[&str]) -> Vec<SseFrame> {
        let mut buffer = SseFrameBuffer::new();
        chunks
            .iter()
            .flat_map(|c| buffer.feed(c.as_bytes()))
            .collect()
    }

    fn feed_bytes(chunks: &[&[u8]]) -> Vec<SseFrame> {
        let mut buffer = SseFrameBuffer::new();
        chunks.iter().flat_map(|c| buffer.feed(c)).collect()
    }

    /// Byte strings from pieces that stress the one-byte path (cut, overlong,
    /// surrogate and stray sequences, BOMs, all three endings): fed a byte at a
    /// time they must give what one whole chunk gives (`SSE-1`, `SSE-11`).
    #[test]
    fn one_byte_chunks_match_the_whole_buffer_on_mixed_bytes() {
        const PIECES: [&[u8]; 22] = [
            b"data: ",
            b"event:",
            b"id: ",
            b"x",
            b"\r",
            b"\n",
            b"\r\n",
            b":",
            b"\xef\xbb\xbf",
            b"\xe6\x97\xa5",
            b"\xf0\x9f\x98\x80",
            b"\xc3\xa9",
            b"\xc3",
            b"\xe6\x97",
            b"\xf0\x9f",
            b"\xe0\x80",
            b"\xed\xa0\x80",
            b"\xc0\xaf",
            b"\xff",
            b"\x80",
            b"\xf4\x90\x80\x80",
            b"\xf5",
        ];
        let mut state: u32 = 0x2545_f491;
        let mut next = move || {
            // xorshift32: a fixed sequence, enough to mix the pieces.
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            state as usize
        };
        for _ in 0..2000 {
            let mut input = Vec::new();
            for _ in 0..next() % 24 {
                input.extend_from_slice(PIECES[next() % PIECES.len()]);
            }
            let bytes: Vec<&[u8]> = input.chunks(1).collect();
            assert_eq!(feed_bytes(&bytes), feed_bytes(&[&input]), "{input:?}");
        }
    }

    #[test]
    fn utf8_split_at_every_byte_and_invalid_bytes() {
        let text = "data: \u{e9}\u{20ac}\u{1F600}\n\n".as_bytes();
        let want = vec![frame("\u{e9}\u{20ac}\u{1F600}")];
        let bytes: Vec<&[u8]> = text.chunks(1).collect();
        assert_eq!(feed_bytes(&bytes), want, "one byte per chunk");
        for i in 1..text.len() {
            let (a, b) = text.split_at(i);
            assert_eq!(feed_bytes(&[a, b]), want, "split@{i}");
        }
        // Overlong, surrogate, truncated-before-LF, lone continuation, F5..FF.
        let bad: &[u8] = b"data: \xC0\xAF\xED\xA0\x80\xF0\x9F\x98 \x80\xFF\n\n";
        let want = vec![frame(&format!(
            "{} {}",
            "\u{fffd}".repeat(6),
            "\u{fffd}".repeat(2)
        ))];
        let bad_bytes: Vec<&[u8]> = bad.chunks(1).collect();
        assert_eq!(feed_bytes(&[bad]), want);
        assert_eq!(feed_bytes(&bad_bytes), want);
        assert!(feed_bytes(&[b"data: x\n\xF0\x9F", b"", b"\x98"]).is_empty());
    }

    #[test]
    fn utf8_bom_split_is_dropped_once() {
        let want = vec![frame("1")];
        assert_eq!(feed_bytes(&[b"\xEF", b"\xBB\xBFdata:1\n\n"]), want);
        assert_eq!(
            feed_bytes(&[b"\xEF\xBB", b"\xBF\xEF\xBB\xBFdata:1\n\ndata:2\n\n"]),
            vec![frame("2")]
        );
    }

    /// Every chunking of `text` (joined, one char per chunk, every two-way split) agrees.
    fn assert_chunking_invariant(text: &str, expected: &[SseFrame]) {
        assert_eq!(feed_all(&[text]), expected, "joined");
        let chars: Vec<String> = text.chars().map(String::from).collect();
        let refs: Vec<&str> = chars.iter().map(String::as_str).collect();
        assert_eq!(feed_all(&refs), expected, "one per chunk");
        for (i, _) in text.char_indices().skip(1) {
            let (a, b) = text.split_at(i);
            assert_eq!(feed_all(&[a, b]), expected, "split@{i}");
        }
    }

    #[test]
    fn crlf_split_across_chunks_and_empty_chunks() {
        let got = feed_all(&["data: a\r", "", "", "\n", "\r", "", "\n"]);
        assert_eq!(got, vec![frame("a")]);
        let got = feed_all(&["data: a\r", "\ndata: b\r", "\n\r\n"]);
        assert_eq!(got, vec![frame("a\nb")]);
    }

    #[test]
    fn line_endings_are_chunking_invariant() {
        assert_chunking_invariant(
            "data: a\r\ndata: b\ndata: c\r\rdata: d\n\r\n",
            &[frame("a\nb\nc"), frame("d")],
        );
        assert_chunking_invariant("data: a\r\r\ndata: b\n\n", &[frame("a"), frame("b")]);
        assert_chunking_invariant("data: a\n\r", &[frame("a")]);
        assert_chunking_invariant(
            "data: \u{1F600}\u{1F389}\n\n",
            &[frame("\u{1F600}\u{1F389}")],
        );
    }

    #[test]
    fn bom_dropped_once_even_after_empty_chunks() {
        assert_eq!(feed_all(&["", "\u{feff}data: x\n\n"]), vec![frame("x")]);
        assert_eq!(feed_all(&["\u{feff}", "data: x\n\n"]), vec![frame("x")]);
        assert_eq!(
            feed_all(&["\u{feff}", "\u{feff}data: x\n\ndata: y\n\n"]),
            vec![frame("y")]
        );
        assert_eq!(
            feed_all(&["data: a\n\n", "\u{feff}data: b\n\n"]),
            vec![frame("a")]
        );
    }

    #[test]
    fn one_byte_chunks_clear_what_is_skipped() {
        // A one-byte chunk ends the CR's CRLF chance: the LF after it ends the comment line.
        assert_eq!(feed_all(&["data: a\r", ":", "\n", "\n"]), vec![frame("a")]);
        // A one-byte chunk starts the stream: a BOM after it is text.
        assert!(feed_all(&["d", "\u{feff}ata: b\n\n"]).is_empty());
        assert_eq!(feed_all(&["\r", "\n", "d", "ata: b\n\n"]), vec![frame("b")]);
    }

    #[test]
    fn dispatch_rules() {
        let id_only = SseFrame {
            id: Some(String::new()),
            ..SseFrame::default()
        };
        assert_eq!(feed_all(&["id\n\n"]), vec![id_only]);
        assert!(feed_all(&[": c\n\nfoo\n\nretry: x\n\nid: \0\n\n"]).is_empty());
        assert!(feed_all(&["data: unterminated\n"]).is_empty());
        let with_id = SseFrame {
            id: Some("7".to_owned()),
            ..frame("a")
        };
        assert_eq!(
            feed_all(&["id: 7\ndata: a\n\ndata: b\n\n"]),
            vec![with_id, frame("b")]
        );
        assert_eq!(feed_all(&["data\ndata\n\n"]), vec![frame("\n")]);
    }

    #[test]
    fn retry_values() {
        assert_eq!(parse_retry("0"), Some(0));
        assert_eq!(parse_retry("007"), Some(7));
        assert_eq!(parse_retry("9007199254740991"), Some(MAX_RETRY));
        assert_eq!(parse_retry("0009007199254740991"), Some(MAX_RETRY));
        assert_eq!(parse_retry("9007199254740992"), None);
        assert_eq!(parse_retry("99999999999999999999999999"), None);
        for bad in [
            "", " 1", "+1", "-1", "1.5", "1e3", "\u{ff11}", "\u{b2}", "5 ",
        ] {
            assert_eq!(parse_retry(bad), None, "{bad:?}");
        }
        let hundred_zeros = format!("{}1", "0".repeat(100));
        assert_eq!(parse_retry(&hundred_zeros), Some(1));
    }

    #[test]
    fn long_line_one_char_at_a_time_is_linear() {
        // 200k chunks of one char: a quadratic buffer would take minutes.
        let mut buffer = SseFrameBuffer::new();
        buffer.feed(b"data: ");
        for _ in 0..200_000 {
            assert!(buffer.feed(b"x").is_empty());
        }
        let frames = buffer.feed(b"\n\n");
        assert_eq!(frames.len(), 1);
        assert_eq!(frames.first().map(|f| f.data.len()), Some(200_000));
    }
}
