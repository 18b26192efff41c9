//! HOOK-6: the one canonical JSON form of `HANZO_TOOL_INPUT` and `HANZO_TOOL_OUTPUT`:
//! `JSON.stringify` with object keys sorted by code point.

use std::fmt::Write as _;

use serde_json::Value;

/// The canonical JSON text of `value`.
pub fn canonical_json(value: &Value) -> String {
    let mut out = String::new();
    write_value(&mut out, value);
    out
}

fn write_value(out: &mut String, value: &Value) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                write_integer(out, i.unsigned_abs(), i < 0);
            } else if let Some(u) = n.as_u64() {
                write_integer(out, u, false);
            } else {
                out.push_str(&ecmascript_number(n.as_f64().unwrap_or(0.0)));
            }
        }
        Value::String(s) => write_string(out, s),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(out, item);
            }
            out.push(']');
        }
        Value::Object(members) => {
            // String's Ord compares UTF-8 bytes, which is code point order.
            let mut sorted: Vec<_> = members.iter().collect();
            sorted.sort_by(|a, b| a.0.cmp(b.0));
            out.push('{');
            for (i, (key, item)) in sorted.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(out, key);
                out.push(':');
                write_value(out, item);
            }
            out.push('}');
        }
    }
}

fn write_integer(out: &mut String, magnitude: u64, negative: bool) {
    if negative && magnitude != 0 {
        out.push('-');
    }
    let _ = write!(out, "{magnitude}");
}

fn write_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\u{c}' => out.push_str("\\f"),
            '\r' => out.push_str("\\r"),
            c if c < ' ' => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// ECMAScript `Number::toString` of a finite double, from Rust's shortest
/// round-trip digits (`{:e}` prints them as `d.ddde±x`).
pub fn ecmascript_number(value: f64) -> String {
    if value == 0.0 || !value.is_finite() {
        return "0".to_owned();
    }
    let sci = format!("{:e}", value.abs());
    let (mantissa, exponent) = sci.split_once('e').unwrap_or((&sci, "0"));
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let digits = digits.trim_end_matches('0');
    let digits = if digits.is_empty() { "0" } else { digits };
    let k = i64::try_from(digits.len()).unwrap_or(i64::MAX);
    let n = exponent.parse::<i64>().unwrap_or(0) + 1; // value = 0.digits x 10^n
    let text = if k <= n && n <= 21 {
        format!(
            "{digits}{}",
            "0".repeat(usize::try_from(n - k).unwrap_or(0))
        )
    } else if 0 < n && n <= 21 {
        let (int, frac) = digits.split_at(usize::try_from(n).unwrap_or(0));
        format!("{int}.{frac}")
    } else if -6 < n && n <= 0 {
        format!("0.{}{digits}", "0".repeat(usize::try_from(-n).unwrap_or(0)))
    } else {
        let (first, rest) = digits.split_at(1);
        let dot = if rest.is_empty() {
            String::new()
        } else {
            format!(".{rest}")
        };
        let sign = if n > 0 { '+' } else { '-' };
        format!("{first}{dot}e{sign}{}", (n - 1).abs())
    };
    if value < 0.0 {
        format!("-{text}")
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_as_ecmascript_writes_them() {
        let cases = [
            (0.1, "0.1"),
            (1.5e-7, "1.5e-7"),
            (1e21, "1e+21"),
            (1e20, "100000000000000000000"),
            (100.0, "100"),
            (0.000_001, "0.000001"),
            (1_234_567.125, "1234567.125"),
            (-2.5, "-2.5"),
            (5e-324, "5e-324"),
            (1.797_693_134_862_315_7e308, "1.7976931348623157e+308"),
            (-0.0, "0"),
            (0.5, "0.5"),
            (1.5e300, "1.5e+300"),
            (123.456, "123.456"),
            (1.2345e-6, "0.0000012345"),
            (-0.001, "-0.001"),
        ];
        for (value, text) in cases {
            assert_eq!(ecmascript_number(value), text, "{value}");
        }
    }

    #[test]
    fn keys_in_code_point_order() {
        let value: Value =
            serde_json::from_str(r#"{"😀":1,"\uffff":2,"b":3,"B":4}"#).expect("json");
        assert_eq!(
            canonical_json(&value),
            "{\"B\":4,\"b\":3,\"\u{ffff}\":2,\"😀\":1}"
        );
    }
}
