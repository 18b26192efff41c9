//! Decoding and strict parsing of one settings file (CFG-4, CFG-5).

use serde_json::Value;
use std::fmt;

/// The deepest allowed nesting of arrays and objects in a settings file (CFG-4).
pub const MAX_DEPTH: usize = 64;

/// Why a settings file is not a JSON text this contract accepts.
#[derive(Debug)]
pub enum ParseError {
    /// The bytes are not valid UTF-8.
    NotUtf8,
    /// Arrays and objects nest deeper than [`MAX_DEPTH`].
    TooDeep,
    /// Not an RFC 8259 JSON text (or a number out of range, or a lone surrogate).
    Syntax(serde_json::Error),
}

impl ParseError {
    /// The contract's warning code for every parse failure: `invalid_json`.
    pub fn code(&self) -> &'static str {
        "invalid_json"
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotUtf8 => f.write_str("settings file is not UTF-8"),
            Self::TooDeep => write!(f, "settings file nests deeper than {MAX_DEPTH} levels"),
            Self::Syntax(e) => write!(f, "settings file is not JSON: {e}"),
        }
    }
}

impl std::error::Error for ParseError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Syntax(e) => Some(e),
            _ => None,
        }
    }
}

/// True if arrays/objects nest deeper than [`MAX_DEPTH`]; string contents are skipped.
///
/// Works on bytes: every byte it looks at is ASCII, and UTF-8 continuation bytes
/// never equal an ASCII byte.
fn too_deep(text: &str) -> bool {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for b in text.bytes() {
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
        } else {
            match b {
                b'"' => in_string = true,
                b'[' | b'{' => {
                    depth += 1;
                    if depth > MAX_DEPTH {
                        return true;
                    }
                }
                b']' | b'}' => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
    }
    false
}

/// Decode and parse one settings file.
///
/// A leading UTF-8 byte order mark is dropped; an empty or whitespace-only file
/// gives `Ok(None)`. Duplicate object keys: the last one wins.
///
/// # Errors
/// [`ParseError`] when the bytes are not UTF-8, nest too deeply, or are not a
/// strict JSON text.
pub fn parse_tier_text(raw: &[u8]) -> Result<Option<Value>, ParseError> {
    let text = std::str::from_utf8(raw).map_err(|_| ParseError::NotUtf8)?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if text
        .bytes()
        .all(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
    {
        return Ok(None);
    }
    if too_deep(text) {
        return Err(ParseError::TooDeep);
    }
    let mut value: Value = serde_json::from_str(text).map_err(ParseError::Syntax)?;
    to_binary64(&mut value);
    Ok(Some(value))
}

/// The largest integer every platform represents exactly (2^53 - 1).
const MAX_SAFE: u64 = (1 << 53) - 1;

/// Every JSON number denotes the nearest binary64 value (CFG-4): `serde_json`
/// keeps integers up to 64 bits exactly, so those beyond ±(2^53 - 1) are rounded
/// here (`as f64` rounds to nearest, ties to even), as Python and JS do.
fn to_binary64(value: &mut Value) {
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            Value::Number(n) => {
                let big = n.as_u64().is_some_and(|u| u > MAX_SAFE)
                    || n.as_i64().is_some_and(|i| i.unsigned_abs() > MAX_SAFE);
                if big {
                    if let Some(f) = n.as_f64().and_then(serde_json::Number::from_f64) {
                        *n = f;
                    }
                }
            }
            Value::Array(items) => stack.extend(items.iter_mut()),
            Value::Object(map) => stack.extend(map.values_mut()),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_syntax_error_keeps_its_cause() {
        let err = parse_tier_text(b"{\"a\": 1,}").unwrap_err();
        assert!(matches!(err, ParseError::Syntax(_)));
        assert!(std::error::Error::source(&err).is_some());
        assert!(std::error::Error::source(&ParseError::NotUtf8).is_none());
    }

    fn ok(text: &str) -> bool {
        parse_tier_text(text.as_bytes()).is_ok()
    }

    #[test]
    fn rejects_what_python_and_js_are_made_to_reject() {
        for bad in [
            "{\"a\": NaN}",
            "{\"a\": Infinity}",
            "{\"a\": -Infinity}",
            "{\"a\": 1,}",
            "{\"a\": 1} // c",
            "{\"a\": 1e400}",
            "{\"a\": -1e400}",
            "{\"a\": \"\\ud800\"}",
            "{\"a\": \"\\udc00\"}",
            "{\"\\ud800\": 1}",
            "{'a': 1}",
            "{\"a\": 01}",
        ] {
            assert!(!ok(bad), "{bad} should be rejected");
        }
        let huge = format!("{{\"a\": 1{}}}", "0".repeat(400));
        assert!(!ok(&huge), "a 401-digit integer overflows binary64");
    }

    #[test]
    fn accepts_surrogate_pairs_underflow_and_bom() {
        assert!(ok("{\"a\": \"\\ud83d\\ude00\"}"));
        assert!(ok("{\"a\": 1e-400}"));
        assert!(ok("\u{feff}{}"));
        assert!(matches!(parse_tier_text(b" \r\n\t"), Ok(None)));
        assert!(matches!(parse_tier_text(b"\xef\xbb\xbf"), Ok(None)));
    }

    #[test]
    fn integers_beyond_max_safe_become_binary64() {
        let v = parse_tier_text(
            b"[9007199254740991, 9007199254740993, -9223372036854775808, 18446744073709551615]",
        )
        .ok()
        .flatten();
        assert_eq!(
            v,
            Some(serde_json::json!([
                9_007_199_254_740_991_u64,
                9_007_199_254_740_992.0,
                -9_223_372_036_854_775_808.0,
                18_446_744_073_709_551_616.0
            ]))
        );
    }

    #[test]
    fn a_lone_surrogate_in_a_replaced_duplicate_is_still_rejected() {
        assert!(!ok("{\"a\": \"\\ud800\", \"a\": 1}"));
        assert!(!ok("{\"a\": 1e400, \"a\": 1}"));
    }

    #[test]
    fn duplicate_keys_last_wins() {
        let v = parse_tier_text(b"{\"a\": 1, \"a\": 2}").ok().flatten();
        assert_eq!(v, Some(serde_json::json!({"a": 2})));
    }

    #[test]
    fn depth_limit_is_exact_and_ignores_brackets_in_strings() {
        let at = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        let over = format!("{}{}", "[".repeat(MAX_DEPTH + 1), "]".repeat(MAX_DEPTH + 1));
        assert!(ok(&at));
        assert!(matches!(
            parse_tier_text(over.as_bytes()),
            Err(ParseError::TooDeep)
        ));
        let quoted = format!("{{\"a\": \"{}\\\"{}\"}}", "[".repeat(100), "{".repeat(100));
        assert!(ok(&quoted));
    }

    #[test]
    fn invalid_utf8_is_invalid_json() {
        let err = parse_tier_text(b"{\"a\": \"\xff\"}").err();
        assert_eq!(err.map(|e| e.code()), Some("invalid_json"));
    }
}
