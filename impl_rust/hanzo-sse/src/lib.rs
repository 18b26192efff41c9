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
//! Speed (`bench/README.md`): one pass over a chunk finds its line endings
//! (the LF of a CRLF dropped there) and validates it as UTF-8 (a chunk of
//! more than a few KiB, or one on a CPU without AVX2, from its first
//! non-ASCII byte on, with `simdutf8`, after the pass); lines are
//! interpreted in place, and the only copies are of field values (each
//! frame's data copied once into its exact allocation, the values before a
//! chunk boundary once more into the block) and of a non-`data` line cut by
//! a chunk boundary. Event names are shared between the
//! frames that repeat them, the `Vec` of frames is reused from call to call,
//! and [`SseFrameBuffer::feed`] interprets a chunk a few frames ahead of its
//! caller, so that a chunk of hundreds of frames does not hold hundreds of
//! allocations at once.
//!
//! ```
//! use hanzo_sse::{SseFrame, SseFrameBuffer};
//!
//! let mut buffer = SseFrameBuffer::new();
//! assert_eq!(buffer.feed(b"event: greet\r\ndata: hel\xE2\x82").count(), 0);
//! let frames: Vec<SseFrame> = buffer.feed(b"\xACo\r\n\r\n").collect();
//! assert_eq!(
//!     frames,
//!     vec![SseFrame {
//!         event: Some("greet".into()),
//!         data: "hel\u{20ac}o".to_owned(),
//!         id: None,
//!         retry: None,
//!     }]
//! );
//! ```

use std::{iter::FusedIterator, marker::PhantomData, mem, slice, str, sync::Arc};

mod scan;

use scan::{end_positions, scan};

/// The largest accepted `retry` value, 2^53−1 (`SSE-7d`): every platform,
/// including JavaScript numbers, represents it exactly.
pub const MAX_RETRY: u64 = (1 << 53) - 1;

/// Number of decimal digits of [`MAX_RETRY`].
const MAX_RETRY_DIGITS: usize = 16;

/// One dispatched block (`SSE-8a`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct SseFrame {
    /// The last `event` value of the block, or `None` if the block had no `event` line.
    ///
    /// Shared: a stream repeats a few event names, and frames with the same
    /// name as a recent frame hold the same allocation.
    pub event: Option<Arc<str>>,
    /// The `data` values joined with LF; empty if the block had no `data` line.
    pub data: String,
    /// The last accepted `id` value of the block, or `None`. `Some("")` is an id.
    pub id: Option<String>,
    /// The last accepted `retry` value of the block, or `None`.
    pub retry: Option<u64>,
}

/// The frames one call to [`SseFrameBuffer::feed`] completed, in order: an
/// iterator that moves them out of the buffer. Frames not taken are dropped
/// with it.
///
/// A chunk's lines are interpreted a few frames ahead of the caller
/// (eight), so that the caller frees each frame's data before many
/// more are allocated: the allocator then reuses the same few blocks instead
/// of taking its slow paths for hundreds of frames per chunk. Dropping the
/// iterator interprets the lines left (the stream's state needs them);
/// leaking it (`mem::forget`) loses them.
#[derive(Debug)]
pub struct Frames<'a> {
    /// `None` after a chunk that completed no line (a one-byte chunk, most
    /// often): the caller's loop then folds away where `feed` is inlined.
    buffer: Option<&'a mut SseFrameBuffer>,
    /// The chunk [`SseFrameBuffer::rest`] points into, borrowed for as long as
    /// this iterator lives.
    chunk: PhantomData<&'a [u8]>,
}

impl Iterator for Frames<'_> {
    type Item = SseFrame;

    #[inline]
    fn next(&mut self) -> Option<SseFrame> {
        let buffer = self.buffer.as_deref_mut()?;
        // Before the `pop`, not after it: a frame held across the call would
        // be copied to the stack on every path.
        if buffer.frames.is_empty() {
            if buffer.rest.is_empty() {
                return None;
            }
            buffer.resume(FRAMES_AHEAD);
        }
        buffer.frames.pop()
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.buffer.as_deref().map_or((0, Some(0)), |buffer| {
            let ready = buffer.frames.len();
            (ready, buffer.rest.is_empty().then_some(ready))
        })
    }
}

impl FusedIterator for Frames<'_> {}

impl Drop for Frames<'_> {
    #[inline]
    fn drop(&mut self) {
        // Known empty after a `next` that returned `None`: a caller that takes
        // every frame pays nothing here.
        if let Some(buffer) = self.buffer.as_deref_mut() {
            if !(buffer.frames.is_empty() && buffer.rest.is_empty()) {
                buffer.finish();
            }
        }
    }
}

/// How many frames [`Frames`] interprets ahead of its caller (see there):
/// few enough for the allocator's per-thread cache, enough that pausing costs
/// little per frame.
const FRAMES_AHEAD: usize = 8;

/// Where [`SseFrameBuffer::feed`] paused in its chunk's text: the complete
/// lines not interpreted yet. An address, not a reference, so that the buffer
/// needs no lifetime; only [`Frames`], which borrows the chunk, reads it.
#[derive(Debug, Clone, Copy, Default)]
struct Rest {
    /// The text's address and length.
    text: usize,
    len: usize,
    at: Cursor,
}

impl Rest {
    #[inline]
    fn is_empty(&self) -> bool {
        self.at.lines == 0
    }
}

/// A place between two complete lines of a text being parsed.
#[derive(Debug, Clone, Copy, Default)]
struct Cursor {
    /// Where the next line starts.
    start: usize,
    /// The next line's index in [`SseFrameBuffer::end_at`], and how many lines end there.
    line: usize,
    lines: usize,
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
    /// The line endings of the text being parsed, from [`scan`]; reused.
    ends: Vec<u64>,
    /// Where the lines of the text being parsed end, from [`Self::ends`]
    /// (the first [`end_positions`] returns); reused.
    end_at: Vec<usize>,
    /// The frames [`Self::feed`] returns (see [`Frames`]); reused.
    frames: Vec<SseFrame>,
    /// The lines of the chunk [`Self::feed`] paused in (see [`Frames`]).
    rest: Rest,
}

/// The first 1 to 3 bytes of a UTF-8 sequence whose other bytes have not been fed yet.
#[derive(Debug, Clone, Copy, Default)]
struct SplitChar {
    bytes: [u8; 4],
    /// How many of `bytes` are held; 0 when no sequence is split.
    len: usize,
}

impl SplitChar {
    /// Hold `tail`, the start of a sequence cut by a chunk's end (empty if none).
    #[inline]
    fn hold(&mut self, tail: &[u8]) {
        // Most chunks end with a whole character: no call that copies nothing.
        if !tail.is_empty() {
            self.bytes[..tail.len()].copy_from_slice(tail);
        }
        self.len = tail.len();
    }
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
    event: Option<Arc<str>>,
    /// The `data` values of earlier texts, joined with LF (`SSE-7b`); its
    /// buffer is reused by the next block.
    data: String,
    /// `data` holds at least one value (so an empty `data` may be one empty value).
    copied: bool,
    /// The incomplete line is a `data` line whose value so far ends `data`
    /// (none of it is in `pending`): a value cut by chunk ends is copied once.
    open: bool,
    /// The `data` values in the text being parsed, as byte ranges of it, not
    /// copied yet: a frame whose values are all in one text gets its data in
    /// one exact allocation and one copy.
    values: Vec<(usize, usize)>,
    id: Option<String>,
    retry: Option<u64>,
    /// An `event`, `data`, `id` or `retry` line was accepted (`SSE-8a`).
    touched: bool,
    /// Recent event names, shared with the frames that carry them.
    names: EventNames,
}

/// The last few distinct event names, so that a repeated name is a reference
/// count, not an allocation per frame.
#[derive(Debug, Clone, Default)]
struct EventNames {
    recent: [Option<Arc<str>>; EVENT_NAMES],
    /// The slot the next new name replaces.
    next: usize,
}

/// How many distinct event names [`EventNames`] keeps.
const EVENT_NAMES: usize = 4;

/// Names longer than this are not kept: the cache is for the short names
/// streams repeat, and must not hold a large value alive.
const EVENT_NAME_MAX: usize = 64;

impl EventNames {
    fn get(&mut self, name: &str) -> Arc<str> {
        for kept in self.recent.iter().flatten() {
            if **kept == *name {
                return Arc::clone(kept);
            }
        }
        let new: Arc<str> = Arc::from(name);
        if name.len() <= EVENT_NAME_MAX {
            self.recent[self.next] = Some(Arc::clone(&new));
            self.next = (self.next + 1) % EVENT_NAMES;
        }
        new
    }
}

impl SseFrameBuffer {
    /// A fresh buffer at the start of a stream.
    pub fn new() -> Self {
        Self::default()
    }

    /// Feed the next chunk of the stream; returns the frames it completes, in order.
    ///
    /// The frames are moved out of a `Vec` the buffer keeps from call to call,
    /// so a stream's chunks allocate no `Vec` of their own, and the chunk's
    /// lines are interpreted a few frames ahead of the caller (see [`Frames`]),
    /// which is why the iterator borrows the chunk.
    #[inline]
    pub fn feed<'a>(&'a mut self, chunk: &'a [u8]) -> Frames<'a> {
        let buffer = if matches!(chunk, &[byte] if self.feed_byte(byte)) {
            None
        } else {
            self.feed_frames(chunk);
            Some(self)
        };
        Frames {
            buffer,
            chunk: PhantomData,
        }
    }

    /// Like [`Self::feed`], but appends the frames to `frames`: a caller that
    /// drains one `Vec` after every chunk reuses its allocation.
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
            if self.feed_byte(byte) {
                return;
            }
        }
        self.feed_chunk(chunk, frames, usize::MAX);
    }

    /// [`Self::feed`] past the one-byte path, into [`Self::frames`], reversed:
    /// the first [`FRAMES_AHEAD`] frames, the rest of the chunk left in [`Self::rest`].
    fn feed_frames(&mut self, chunk: &[u8]) {
        // What a leaked `Frames` left: its frames, and its pause (whose chunk may be gone).
        self.frames.clear();
        self.rest.at.lines = 0;
        let mut frames = mem::take(&mut self.frames);
        if frames.capacity() > KEEP_FRAMES {
            // A burst of frames (one huge chunk) is not kept for the rest of the stream.
            frames = Vec::new();
        }
        self.feed_chunk(chunk, &mut frames, FRAMES_AHEAD);
        frames.reverse();
        self.frames = frames;
    }

    /// [`Self::feed_into`] past the one-byte path: one scan of the chunk finds
    /// its line endings and whether it is UTF-8 ([`scan`]). A character cut by
    /// the chunk's end is held for the next chunk; anything else not valid
    /// goes to [`Self::feed_lossy`]. Pauses once `limit` frames are in
    /// `frames` (see [`Self::interpret`]); the lossy path never does.
    #[allow(unsafe_code)] // checked by `scan`; see SAFETY
    fn feed_chunk(&mut self, chunk: &[u8], frames: &mut Vec<SseFrame>, limit: usize) {
        if self.split.len > 0 {
            self.feed_lossy(chunk, frames);
            return;
        }
        let body = complete_end(chunk);
        let (text, tail) = chunk.split_at(body);
        if !tail.is_empty() && !is_utf8_prefix(tail) {
            self.feed_lossy(chunk, frames);
            return;
        }
        if !scan(text, &mut self.ends) {
            self.feed_lossy(chunk, frames);
            return;
        }
        // SAFETY: `scan` found `text` valid UTF-8.
        let text = unsafe { str::from_utf8_unchecked(text) };
        self.feed_scanned(text, frames, limit, None);
        self.split.hold(tail);
    }

    /// The common one-byte chunks (chunks of single characters) with less work
    /// than the general path, and the same result; `false` if `byte` needs the
    /// general path (a line ending, an invalid byte).
    #[inline]
    fn feed_byte(&mut self, byte: u8) -> bool {
        if self.split.len == 0 {
            if byte.is_ascii() {
                if byte == b'\r' || byte == b'\n' {
                    return false;
                }
                // It continues the pending line. A BOM or LF to skip cannot be this
                // byte, so nothing is skipped any more either way.
                self.skip = Skip::Nothing;
                self.incomplete_line().push(char::from(byte));
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
            Ok(text) if self.skip == Skip::Nothing => {
                // Not a line ending, and nothing to skip: it continues the pending line.
                self.split.len = 0;
                self.incomplete_line().push_str(text);
                true
            }
            Err(error) if error.error_len().is_none() => {
                // Still a valid prefix of a sequence.
                self.split.bytes = bytes;
                self.split.len = held + 1;
                true
            }
            // A character completed where a BOM or LF may be skipped, or an
            // invalid sequence: the general path.
            Ok(_) | Err(_) => false,
        }
    }

    /// [`Self::feed`] for a chunk that continues a split sequence or is not
    /// valid UTF-8 on its own: complete the split sequence first (the rest of
    /// the chunk then takes the general path), replace each maximal invalid
    /// subpart with U+FFFD, and hold a sequence cut by the end of the chunk
    /// (`SSE-11`).
    #[cold]
    fn feed_lossy(&mut self, mut chunk: &[u8], frames: &mut Vec<SseFrame>) {
        if self.split.len > 0 {
            let held = self.split.len;
            let mut bytes = self.split.bytes;
            let taken = chunk.len().min(4 - held);
            bytes[held..held + taken].copy_from_slice(&chunk[..taken]);
            let (valid, invalid) = match str::from_utf8(&bytes[..held + taken]) {
                Ok(_) => (held + taken, None),
                Err(error) => (error.valid_up_to(), error.error_len()),
            };
            self.split.len = 0;
            if valid > 0 {
                // The split character completed (maybe followed by more of the
                // chunk, which takes the general path below).
                let text = str::from_utf8(&bytes[..valid]).unwrap_or_default();
                let char_len = text.chars().next().map_or(valid, char::len_utf8);
                self.feed_char(&text[..char_len], frames);
                chunk = &chunk[char_len - held..];
            } else if let Some(invalid) = invalid {
                self.feed_text("\u{fffd}", frames);
                // The held bytes are a valid prefix, so the invalid part covers them.
                chunk = &chunk[invalid - held..];
            } else {
                // Still incomplete: the whole chunk continues the sequence.
                self.split.bytes = bytes;
                self.split.len = held + taken;
                return;
            }
            // The rest is like any chunk (and usually valid).
            if !chunk.is_empty() {
                self.feed_chunk(chunk, frames, usize::MAX);
            }
            return;
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
                        self.split.hold(tail);
                        return;
                    }
                }
            }
        }
    }

    /// A character completed from a split sequence: never a line ending, so
    /// unless it may be the stream's BOM it only continues the pending line.
    fn feed_char(&mut self, text: &str, frames: &mut Vec<SseFrame>) {
        if self.skip == Skip::Bom {
            self.feed_text(text, frames);
        } else {
            self.skip = Skip::Nothing;
            self.incomplete_line().push_str(text);
        }
    }

    /// Where text that continues the incomplete line goes: [`Self::pending`],
    /// or the block's data if the line is an open `data` value.
    #[inline]
    fn incomplete_line(&mut self) -> &mut String {
        if self.block.open {
            &mut self.block.data
        } else {
            &mut self.pending
        }
    }

    /// Interpret the lines [`Self::rest`] points to until `limit` frames are
    /// ready in [`Self::frames`] (reversed, as [`Self::feed_frames`] leaves
    /// them); called by [`Frames`] only, which borrows the chunk.
    #[allow(unsafe_code)] // the chunk `rest` points into; see SAFETY
    fn resume(&mut self, limit: usize) {
        let rest = mem::take(&mut self.rest);
        // SAFETY: `rest` is not empty, so it was set by the `feed` call that
        // returned the calling `Frames` (`feed_frames` empties it first), from a `&str`
        // into the chunk that call borrowed for that iterator's lifetime: the
        // bytes are alive, unchanged, and valid UTF-8.
        let text = unsafe {
            str::from_utf8_unchecked(slice::from_raw_parts(rest.text as *const u8, rest.len))
        };
        let mut frames = mem::take(&mut self.frames);
        self.feed_scanned(text, &mut frames, limit, Some(rest.at));
        frames.reverse();
        self.frames = frames;
    }

    /// Drop the frames [`Frames`] left, and interpret the chunk's lines left
    /// (dropping the frames they complete).
    #[cold]
    fn finish(&mut self) {
        self.frames.clear();
        if !self.rest.is_empty() {
            self.resume(usize::MAX);
            self.frames.clear();
        }
    }

    /// Parse decoded text that has not been scanned (its check as UTF-8 is
    /// wasted, but this is the lossy path only).
    fn feed_text(&mut self, text: &str, frames: &mut Vec<SseFrame>) {
        scan(text.as_bytes(), &mut self.ends);
        self.feed_scanned(text, frames, usize::MAX, None);
    }

    /// Parse decoded text (`SSE-2` to `SSE-9`) whose line endings [`scan`] has
    /// put in [`Self::ends`], appending the frames it completes; or, with
    /// `paused`, go on from where an earlier call paused in it. Once `limit`
    /// frames are in `frames` it pauses, at the next line, which
    /// [`Self::rest`] then points to.
    ///
    /// Every line is interpreted in place in `chunk`; only a line cut by the
    /// end of the chunk is copied, into [`Self::pending`]. One function for
    /// both: the line loop inlined twice, or called from here, cost the short
    /// chunks 3-5% more instructions (`bench/README.md`, session 20).
    fn feed_scanned(
        &mut self,
        chunk: &str,
        frames: &mut Vec<SseFrame>,
        limit: usize,
        paused: Option<Cursor>,
    ) {
        let at = match paused {
            Some(at) => at,
            None => match self.start_text(chunk) {
                Some(at) => at,
                None => return,
            },
        };
        let (start, line) = lines(
            chunk,
            (at.start, at.line),
            &self.end_at[..at.lines],
            &mut self.pending,
            &mut self.block,
            frames,
            limit,
        );
        if line < at.lines {
            self.rest = Rest {
                text: chunk.as_ptr() as usize,
                len: chunk.len(),
                at: Cursor {
                    start,
                    line,
                    lines: at.lines,
                },
            };
            return;
        }
        // The ranges in `values` are of this text, which the next call does not see.
        self.block.keep_values(chunk);
        if let Some(rest) = chunk.get(start..) {
            let opened = !self.block.open && self.pending.is_empty() && self.block.open_value(rest);
            if !opened {
                self.incomplete_line().push_str(rest);
            }
        }
    }

    /// Where the first line of a text just scanned starts (past a BOM or an
    /// LF to skip), and where its lines end ([`Self::end_at`]); `None` if it is empty.
    #[inline]
    fn start_text(&mut self, chunk: &str) -> Option<Cursor> {
        let bytes = chunk.as_bytes();
        let &first = bytes.first()?;
        let start = match self.skip {
            Skip::Bom if bytes.starts_with(BOM) => BOM.len(),
            // The LF of a CRLF whose CR, at the end of the last chunk, ended the line.
            Skip::Lf if first == b'\n' => {
                if let Some(mask) = self.ends.first_mut() {
                    *mask &= !1;
                }
                1
            }
            Skip::Bom | Skip::Lf | Skip::Nothing => 0,
        };
        // A chunk-final CR has ended its line; an LF starting the next chunk is its CRLF's.
        self.skip = if bytes.last() == Some(&b'\r') {
            Skip::Lf
        } else {
            Skip::Nothing
        };
        let lines = end_positions(&self.ends, &mut self.end_at);
        Some(Cursor {
            start,
            line: 0,
            lines,
        })
    }
}

/// Interpret the complete lines of `chunk` from `at`, where one starts and
/// its index in `ends` (where they end, from [`scan`]), until `limit` frames
/// are in `frames`; returns where the next line starts and its index (past
/// the last: where the incomplete last line starts). A line completed here
/// whose start is in `pending` is joined there.
#[inline]
fn lines(
    chunk: &str,
    at: (usize, usize),
    ends: &[usize],
    pending: &mut String,
    block: &mut Block,
    frames: &mut Vec<SseFrame>,
    limit: usize,
) -> (usize, usize) {
    let bytes = chunk.as_bytes();
    let (mut start, mut line) = at;
    if line == 0 && (!pending.is_empty() || block.open) {
        // Only the first line can have begun in an earlier chunk.
        let Some(&end) = ends.first() else {
            return (start, 0);
        };
        line = 1;
        // CR and LF are ASCII, so every index here is a char boundary.
        if block.open {
            block.close_value(&chunk[start..end]);
        } else {
            pending.push_str(&chunk[start..end]);
            block.line(pending, None, chunk, frames);
            // Keep the allocation for the next incomplete line.
            pending.clear();
        }
        start = after_ending(bytes, end);
    }
    let mut rest = ends[line..].iter();
    for &end in rest.by_ref() {
        let at = start;
        start = after_ending(bytes, end);
        // Only a blank line adds a frame.
        if block.line_at(chunk, at, end, frames) && frames.len() >= limit {
            break;
        }
    }
    (start, ends.len() - rest.len())
}

/// Where the line after the one whose ending is at `end` starts: past its
/// CR, LF or CRLF (`SSE-3`); computed without a branch, since endings mix at
/// random in some streams.
#[inline]
fn after_ending(bytes: &[u8], end: usize) -> usize {
    let crlf = (bytes[end] == b'\r') & (bytes.get(end + 1) == Some(&b'\n'));
    end + 1 + usize::from(crlf)
}

/// Where the last UTF-8 sequence of `bytes` starts if it is a lead byte with
/// fewer continuation bytes after it than it announces (the rest of the
/// character is in the next chunk), else the length. Only a hint: the bytes
/// before it are validated, and the bytes from it on must be a valid prefix.
fn complete_end(bytes: &[u8]) -> usize {
    let n = bytes.len();
    for i in (n.saturating_sub(4)..n).rev() {
        let byte = bytes[i];
        if byte < 0x80 {
            return n;
        }
        if byte >= 0xC0 {
            let wants = if byte >= 0xF0 {
                4
            } else if byte >= 0xE0 {
                3
            } else {
                2
            };
            return if n - i < wants { i } else { n };
        }
    }
    n
}

/// Whether `bytes` is the start of a UTF-8 sequence that more bytes could
/// complete: a lead byte and fewer continuation bytes than it announces, in
/// the ranges of the Unicode Standard's table 3-7 (by hand: `str::from_utf8`
/// costs more than a chunk's scan on chunks of a few hundred bytes).
fn is_utf8_prefix(bytes: &[u8]) -> bool {
    let Some((&lead, rest)) = bytes.split_first() else {
        return false;
    };
    let (len, second) = match lead {
        0xC2..=0xDF => (2, 0x80..=0xBF),
        0xE0 => (3, 0xA0..=0xBF),
        0xE1..=0xEC | 0xEE..=0xEF => (3, 0x80..=0xBF),
        0xED => (3, 0x80..=0x9F),
        0xF0 => (4, 0x90..=0xBF),
        0xF1..=0xF3 => (4, 0x80..=0xBF),
        0xF4 => (4, 0x80..=0x8F),
        _ => return false,
    };
    rest.len() < len - 1
        && rest.first().map_or(true, |byte| second.contains(byte))
        && rest.iter().skip(1).all(|byte| (0x80..=0xBF).contains(byte))
}

/// The value of a field line whose name ends at `name_end` (`SSE-6`): after
/// the colon and one optional space, or empty if the line has no colon.
#[inline]
fn field_value(line: &str, name_end: usize) -> &str {
    let value = line.get(name_end + 1..).unwrap_or_default();
    value.strip_prefix(' ').unwrap_or(value)
}

/// The UTF-8 byte order mark, dropped once at the start of the stream (`SSE-2`).
const BOM: &[u8] = "\u{feff}".as_bytes();

impl Block {
    /// Interpret the complete line `text[at..end]`: blank and `data:` lines
    /// here, the others in [`Self::line`] (same results). Returns whether it
    /// was blank.
    #[inline]
    fn line_at(&mut self, text: &str, at: usize, end: usize, frames: &mut Vec<SseFrame>) -> bool {
        let bytes = text.as_bytes();
        if at == end {
            self.end_block(text, frames);
            return true;
        }
        if bytes[at..].starts_with(b"data:") {
            // `bytes[end]` ends the line, so a shorter line never matches and
            // the prefix needs no length check; nor does the optional space
            // past the colon (SSE-6), which is then without a branch.
            let start = at + 5 + usize::from(bytes[at + 5] == b' ');
            self.values.push((start, end));
            self.touched = true;
        } else {
            self.line(&text[at..end], Some(at), text, frames);
        }
        false
    }

    /// A blank line: dispatch the block, if any field was accepted, and reset
    /// it either way (`SSE-8`; a block with no accepted line holds nothing to
    /// reset).
    ///
    /// The frame is written straight into its slot of `frames`: `push` built
    /// it on the stack first (room might have to be made before the store),
    /// in pieces whose sizes differ from the loads that then copied it, and
    /// those loads stalled (`bench/README.md`, session 18).
    #[allow(unsafe_code)] // one `set_len`; see SAFETY
    fn end_block(&mut self, text: &str, frames: &mut Vec<SseFrame>) {
        if !self.touched {
            return;
        }
        self.touched = false;
        frames.reserve(1);
        let data = self.take_data(text);
        let len = frames.len();
        let Some(slot) = frames.spare_capacity_mut().first_mut() else {
            unreachable!("room for one frame was just reserved");
        };
        slot.write(SseFrame {
            event: self.event.take(),
            data,
            id: self.id.take(),
            retry: self.retry.take(),
        });
        // SAFETY: the slot at `len`, within the capacity, was just written.
        unsafe { frames.set_len(len + 1) };
    }

    /// Interpret one complete line (`SSE-4` to `SSE-8`). `at` is where the
    /// line starts in `text`, the text being parsed, or `None` if the line is
    /// elsewhere (joined from pieces).
    fn line(&mut self, line: &str, at: Option<usize>, text: &str, frames: &mut Vec<SseFrame>) {
        // The common lines first, matched by their bytes: data and event lines
        // with a colon, comments (same results as the general case below).
        let name_end = match line.as_bytes() {
            [] => {
                self.end_block(text, frames);
                return;
            }
            [b'd', b'a', b't', b'a', b':', ..] => 4,
            [b'e', b'v', b'e', b'n', b't', b':', ..] => {
                self.set_event(field_value(line, 5));
                return;
            }
            [b':', ..] => return, // comment (SSE-5)
            [b'i', b'd', b':', ..] => 2,
            // Lines are short: a plain loop, not a search set up per line.
            bytes => bytes.iter().position(|&b| b == b':').unwrap_or(line.len()),
        };
        let value = field_value(line, name_end);
        match &line[..name_end] {
            "event" => self.set_event(value),
            // `value` ends the line (a suffix of it, or empty at its end).
            "data" => self.push_data(value, at.map(|at| at + line.len() - value.len()), text),
            // An id containing NUL is ignored (SSE-7c).
            "id" if !value.bytes().any(|b| b == 0) => {
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

    /// An `event` line; the empty value unsets the event type (SSE-7a).
    fn set_event(&mut self, value: &str) {
        self.event = (!value.is_empty()).then(|| self.names.get(value));
        self.touched = true;
    }

    /// Append one `data` value, LF-separated from the previous one (`SSE-7b`):
    /// `at` is where it starts in `text`, or `None` if it is elsewhere.
    fn push_data(&mut self, value: &str, at: Option<usize>, text: &str) {
        if let Some(at) = at {
            self.values.push((at, at + value.len()));
        } else {
            self.keep_values(text);
            self.push_copied(value);
        }
        self.touched = true;
    }

    /// Begin the value of the incomplete line `rest` in [`Self::data`] if it
    /// is a `data` line past its optional space (`SSE-6`); `false` if not.
    /// The values in the text must have been kept.
    fn open_value(&mut self, rest: &str) -> bool {
        let Some(value) = rest.strip_prefix("data:") else {
            return false;
        };
        if value.is_empty() {
            // The optional space may be the next chunk's first byte.
            return false;
        }
        self.push_copied(value.strip_prefix(' ').unwrap_or(value));
        self.open = true;
        true
    }

    /// The open value's last piece, `end`: its line is complete.
    fn close_value(&mut self, end: &str) {
        self.data.push_str(end);
        self.open = false;
        self.touched = true;
    }

    /// Append `value` to [`Self::data`].
    fn push_copied(&mut self, value: &str) {
        if self.copied {
            self.data.push('\n');
        }
        self.data.push_str(value);
        self.copied = true;
    }

    /// Copy the values still held as ranges of `text` into [`Self::data`].
    #[inline]
    fn keep_values(&mut self, text: &str) {
        if !self.values.is_empty() {
            self.copy_values(text);
        }
    }

    fn copy_values(&mut self, text: &str) {
        let values = mem::take(&mut self.values);
        for &(start, end) in &values {
            self.push_copied(&text[start..end]);
        }
        self.values = values;
        self.values.clear();
    }

    /// The block's data (`SSE-7b`), `data` and `values` left empty; `text` is
    /// what `values` are ranges of.
    fn take_data(&mut self, text: &str) -> String {
        let data = match (self.copied, self.values.as_slice()) {
            // One value, in this text: one exact copy.
            (false, &[(start, end)]) => text[start..end].to_owned(),
            // `data` is a scratch buffer kept from block to block, so that a block of many
            // data lines grows no new buffer; the frame gets an exact copy. Past
            // `KEEP_DATA` the buffer itself goes into the frame (no copy, nothing large kept).
            (_, []) if self.data.capacity() > KEEP_DATA => mem::take(&mut self.data),
            (_, []) => self.data.as_str().to_owned(),
            (copied, values) => {
                let len = values
                    .iter()
                    .map(|(start, end)| end - start + 1)
                    .sum::<usize>()
                    + self.data.len()
                    - usize::from(!copied);
                let mut data = if self.data.capacity() > KEEP_DATA {
                    let mut data = mem::take(&mut self.data);
                    data.reserve(len - data.len());
                    data
                } else {
                    let mut data = String::with_capacity(len);
                    data.push_str(&self.data);
                    data
                };
                let mut separate = copied;
                for &(start, end) in values {
                    if separate {
                        data.push('\n');
                    }
                    data.push_str(&text[start..end]);
                    separate = true;
                }
                data
            }
        };
        self.data.clear();
        self.copied = false;
        self.values.clear();
        data
    }
}

/// The most frames [`SseFrameBuffer::feed`]'s `Vec` keeps room for between calls.
const KEEP_FRAMES: usize = 1024;

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
/// xorshift32 from `seed`: a fixed sequence for the tests that mix random chunkings.
pub(crate) fn xorshift32(mut state: u32) -> impl FnMut() -> u32 {
    move || {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        state
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fmt::Write;

    fn frame(data: &str) -> SseFrame {
        SseFrame {
            data: data.to_owned(),
            ..SseFrame::default()
        }
    }

    fn feed_all(chunks: &[&str]) -> Vec<SseFrame> {
        let mut buffer = SseFrameBuffer::new();
        let mut frames = Vec::new();
        for chunk in chunks {
            frames.extend(buffer.feed(chunk.as_bytes()));
        }
        frames
    }

    /// Pieces that stress the decoding paths: cut, overlong, surrogate and
    /// stray sequences, BOMs, all three endings.
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

    fn feed_bytes(chunks: &[&[u8]]) -> Vec<SseFrame> {
        let mut buffer = SseFrameBuffer::new();
        let mut frames = Vec::new();
        for chunk in chunks {
            frames.extend(buffer.feed(chunk));
        }
        frames
    }

    /// Byte strings from [`PIECES`] fed a byte at a time (the one-byte path)
    /// give what one whole chunk gives (`SSE-1`, `SSE-11`).
    #[test]
    fn one_byte_chunks_match_the_whole_buffer_on_mixed_bytes() {
        let mut draw = crate::xorshift32(0x2545_f491);
        let mut next = move || draw() as usize;
        for _ in 0..2000 {
            let mut input = Vec::new();
            for _ in 0..next() % 24 {
                input.extend_from_slice(PIECES[next() % PIECES.len()]);
            }
            let bytes: Vec<&[u8]> = input.chunks(1).collect();
            assert_eq!(feed_bytes(&bytes), feed_bytes(&[&input]), "{input:?}");
        }
    }

    /// The same mixed bytes cut into chunks of 1 to 8, 70 or 5000 bytes (cuts
    /// inside characters, right before line endings, around the scan's blocks)
    /// give what one whole chunk gives (`SSE-1`, `SSE-11`).
    #[test]
    fn any_chunking_matches_the_whole_buffer_on_mixed_bytes() {
        let mut draw = crate::xorshift32(0x1234_5678);
        let mut next = move || draw() as usize;
        for round in 0..3000 {
            let mut input = Vec::new();
            // Now and then an input long enough for the scan's AVX2 path.
            let pieces = if round % 50 == 0 { 3000 } else { next() % 48 };
            for _ in 0..pieces {
                input.extend_from_slice(PIECES[next() % PIECES.len()]);
            }
            let most = [8, 70, 5000][round % 3];
            let mut chunks = Vec::new();
            let mut rest = &input[..];
            while !rest.is_empty() {
                let (chunk, after) = rest.split_at((1 + next() % most).min(rest.len()));
                chunks.push(chunk);
                rest = after;
            }
            assert_eq!(feed_bytes(&chunks), feed_bytes(&[&input]), "{chunks:?}");
        }
    }

    /// The hand-written prefix check agrees with the standard library's
    /// decoder on every lead byte and every second and third byte.
    #[test]
    fn utf8_prefix_matches_std() {
        let by_std = |bytes: &[u8]| matches!(str::from_utf8(bytes), Err(e) if e.valid_up_to() == 0 && e.error_len().is_none());
        for lead in 0..=0xFF_u8 {
            assert_eq!(is_utf8_prefix(&[lead]), by_std(&[lead]), "{lead:x}");
            for second in 0..=0xFF_u8 {
                let two = [lead, second];
                assert_eq!(is_utf8_prefix(&two), by_std(&two), "{two:x?}");
                if lead >= 0xE0 && (0x80..=0xBF).contains(&second) {
                    for third in 0..=0xFF_u8 {
                        let three = [lead, second, third];
                        assert_eq!(is_utf8_prefix(&three), by_std(&three), "{three:x?}");
                    }
                }
            }
        }
    }

    /// `feed_into` appends what `feed` returns, chunk by chunk, on the one-byte
    /// path and the general one alike (the JSON layer calls only `feed`).
    #[test]
    fn feed_into_appends_what_feed_returns() {
        let input = "event: a\r\ndata: x\u{e9}\n\nid: 1\rdata: y\r\n\r\ndata: z\n\n".as_bytes();
        for size in [1, 2, 3, 7, input.len()] {
            let (mut by_feed, mut by_feed_into) = (SseFrameBuffer::new(), SseFrameBuffer::new());
            let mut into = vec![frame("kept")];
            let mut want = vec![frame("kept")];
            for chunk in input.chunks(size) {
                want.extend(by_feed.feed(chunk));
                by_feed_into.feed_into(chunk, &mut into);
            }
            assert_eq!(into, want, "chunks of {size}");
            assert_eq!(want.len(), 4, "chunks of {size}");
        }
    }

    /// `feed`'s iterator yields the frames in order; frames not taken, or left
    /// in a leaked iterator, never reach the next call's.
    #[test]
    fn frames_not_taken_are_dropped() {
        let mut buffer = SseFrameBuffer::new();
        let mut frames = buffer.feed(b"data: a\n\ndata: b\n\ndata: c\n\n");
        assert_eq!(frames.size_hint(), (3, Some(3)));
        assert_eq!(frames.next(), Some(frame("a")));
        drop(frames);
        mem::forget(buffer.feed(b"data: d\n\n"));
        let frames: Vec<SseFrame> = buffer.feed(b"data: e\n\ndata: f\n\n").collect();
        assert_eq!(frames, vec![frame("e"), frame("f")]);
    }

    /// A chunk of many frames: `feed` interprets it a few frames ahead of the
    /// caller, and yields what `feed_into` appends, whether the caller takes
    /// every frame or stops early (the lines left are interpreted when the
    /// iterator drops, so the stream goes on as if all were taken).
    #[test]
    fn frames_are_interpreted_ahead_of_the_caller_with_the_same_result() {
        let mut stream = String::new();
        for i in 0..40 {
            write!(stream, "event: e{}\ndata: {i}\nid: {i}\n\n", i % 3).unwrap();
        }
        stream.push_str("event: last\ndata: cut");
        let (first, second) = (stream.as_bytes(), &b" here\n\ndata: after\n\n"[..]);
        let mut want = Vec::new();
        let mut by_feed_into = SseFrameBuffer::new();
        by_feed_into.feed_into(first, &mut want);
        by_feed_into.feed_into(second, &mut want);
        assert_eq!(want.len(), 42);

        let mut buffer = SseFrameBuffer::new();
        let mut frames = buffer.feed(first);
        let (ready, most) = frames.size_hint();
        assert!(
            ready == FRAMES_AHEAD && most.is_none(),
            "{:?}",
            frames.size_hint()
        );
        let mut got: Vec<SseFrame> = frames.by_ref().collect();
        assert_eq!(frames.size_hint(), (0, Some(0)));
        drop(frames);
        got.extend(buffer.feed(second));
        assert_eq!(got, want);

        for taken in [0, 1, FRAMES_AHEAD - 1, FRAMES_AHEAD, FRAMES_AHEAD + 1, 39] {
            let mut buffer = SseFrameBuffer::new();
            let got: Vec<SseFrame> = buffer.feed(first).take(taken).collect();
            assert_eq!(got, want[..taken], "{taken} taken");
            let after: Vec<SseFrame> = buffer.feed(second).collect();
            assert_eq!(after, want[40..], "after {taken} taken");
        }
    }

    /// An iterator leaked while its chunk's lines are only partly interpreted
    /// loses those lines, nothing else: the next chunk reads no freed memory
    /// and the stream goes on (from the state the pause left).
    #[test]
    fn a_leaked_pause_loses_the_rest_of_its_chunk_only() {
        let chunk: Vec<u8> = (0..20)
            .flat_map(|i| format!("data: {i}\n\n").into_bytes())
            .collect();
        let mut buffer = SseFrameBuffer::new();
        let mut frames = buffer.feed(&chunk);
        assert_eq!(frames.next(), Some(frame("0")));
        mem::forget(frames);
        drop(chunk);
        let after: Vec<SseFrame> = buffer.feed(b"data: z\n\n").collect();
        assert_eq!(after, vec![frame("z")]);
        // A one-byte chunk after a leak takes nothing the leak left.
        let mut buffer = SseFrameBuffer::new();
        let chunk: Vec<u8> = (0..20)
            .flat_map(|i| format!("data: {i}\n\n").into_bytes())
            .collect();
        mem::forget(buffer.feed(&chunk));
        assert_eq!(buffer.feed(b"x").next(), None);
        let after: Vec<SseFrame> = buffer.feed(b"\n\ndata: y\n\n").collect();
        assert_eq!(after.last(), Some(&frame("y")));
    }

    #[test]
    fn split_character_then_line_ending() {
        assert_eq!(
            feed_bytes(&[b"data: a\xC3", b"\xBC\n\n"]),
            vec![frame("a\u{fc}")]
        );
        assert_eq!(
            feed_bytes(&[b"data: a\xE2\x82", b"\xAC\r\n\r\n"]),
            vec![frame("a\u{20ac}")]
        );
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

    /// A `data` line cut by a chunk's end is held as the block's open value,
    /// copied once into the block's data, not in `pending` to be copied again
    /// when it completes (the chunks' frames alone cannot tell: the line joined
    /// from `pending` parses the same); a chunk that continues it without a
    /// line ending, even with `data:`, only extends that value.
    #[test]
    fn a_cut_data_line_is_held_as_an_open_value() {
        let mut buffer = SseFrameBuffer::new();
        assert_eq!(buffer.feed(b"data: a").count(), 0);
        assert!(buffer.block.open);
        assert_eq!(
            (buffer.block.data.as_str(), buffer.pending.as_str()),
            ("a", "")
        );
        assert_eq!(buffer.feed(b"data:b").count(), 0);
        assert_eq!(
            (buffer.block.data.as_str(), buffer.pending.as_str()),
            ("adata:b", "")
        );
        let frames: Vec<SseFrame> = buffer.feed(b"\n\n").collect();
        assert_eq!(frames, vec![frame("adata:b")]);
    }

    #[test]
    fn long_line_one_char_at_a_time_is_linear() {
        // 200k chunks of one char: a quadratic buffer would take minutes.
        let mut buffer = SseFrameBuffer::new();
        assert_eq!(buffer.feed(b"data: ").count(), 0);
        for _ in 0..200_000 {
            assert_eq!(buffer.feed(b"x").count(), 0);
        }
        let frames: Vec<SseFrame> = buffer.feed(b"\n\n").collect();
        assert_eq!(frames.len(), 1);
        assert_eq!(frames.first().map(|f| f.data.len()), Some(200_000));
    }
}
