//! Derived inputs: a case run several ways, as its vector file's `variants` say.
//!
//! `rechunk` re-splits the text held as a list of strings at `path`
//! (`docs/architecture.md`, "variants"), in this order: `one-per-chunk` (one code
//! point per chunk), then `split@k` (the first `k` code points, the rest) for
//! ascending `k`: every `0 < k < n` when the text has `n <= ALL_SPLITS_UP_TO` code
//! points, otherwise exactly `SPLIT_POINTS` of them chosen by [`split_points`]. So a
//! case costs a bounded number of runs, each made when it is needed: time linear in
//! the text's length. The Python (`runners/_variants.py`) and JS
//! (`impl_js/test/variants.js`) expanders agree; `tests/tables/variants.json` is the
//! table all three pass.

use std::fmt;

use serde_json::Value;

use crate::vectors::Variant;

/// Texts of at most this many code points are split at every boundary.
pub const ALL_SPLITS_UP_TO: usize = 256;
/// Longer texts are split at exactly this many boundaries...
pub const SPLIT_POINTS: usize = 64;
/// ...of which at most this many are next to a [`PREFERRED`] code point.
pub const PREFERRED_SPLITS: usize = 32;
/// Where chunking bugs live: CR, LF (and a CRLF split), the BOM, the field colon.
pub const PREFERRED: [char; 4] = ['\r', '\n', '\u{feff}', ':'];

/// A variant that does not apply to an input (a vector-file error: the Python
/// harness rejects such files at validation).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VariantError {
    /// Nothing at the variant's path.
    PathMissing(String),
    /// Something other than a list of strings at the variant's path.
    NotAListOfStrings(String),
}

impl VariantError {
    /// The name `tests/tables/variants.json` uses for this error.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::PathMissing(_) => "path-missing",
            Self::NotAListOfStrings(_) => "not-a-list-of-strings",
        }
    }
}

impl fmt::Display for VariantError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::PathMissing(path) => write!(f, "rechunk: the input has nothing at {path:?}"),
            Self::NotAListOfStrings(path) => {
                write!(f, "rechunk: the input at {path:?} is not a list of strings")
            }
        }
    }
}

/// The joined text of the list of strings at `path` (an RFC 6901 pointer).
///
/// # Errors
/// When `path` names nothing, or something other than a list of strings.
pub fn text_at(input: &Value, path: &str) -> Result<String, VariantError> {
    // serde_json's pointer follows RFC 6901: no "01" or "-" array index.
    let found = input
        .pointer(path)
        .ok_or_else(|| VariantError::PathMissing(path.to_owned()))?;
    found
        .as_array()
        .and_then(|chunks| chunks.iter().map(Value::as_str).collect::<Option<String>>())
        .ok_or_else(|| VariantError::NotAListOfStrings(path.to_owned()))
}

fn is_preferred(c: char) -> bool {
    PREFERRED.contains(&c)
}

/// `count` distinct ordinals below `total` (`count <= total`), spread evenly:
/// `i * total / count`, or with `centred` `(2i + 1) * total / (2 count)`.
fn evenly(count: usize, total: usize, centred: bool) -> impl Iterator<Item = usize> {
    (0..count).map(move |i| {
        if centred {
            (2 * i + 1) * total / (2 * count)
        } else {
            i * total / count
        }
    })
}

/// The `k` of the `split@k` chunkings of `text`, ascending, in code points.
///
/// With `n` code points: every `0 < k < n` if `n <= ALL_SPLITS_UP_TO`. Else
/// `SPLIT_POINTS` boundaries: a boundary is preferred when the code point before
/// or after it is in [`PREFERRED`]; of the `p` preferred boundaries,
/// `m = min(p, PREFERRED_SPLITS)` are taken, those with ordinals `i * p / m`
/// (`i < m`); the other `SPLIT_POINTS - m` are taken from the `q` boundaries not
/// yet taken, at ordinals `(2j + 1) * q / (2 (SPLIT_POINTS - m))`.
pub fn split_points(text: &str) -> Vec<usize> {
    let n = text.chars().count();
    if n <= ALL_SPLITS_UP_TO {
        return (1..n).collect();
    }
    let mut preferred = Vec::new();
    let mut previous_preferred = false;
    for (k, c) in text.chars().enumerate() {
        let here = is_preferred(c);
        if k > 0 && (here || previous_preferred) {
            preferred.push(k);
        }
        previous_preferred = here;
    }
    let p = preferred.len();
    let m = p.min(PREFERRED_SPLITS);
    let taken: Vec<usize> = evenly(m, p, false).map(|i| preferred[i]).collect();
    let rest = SPLIT_POINTS - m;
    let mut chosen = taken.clone();
    for t in evenly(rest, n - 1 - m, true) {
        // The t-th boundary of 1..n, skipping those already taken (ascending).
        let mut k = t + 1;
        for &s in &taken {
            if s <= k {
                k += 1;
            }
        }
        chosen.push(k);
    }
    chosen.sort_unstable();
    chosen
}

/// The chunkings of `text`, made one at a time: `(name, chunks)`.
pub fn rechunkings(text: String) -> impl Iterator<Item = (String, Vec<String>)> {
    let points = split_points(&text);
    let one_per_chunk = text.chars().map(String::from).collect();
    // Walk the text once: (code points, bytes) up to the last split made.
    let mut cursor = (0_usize, 0_usize);
    let splits = points.into_iter().map(move |k| {
        let (mut at, mut byte) = cursor;
        while at < k {
            byte += text[byte..].chars().next().map_or(1, char::len_utf8);
            at += 1;
        }
        cursor = (at, byte);
        let (head, tail) = text.split_at(byte);
        (format!("split@{k}"), vec![head.to_owned(), tail.to_owned()])
    });
    std::iter::once(("one-per-chunk".to_owned(), one_per_chunk)).chain(splits)
}

/// `input` with the value at `path` (which [`text_at`] found) replaced by `chunks`.
fn replaced(input: &Value, path: &str, chunks: Vec<String>) -> Value {
    let mut changed = input.clone();
    if let Some(slot) = changed.pointer_mut(path) {
        *slot = Value::Array(chunks.into_iter().map(Value::String).collect());
    }
    changed
}

/// The derived inputs of a case (not the input as given), made one at a time.
///
/// # Errors
/// Before anything is made, when a variant does not apply to `input`.
pub fn derived<'a>(
    input: &'a Value,
    variants: &'a [Variant],
) -> Result<impl Iterator<Item = (String, Value)> + 'a, VariantError> {
    let texts = variants
        .iter()
        .map(|Variant::Rechunk { path }| text_at(input, path).map(|text| (path.as_str(), text)))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(texts.into_iter().flat_map(move |(path, text)| {
        rechunkings(text).map(move |(name, chunks)| (name, replaced(input, path, chunks)))
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_texts_get_a_bounded_number_of_splits() {
        let text = format!("data: {}\n\n", "x".repeat(10_000));
        let points = split_points(&text);
        assert_eq!(points.len(), SPLIT_POINTS);
        // Both sides of the colon and of each LF are preferred.
        for k in [4, 5, 10_006, 10_007] {
            assert!(points.contains(&k), "{k} in {points:?}");
        }
        assert_eq!(rechunkings(text).count(), 1 + SPLIT_POINTS);
    }

    #[test]
    fn splits_count_code_points() {
        let found: Vec<_> = rechunkings("a😀é".to_owned()).collect();
        assert_eq!(
            found[2],
            ("split@2".to_owned(), vec!["a😀".to_owned(), "é".to_owned()])
        );
    }
}
