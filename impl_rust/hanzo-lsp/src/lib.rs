//! LSP 3.17 positions, line ends, document changes and base-protocol framing.
//!
//! HIP-301 section 8 (`hanzo-lsp`); contract: `docs/domains/lsp-positions.md`.
//!
//! ```
//! use hanzo_lsp::{Encoding, MessageReader, Position, TextDocument};
//! let doc = TextDocument::new("a\u{1F600}b\r\nx", Encoding::Utf16);
//! // utf-16 character 3 is after the emoji: byte 5
//! assert_eq!(doc.offset_at(Position::new(0, 3), Encoding::Utf8), 5);
//! // inside the surrogate pair: the boundary before it
//! assert_eq!(doc.offset_at(Position::new(0, 2), Encoding::Utf16), 1);
//! assert_eq!(doc.position_at(99, Encoding::Utf32), Position::new(1, 1));
//! let mut reader = MessageReader::new();
//! assert_eq!(reader.feed(b"Content-Length: 2\r\n\r\n{}").unwrap(), vec!["{}".to_owned()]);
//! ```

use std::cell::OnceCell;
use std::fmt;
use std::str::FromStr;

/// The largest line, character, offset or `Content-Length`: LSP `uinteger` (LSP-5).
pub const MAX_UINTEGER: u32 = (1 << 31) - 1;

/// A `PositionEncodingKind` (LSP-1): what a `character` or an offset counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Encoding {
    /// UTF-8 code units (bytes).
    Utf8,
    /// UTF-16 code units: the LSP default.
    #[default]
    Utf16,
    /// Code points.
    Utf32,
}

impl Encoding {
    /// The LSP spelling: `utf-8`, `utf-16`, `utf-32`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Utf8 => "utf-8",
            Self::Utf16 => "utf-16",
            Self::Utf32 => "utf-32",
        }
    }

    /// How many units of this encoding `c` takes.
    fn width(self, c: char) -> usize {
        match self {
            Self::Utf8 => c.len_utf8(),
            Self::Utf16 => c.len_utf16(),
            Self::Utf32 => 1,
        }
    }

    /// The length of `text` in this encoding's units.
    pub fn units(self, text: &str) -> usize {
        match self {
            Self::Utf8 => text.len(),
            Self::Utf16 => text.chars().map(char::len_utf16).sum(),
            Self::Utf32 => text.chars().count(),
        }
    }
}

impl FromStr for Encoding {
    type Err = LspError;

    /// Exactly one of the [`Encoding::as_str`] spellings, else [`LspError::UnknownEncoding`].
    fn from_str(name: &str) -> Result<Self, LspError> {
        [Self::Utf8, Self::Utf16, Self::Utf32]
            .into_iter()
            .find(|encoding| encoding.as_str() == name)
            .ok_or_else(|| LspError::UnknownEncoding(name.to_owned()))
    }
}

/// Every contract error of the domain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LspError {
    /// LSP-1: not one of the three encodings.
    UnknownEncoding(String),
    /// LSP-5: a line or character outside `[0, 2^31 - 1]`.
    InvalidPosition(i64),
    /// LSP-5: an offset outside `[0, 2^31 - 1]`.
    InvalidOffset(i64),
    /// LSP-6: a range whose start comes after its end (byte indices).
    InvalidRange(usize, usize),
    /// LSP-8b: a header field that is not `name: value` in ASCII.
    InvalidHeader(String),
    /// LSP-8c: no `Content-Length`.
    MissingContentLength,
    /// LSP-8c: a `Content-Length` that is not `1*DIGIT` up to `2^31 - 1`.
    InvalidContentLength(String),
    /// LSP-8c: a second `Content-Length`.
    DuplicateContentLength,
    /// LSP-8d: a charset other than utf-8 / utf8.
    UnsupportedCharset(String),
    /// LSP-8f: content that is not UTF-8.
    InvalidContent,
    /// LSP-9b: the server picked an encoding the client did not offer.
    EncodingNotOffered(String),
}

impl LspError {
    /// The contract's error code.
    pub fn code(&self) -> &'static str {
        match self {
            Self::UnknownEncoding(_) => "unknown_encoding",
            Self::InvalidPosition(_) => "invalid_position",
            Self::InvalidOffset(_) => "invalid_offset",
            Self::InvalidRange(..) => "invalid_range",
            Self::InvalidHeader(_) => "invalid_header",
            Self::MissingContentLength => "missing_content_length",
            Self::InvalidContentLength(_) => "invalid_content_length",
            Self::DuplicateContentLength => "duplicate_content_length",
            Self::UnsupportedCharset(_) => "unsupported_charset",
            Self::InvalidContent => "invalid_content",
            Self::EncodingNotOffered(_) => "encoding_not_offered",
        }
    }
}

impl fmt::Display for LspError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::UnknownEncoding(name) => write!(f, "unknown position encoding {name:?}"),
            Self::InvalidPosition(v) => write!(f, "line or character {v} is outside [0, 2^31 - 1]"),
            Self::InvalidOffset(v) => write!(f, "offset {v} is outside [0, 2^31 - 1]"),
            Self::InvalidRange(start, end) => {
                write!(
                    f,
                    "range start (byte {start}) is after its end (byte {end})"
                )
            }
            Self::InvalidHeader(field) => write!(f, "malformed header field {field:?}"),
            Self::MissingContentLength => f.write_str("the header part has no Content-Length"),
            Self::InvalidContentLength(v) => {
                write!(f, "Content-Length {v:?} is not 1*DIGIT <= 2^31 - 1")
            }
            Self::DuplicateContentLength => f.write_str("a second Content-Length field"),
            Self::UnsupportedCharset(v) => write!(f, "Content-Type {v:?}: only utf-8 is supported"),
            Self::InvalidContent => f.write_str("content is not UTF-8"),
            Self::EncodingNotOffered(v) => {
                write!(f, "the server chose {v:?}, which the client did not offer")
            }
        }
    }
}

impl std::error::Error for LspError {}

/// A zero-based line and a character in the document's position encoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Position {
    /// Zero-based line.
    pub line: u32,
    /// Units of the position encoding from the start of the line.
    pub character: u32,
}

impl Position {
    /// A position; every `u32` is accepted (values above `2^31 - 1` only clamp).
    pub fn new(line: u32, character: u32) -> Self {
        Self { line, character }
    }

    /// A position from JSON integers, checked against LSP-5.
    ///
    /// # Errors
    /// [`LspError::InvalidPosition`] when either is outside `[0, 2^31 - 1]`.
    pub fn checked(line: i64, character: i64) -> Result<Self, LspError> {
        Ok(Self::new(
            uinteger(line, LspError::InvalidPosition)?,
            uinteger(character, LspError::InvalidPosition)?,
        ))
    }
}

/// An offset from a JSON integer, checked against LSP-5.
///
/// # Errors
/// [`LspError::InvalidOffset`] outside `[0, 2^31 - 1]`.
pub fn checked_offset(offset: i64) -> Result<usize, LspError> {
    uinteger(offset, LspError::InvalidOffset).map(|v| v as usize)
}

fn uinteger(value: i64, error: fn(i64) -> LspError) -> Result<u32, LspError> {
    u32::try_from(value)
        .ok()
        .filter(|v| *v <= MAX_UINTEGER)
        .ok_or(error(value))
}

/// An LSP `Range`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Range {
    /// Where the range starts.
    pub start: Position,
    /// Where it ends (exclusive).
    pub end: Position,
}

/// One line: its content and its line end (`""` for the last line), LSP-2.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Line<'a> {
    /// The content, without the line end.
    pub text: &'a str,
    /// `"\n"`, `"\r\n"`, `"\r"`, or `""` on the last line.
    pub end: &'a str,
}

/// Byte spans of one line: start, end of content, start of the next line.
#[derive(Debug, Clone, Copy)]
struct Span {
    start: usize,
    content_end: usize,
    next: usize,
}

/// A text document addressed by LSP positions in one position encoding.
#[derive(Debug, Clone)]
pub struct TextDocument {
    text: String,
    encoding: Encoding,
    spans: Vec<Span>,
    /// Each line's start in UTF-16 and in UTF-32 units, then the length, made on first
    /// use (UTF-8 starts are the spans' own).
    wide_starts: [OnceCell<Vec<usize>>; 2],
}

impl TextDocument {
    /// A document holding `text`, its positions counted in `encoding`.
    pub fn new(text: impl Into<String>, encoding: Encoding) -> Self {
        let text = text.into();
        let spans = spans_of(&text);
        Self {
            text,
            encoding,
            spans,
            wide_starts: Default::default(),
        }
    }

    /// The document text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The position encoding.
    pub fn encoding(&self) -> Encoding {
        self.encoding
    }

    /// Every line with its line end (LSP-2).
    pub fn lines(&self) -> impl Iterator<Item = Line<'_>> + '_ {
        self.spans.iter().map(|s| Line {
            text: &self.text[s.start..s.content_end],
            end: &self.text[s.content_end..s.next],
        })
    }

    /// The byte index of the boundary `position` denotes (LSP-3).
    fn index_of(&self, position: Position) -> usize {
        let Some(span) = self.spans.get(position.line as usize) else {
            return self.text.len();
        };
        boundary_at(
            &self.text[span.start..span.content_end],
            position.character as usize,
            self.encoding,
        ) + span.start
    }

    /// The offset, in `unit`, of the boundary `position` denotes (LSP-3).
    pub fn offset_at(&self, position: Position, unit: Encoding) -> usize {
        let index = self.index_of(position);
        match self.spans.get(position.line as usize) {
            None => self.start_in(self.spans.len(), unit),
            Some(span) => {
                self.start_in(position.line as usize, unit)
                    + unit.units(&self.text[span.start..index])
            }
        }
    }

    /// Where line `line` starts in `unit`s (`line` = the number of lines: the length).
    fn start_in(&self, line: usize, unit: Encoding) -> usize {
        let slot = match unit {
            Encoding::Utf8 => return self.spans.get(line).map_or(self.text.len(), |s| s.start),
            Encoding::Utf16 => 0,
            Encoding::Utf32 => 1,
        };
        self.wide_starts[slot].get_or_init(|| self.starts_in(unit))[line]
    }

    fn starts_in(&self, unit: Encoding) -> Vec<usize> {
        let mut starts = Vec::with_capacity(self.spans.len() + 1);
        let mut total = 0;
        for span in &self.spans {
            starts.push(total);
            total += unit.units(&self.text[span.start..span.next]);
        }
        starts.push(total);
        starts
    }

    /// The position of the greatest boundary at most `offset` units of `unit` in (LSP-4).
    pub fn position_at(&self, offset: usize, unit: Encoding) -> Position {
        let (mut low, mut high) = (0, self.spans.len());
        while high - low > 1 {
            let mid = (low + high) / 2;
            if self.start_in(mid, unit) <= offset {
                low = mid;
            } else {
                high = mid;
            }
        }
        let (line, span) = (low, self.spans[low]);
        let within = &self.text[span.start..span.next];
        let index = span.start + boundary_at(within, offset - self.start_in(line, unit), unit);
        let index = index.min(span.content_end); // inside a line end (LSP-4c)
        let character = self.encoding.units(&self.text[span.start..index]);
        Position::new(to_u32(line), to_u32(character))
    }

    /// Apply one `TextDocumentContentChangeEvent` (LSP-6).
    ///
    /// # Errors
    /// [`LspError::InvalidRange`] when the range's start comes after its end.
    pub fn apply_change(&mut self, text: &str, range: Option<Range>) -> Result<(), LspError> {
        let replaced = match range {
            None => text.to_owned(),
            Some(range) => {
                let start = self.index_of(range.start);
                let end = self.index_of(range.end);
                if start > end {
                    return Err(LspError::InvalidRange(start, end));
                }
                let mut out = String::with_capacity(self.text.len() - (end - start) + text.len());
                out.push_str(&self.text[..start]);
                out.push_str(text);
                out.push_str(&self.text[end..]);
                out
            }
        };
        self.spans = spans_of(&replaced);
        self.wide_starts = Default::default();
        self.text = replaced;
        Ok(())
    }
}

fn to_u32(value: usize) -> u32 {
    // Documents are addressed by uinteger (LSP-5); larger counts saturate.
    u32::try_from(value).unwrap_or(u32::MAX)
}

/// The greatest char boundary of `text` with at most `count` units of `encoding`
/// before it (LSP-3b/c, LSP-4a/b: snap back, never split a code point).
fn boundary_at(text: &str, count: usize, encoding: Encoding) -> usize {
    if encoding == Encoding::Utf8 {
        let mut at = count.min(text.len());
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        return at;
    }
    let mut used = 0;
    for (at, c) in text.char_indices() {
        used += encoding.width(c);
        if used > count {
            return at;
        }
    }
    text.len()
}

/// The lines of `text`, split at `\r\n`, `\n` and `\r` only (LSP-2).
fn spans_of(text: &str) -> Vec<Span> {
    let bytes = text.as_bytes();
    let mut spans = Vec::new();
    let mut start = 0;
    let mut at = 0;
    while at < bytes.len() {
        match bytes[at] {
            b'\n' => {
                spans.push(Span {
                    start,
                    content_end: at,
                    next: at + 1,
                });
                start = at + 1;
            }
            b'\r' => {
                let next = if bytes.get(at + 1) == Some(&b'\n') {
                    at + 2
                } else {
                    at + 1
                };
                spans.push(Span {
                    start,
                    content_end: at,
                    next,
                });
                start = next;
                at = next - 1;
            }
            _ => {}
        }
        at += 1;
    }
    spans.push(Span {
        start,
        content_end: text.len(),
        next: text.len(),
    });
    spans
}

const HEADER_END: &[u8] = b"\r\n\r\n";

fn is_tchar(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

fn is_value_byte(b: u8) -> bool {
    (0x20..=0x7e).contains(&b) || b == b'\t'
}

fn trim_ows(mut value: &[u8]) -> &[u8] {
    while let [b' ' | b'\t', rest @ ..] = value {
        value = rest;
    }
    while let [rest @ .., b' ' | b'\t'] = value {
        value = rest;
    }
    value
}

fn lossy(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// LSP-8d: the value's `charset` parameter, if any, is utf-8 or utf8.
fn charset_ok(value: &[u8]) -> bool {
    value.split(|b| *b == b';').skip(1).all(|parameter| {
        let Some(eq) = parameter.iter().position(|b| *b == b'=') else {
            return true;
        };
        if !trim_ows(&parameter[..eq]).eq_ignore_ascii_case(b"charset") {
            return true;
        }
        let mut charset = trim_ows(&parameter[eq + 1..]);
        if charset.len() >= 2 && charset[0] == b'"' && charset[charset.len() - 1] == b'"' {
            charset = &charset[1..charset.len() - 1];
        }
        charset.eq_ignore_ascii_case(b"utf-8") || charset.eq_ignore_ascii_case(b"utf8")
    })
}

/// The fields of a header part: its bytes split at each `\r\n` (a bare `\r` or
/// `\n` stays inside a field, where LSP-8b rejects it).
struct CrlfFields<'a>(Option<&'a [u8]>);

impl<'a> Iterator for CrlfFields<'a> {
    type Item = &'a [u8];

    fn next(&mut self) -> Option<&'a [u8]> {
        let rest = self.0?;
        if let Some(at) = rest.windows(2).position(|w| w == b"\r\n") {
            self.0 = Some(&rest[at + 2..]);
            Some(&rest[..at])
        } else {
            self.0 = None;
            Some(rest)
        }
    }
}

/// The `Content-Length` of a complete header part, without its final CRLF CRLF (LSP-8b-e).
fn content_length(header: &[u8]) -> Result<usize, LspError> {
    let mut length = None;
    if !header.is_empty() {
        for field in CrlfFields(Some(header)) {
            let Some(colon) = field.iter().position(|b| *b == b':') else {
                return Err(LspError::InvalidHeader(lossy(field)));
            };
            let (name, value) = (&field[..colon], &field[colon + 1..]);
            if name.is_empty()
                || !name.iter().copied().all(is_tchar)
                || !value.iter().copied().all(is_value_byte)
            {
                return Err(LspError::InvalidHeader(lossy(field)));
            }
            let value = trim_ows(value);
            if name.eq_ignore_ascii_case(b"content-length") {
                if length.is_some() {
                    return Err(LspError::DuplicateContentLength);
                }
                let parsed = (!value.is_empty() && value.iter().all(u8::is_ascii_digit))
                    .then(|| std::str::from_utf8(value).ok()?.parse::<u64>().ok())
                    .flatten()
                    .filter(|v| *v <= u64::from(MAX_UINTEGER))
                    .and_then(|v| usize::try_from(v).ok());
                let Some(parsed) = parsed else {
                    return Err(LspError::InvalidContentLength(lossy(value)));
                };
                length = Some(parsed);
            } else if name.eq_ignore_ascii_case(b"content-type") && !charset_ok(value) {
                return Err(LspError::UnsupportedCharset(lossy(value)));
            }
        }
    }
    length.ok_or(LspError::MissingContentLength)
}

/// Splits a byte stream into LSP base-protocol messages (LSP-8).
#[derive(Debug, Default, Clone)]
pub struct MessageReader {
    buffer: Vec<u8>,
    /// (header size, content length) once a complete header part is read.
    pending: Option<(usize, usize)>,
}

impl MessageReader {
    /// A reader that has seen no bytes.
    pub fn new() -> Self {
        Self::default()
    }

    /// Bytes received that belong to no complete message yet (LSP-8g).
    pub fn buffered(&self) -> usize {
        self.buffer.len()
    }

    /// Take `data`; return the content of every message it completes, in order.
    ///
    /// # Errors
    /// A header error (LSP-8b-e) or content that is not UTF-8 (LSP-8f).
    pub fn feed(&mut self, data: &[u8]) -> Result<Vec<String>, LspError> {
        self.buffer.extend_from_slice(data);
        let mut messages = Vec::new();
        let mut consumed = 0;
        let result = loop {
            match self.next_message(consumed) {
                Ok(Some((content, size))) => {
                    messages.push(content);
                    consumed += size;
                }
                Ok(None) => break Ok(()),
                Err(e) => break Err(e),
            }
        };
        self.buffer.drain(..consumed);
        result.map(|()| messages)
    }

    /// The message starting at `buffer[from..]` and its size in bytes, if complete.
    fn next_message(&mut self, from: usize) -> Result<Option<(String, usize)>, LspError> {
        let rest = &self.buffer[from..];
        let (header_size, length) = if let Some(pending) = self.pending {
            pending
        } else {
            let Some(end) = rest.windows(HEADER_END.len()).position(|w| w == HEADER_END) else {
                return Ok(None);
            };
            let pending = (end + HEADER_END.len(), content_length(&rest[..end])?);
            self.pending = Some(pending);
            pending
        };
        if rest.len() - header_size < length {
            return Ok(None);
        }
        let content = std::str::from_utf8(&rest[header_size..header_size + length])
            .map_err(|_| LspError::InvalidContent)?;
        self.pending = None;
        Ok(Some((content.to_owned(), header_size + length)))
    }
}

/// The encoding a server picks (LSP-9a): the client's first offer it supports, else utf-16.
pub fn negotiate_position_encoding<S: AsRef<str>>(
    client_offers: Option<&[S]>,
    server_supports: &[S],
) -> String {
    client_offers
        .unwrap_or_default()
        .iter()
        .map(AsRef::as_ref)
        .find(|offer| server_supports.iter().any(|s| s.as_ref() == *offer))
        .unwrap_or(Encoding::default().as_str())
        .to_owned()
}

/// The encoding in use after the server's answer, as its client checks it (LSP-9b).
///
/// # Errors
/// [`LspError::EncodingNotOffered`] for an answer other than utf-16 the client did not offer.
pub fn accept_position_encoding<S: AsRef<str>>(
    client_offers: Option<&[S]>,
    server_answer: Option<&str>,
) -> Result<String, LspError> {
    let default = Encoding::default().as_str();
    match server_answer {
        None => Ok(default.to_owned()),
        Some(answer)
            if answer == default
                || client_offers
                    .unwrap_or_default()
                    .iter()
                    .any(|o| o.as_ref() == answer) =>
        {
            Ok(answer.to_owned())
        }
        Some(answer) => Err(LspError::EncodingNotOffered(answer.to_owned())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // The JSON layer never prints an Encoding nor reads a document's encoding back, so
    // these two public accessors are checked here.
    #[test]
    fn encoding_names_round_trip() {
        for (encoding, name) in [
            (Encoding::Utf8, "utf-8"),
            (Encoding::Utf16, "utf-16"),
            (Encoding::Utf32, "utf-32"),
        ] {
            assert_eq!(encoding.as_str(), name);
            assert_eq!(name.parse::<Encoding>(), Ok(encoding));
        }
    }

    #[test]
    fn a_document_keeps_its_encoding() {
        assert_eq!(
            TextDocument::new("x", Encoding::Utf8).encoding(),
            Encoding::Utf8
        );
        assert_eq!(
            TextDocument::new("x", Encoding::Utf32).encoding(),
            Encoding::Utf32
        );
    }

    #[test]
    fn lone_cr_ends_a_line() {
        let doc = TextDocument::new("a\rb\r\nc", Encoding::Utf16);
        let lines: Vec<_> = doc.lines().map(|l| (l.text, l.end)).collect();
        assert_eq!(lines, [("a", "\r"), ("b", "\r\n"), ("c", "")]);
    }

    #[test]
    fn utf8_offset_inside_a_character_snaps_back() {
        let doc = TextDocument::new("\u{20ac}x", Encoding::Utf32);
        assert_eq!(doc.position_at(2, Encoding::Utf8), Position::new(0, 0));
        assert_eq!(doc.position_at(3, Encoding::Utf8), Position::new(0, 1));
    }

    #[test]
    fn reversed_range_is_an_error() {
        let mut doc = TextDocument::new("abcdef", Encoding::Utf16);
        let range = Range {
            start: Position::new(0, 4),
            end: Position::new(0, 2),
        };
        assert_eq!(
            doc.apply_change("x", Some(range)).unwrap_err().code(),
            "invalid_range"
        );
    }

    #[test]
    fn framing_waits_for_the_whole_content() {
        let mut reader = MessageReader::new();
        assert!(reader
            .feed(b"Content-Length: 3\r\n\r\nab")
            .unwrap()
            .is_empty());
        assert_eq!(reader.buffered(), 23);
        assert_eq!(reader.feed(b"c").unwrap(), ["abc"]);
        assert_eq!(reader.buffered(), 0);
    }
}
