//! Incremental Server-Sent Events frame parsing (HIP-301; contract:
//! `docs/domains/sse-frames.md`, clauses `SSE-1`..`SSE-10`).
//!
//! Feed text chunks in stream order to one [`SseFrameBuffer`]; each call to
//! [`SseFrameBuffer::feed`] returns the frames that chunk completes. Chunk
//! boundaries never change the result, and feeding is linear in the total
//! input: only newly fed text is scanned, and the incomplete line is kept in a
//! growable buffer.
//!
//! ```
//! use hanzo_sse::{SseFrame, SseFrameBuffer};
//!
//! let mut buffer = SseFrameBuffer::new();
//! assert!(buffer.feed("event: greet\r\ndata: hel").is_empty());
//! let frames = buffer.feed("lo\r\n\r\n");
//! assert_eq!(
//!     frames,
//!     vec![SseFrame {
//!         event: Some("greet".to_owned()),
//!         data: "hello".to_owned(),
//!         id: None,
//!         retry: None,
//!     }]
//! );
//! ```

use std::mem;

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

/// Accumulates text chunks and returns complete SSE frames.
#[derive(Debug, Clone, Default)]
pub struct SseFrameBuffer {
    /// What to drop if it starts the next non-empty chunk.
    skip: Skip,
    /// The incomplete line (`SSE-3d`); one buffer, reused for every line.
    pending: String,
    /// The current block.
    block: Block,
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
    /// Every `data` value followed by LF (`SSE-7b`).
    data: String,
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
    pub fn feed(&mut self, chunk: &str) -> Vec<SseFrame> {
        // One ASCII byte that is not a line ending (the common case when chunks
        // are single characters): it continues the pending line. A BOM or LF to
        // skip cannot be this byte, so nothing is skipped any more either way.
        if let &[byte] = chunk.as_bytes() {
            if byte != b'\r' && byte != b'\n' {
                self.skip = Skip::Nothing;
                self.pending.push(char::from(byte));
                return Vec::new();
            }
        }
        self.feed_general(chunk)
    }

    /// [`Self::feed`] for every chunk but one ASCII byte other than CR and LF.
    fn feed_general(&mut self, chunk: &str) -> Vec<SseFrame> {
        let mut frames = Vec::new();
        let Some(&first) = chunk.as_bytes().first() else {
            return frames;
        };
        let mut rest = chunk;
        match self.skip {
            Skip::Bom => rest = rest.strip_prefix('\u{feff}').unwrap_or(rest),
            // The LF of a CRLF whose CR, at the end of the last chunk, ended the line.
            Skip::Lf if first == b'\n' => rest = rest.get(1..).unwrap_or(""),
            Skip::Lf | Skip::Nothing => {}
        }
        // A chunk-final CR has ended its line; an LF starting the next chunk is its CRLF's.
        self.skip = if chunk.ends_with('\r') {
            Skip::Lf
        } else {
            Skip::Nothing
        };
        if !rest.bytes().any(|b| b == b'\r' || b == b'\n') {
            // No line ending: the whole chunk continues the pending line.
            self.pending.push_str(rest);
            return frames;
        }
        // Within the chunk, an LF right after a CR is the rest of that CRLF.
        let mut after_cr = false;
        for piece in rest.split_inclusive(['\r', '\n']) {
            if let Some(line) = piece.strip_suffix('\n') {
                if !(line.is_empty() && after_cr) {
                    self.end_line(line, &mut frames);
                }
                after_cr = false;
            } else if let Some(line) = piece.strip_suffix('\r') {
                self.end_line(line, &mut frames);
                after_cr = true;
            } else {
                // Only the last piece can lack an ending.
                self.pending.push_str(piece);
            }
        }
        frames
    }

    /// Complete the pending line with `tail` and interpret it.
    fn end_line(&mut self, tail: &str, frames: &mut Vec<SseFrame>) {
        if self.pending.is_empty() {
            self.block.line(tail, frames);
        } else {
            self.pending.push_str(tail);
            let line = mem::take(&mut self.pending);
            self.block.line(&line, frames);
            // Keep the allocation for the next incomplete line.
            self.pending = line;
            self.pending.clear();
        }
    }
}

impl Block {
    /// Interpret one complete line (`SSE-4` to `SSE-8`).
    fn line(&mut self, line: &str, frames: &mut Vec<SseFrame>) {
        if line.is_empty() {
            if let Some(frame) = self.dispatch() {
                frames.push(frame);
            }
            return;
        }
        let (name, value) = match line.split_once(':') {
            Some(("", _)) => return, // comment (SSE-5)
            Some((name, value)) => (name, value.strip_prefix(' ').unwrap_or(value)),
            None => (line, ""),
        };
        match name {
            "event" => {
                self.event = Some(value.to_owned());
                self.touched = true;
            }
            "data" => {
                self.data.push_str(value);
                self.data.push('\n');
                self.touched = true;
            }
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

    /// End the block: the frame if any field was accepted, and a reset either way (`SSE-8`).
    fn dispatch(&mut self) -> Option<SseFrame> {
        let block = mem::take(self);
        if !block.touched {
            return None;
        }
        let mut data = block.data;
        if data.ends_with('\n') {
            data.pop();
        }
        Some(SseFrame {
            event: block.event,
            data,
            id: block.id,
            retry: block.retry,
        })
    }
}

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
        chunks.iter().flat_map(|c| buffer.feed(c)).collect()
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
        buffer.feed("data: ");
        for _ in 0..200_000 {
            assert!(buffer.feed("x").is_empty());
        }
        let frames = buffer.feed("\n\n");
        assert_eq!(frames.len(), 1);
        assert_eq!(frames.first().map(|f| f.data.len()), Some(200_000));
    }
}
