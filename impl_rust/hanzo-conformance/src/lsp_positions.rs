//! `lsp-positions`: document ops, base-protocol framing and encoding negotiation
//! over [`hanzo_lsp`] (LSP-7, LSP-8, LSP-9).

use hanzo_lsp::{
    accept_position_encoding, checked_offset, negotiate_position_encoding, Encoding, LspError,
    MessageReader, Position, Range, TextDocument,
};
use serde_json::{json, Value};

use crate::{schema_invalid, CaseError};

fn contract(err: &LspError) -> CaseError {
    CaseError::new(err.code(), err.to_string())
}

/// A whole JSON number (written `3` or `3.0`; the schema allows only whole, safe ones).
fn whole(value: Option<&Value>, what: &str) -> i64 {
    let value = value.unwrap_or_else(|| schema_invalid(what));
    if let Some(n) = value.as_i64() {
        return n;
    }
    let number = value.as_f64().unwrap_or_else(|| schema_invalid(what));
    // Whole and within +-(2^53 - 1) by the schema: the conversion is exact.
    #[allow(clippy::cast_possible_truncation)]
    let n = number as i64;
    n
}

fn position(raw: &Value) -> Result<Position, CaseError> {
    Position::checked(
        whole(raw.get("line"), "line"),
        whole(raw.get("character"), "character"),
    )
    .map_err(|e| contract(&e))
}

fn encoding(value: Option<&Value>) -> Result<Encoding, CaseError> {
    match value {
        None => Ok(Encoding::default()),
        Some(name) => name
            .as_str()
            .unwrap_or_else(|| schema_invalid("an encoding must be a string"))
            .parse()
            .map_err(|e| contract(&e)),
    }
}

fn strings(value: Option<&Value>) -> Option<Vec<&str>> {
    value.map(|list| {
        list.as_array()
            .unwrap_or_else(|| schema_invalid("a list of encodings"))
            .iter()
            .map(|s| {
                s.as_str()
                    .unwrap_or_else(|| schema_invalid("an encoding string"))
            })
            .collect()
    })
}

fn document(input: &Value) -> Result<Value, CaseError> {
    let text = input
        .get("text")
        .and_then(Value::as_str)
        .unwrap_or_else(|| schema_invalid("input.text"));
    let mut doc = TextDocument::new(text, encoding(input.get("encoding"))?);
    // LSP-1: the offset unit is checked before any op runs.
    let unit = encoding(Some(
        input
            .get("offset_unit")
            .unwrap_or_else(|| schema_invalid("input.offset_unit")),
    ))?;
    let ops = input
        .get("ops")
        .and_then(Value::as_array)
        .unwrap_or_else(|| schema_invalid("input.ops"));
    let mut results = Vec::with_capacity(ops.len());
    for op in ops {
        let result = match op.get("op").and_then(Value::as_str) {
            Some("offset_at") => json!(doc.offset_at(position(op)?, unit)),
            Some("position_at") => {
                let offset =
                    checked_offset(whole(op.get("offset"), "offset")).map_err(|e| contract(&e))?;
                let at = doc.position_at(offset, unit);
                json!({"line": at.line, "character": at.character})
            }
            Some("lines") => Value::Array(
                doc.lines()
                    .map(|line| json!({"text": line.text, "end": line.end}))
                    .collect(),
            ),
            Some("change") => {
                let text = op
                    .get("text")
                    .and_then(Value::as_str)
                    .unwrap_or_else(|| schema_invalid("change.text"));
                let range = match op.get("range") {
                    None => None,
                    Some(raw) => Some(Range {
                        start: position(
                            raw.get("start").unwrap_or_else(|| schema_invalid("start")),
                        )?,
                        end: position(raw.get("end").unwrap_or_else(|| schema_invalid("end")))?,
                    }),
                };
                doc.apply_change(text, range).map_err(|e| contract(&e))?;
                json!(doc.text())
            }
            _ => schema_invalid("an op is offset_at, position_at, lines or change"),
        };
        results.push(result);
    }
    Ok(json!({ "results": results }))
}

/// One byte per code point U+0000..U+00FF (the schema's pattern for chunks).
fn latin1_bytes(chunk: &str) -> Vec<u8> {
    chunk
        .chars()
        .map(|c| {
            u8::try_from(c).unwrap_or_else(|_| schema_invalid("a chunk code point above U+00FF"))
        })
        .collect()
}

fn frames(chunks: &[Value]) -> Result<Value, CaseError> {
    let mut reader = MessageReader::new();
    let mut messages = Vec::new();
    for chunk in chunks {
        let chunk = chunk
            .as_str()
            .unwrap_or_else(|| schema_invalid("input.chunks must hold strings"));
        messages.extend(
            reader
                .feed(&latin1_bytes(chunk))
                .map_err(|e| contract(&e))?,
        );
    }
    Ok(json!({"messages": messages, "buffered": reader.buffered()}))
}

/// A document case, byte chunks to frame, or a negotiation (LSP-7..9).
///
/// # Errors
/// The domain's contract errors.
pub fn run(input: &Value) -> Result<Value, CaseError> {
    if let Some(chunks) = input.get("chunks") {
        return frames(
            chunks
                .as_array()
                .unwrap_or_else(|| schema_invalid("input.chunks")),
        );
    }
    if let Some(spec) = input.get("negotiate") {
        let offers = strings(spec.get("client_offers"));
        let supports = strings(spec.get("server_supports"))
            .unwrap_or_else(|| schema_invalid("server_supports"));
        return Ok(json!({"encoding": negotiate_position_encoding(offers.as_deref(), &supports)}));
    }
    if let Some(spec) = input.get("accept") {
        let offers = strings(spec.get("client_offers"));
        let answer = spec.get("server_answer").map(|a| {
            a.as_str()
                .unwrap_or_else(|| schema_invalid("server_answer"))
        });
        return accept_position_encoding(offers.as_deref(), answer)
            .map(|encoding| json!({ "encoding": encoding }))
            .map_err(|e| contract(&e));
    }
    document(input)
}
