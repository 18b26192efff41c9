//! A conformance worker (docs/protocol.md) for line-index 0.1.2 on lsp-positions.
//!
//! ```sh
//! cargo build --release --manifest-path examples/line-index/Cargo.toml
//! hanzo-conformance run --worker line-index=examples/line-index/target/release/line-index-worker \
//!     --platform line-index --domain lsp-positions --expectations examples/line-index/expectations.json
//! ```
//!
//! Each document case goes through `LineIndex::new`, `offset` / `to_utf8` (position to
//! offset), `try_line_col` / `to_wide` (offset to position) and `line` (the lines), and
//! nothing is corrected: where the crate answers `None` the case is a crash `None: ...`.
//! Its offsets are UTF-8 byte offsets (`TextSize`); a byte offset that is a boundary of
//! the text is converted exactly to the case's offset unit, one that is not (past the
//! end, inside a character) cannot be and is a crash `NotABoundary: ...`. What the crate has no
//! operation for is answered `skip`: edits, framing, negotiation, encoding names (its
//! `WideEncoding` is an enum), offsets in a unit other than bytes for `position_at`, and
//! negative numbers (its API takes `u32`).

use std::io::{self, BufRead, Write};

use line_index::{LineCol, LineIndex, TextSize, WideEncoding, WideLineCol};
use serde_json::{json, Value};

enum Answer {
    Output(Value),
    Skip(String),
    Crash(String),
}

#[derive(Clone, Copy, PartialEq)]
enum Unit {
    Utf8,
    Wide(WideEncoding),
}

fn unit(name: &str) -> Option<Unit> {
    match name {
        "utf-8" => Some(Unit::Utf8),
        "utf-16" => Some(Unit::Wide(WideEncoding::Utf16)),
        "utf-32" => Some(Unit::Wide(WideEncoding::Utf32)),
        _ => None,
    }
}

fn count(text: &str, unit: Unit) -> usize {
    match unit {
        Unit::Utf8 => text.len(),
        Unit::Wide(encoding) => encoding.measure(text),
    }
}

fn number(op: &Value, field: &str) -> Result<u32, Answer> {
    let value = op[field].as_f64().unwrap_or(-1.0);
    if value < 0.0 || value > f64::from(u32::MAX) {
        return Err(Answer::Skip(format!(
            "line-index takes u32; {field} {value} is none"
        )));
    }
    Ok(value as u32)
}

/// The byte offset `offset` as a count of `unit`s of `text`, if it is a boundary of it.
fn in_unit(text: &str, offset: TextSize, unit: Unit) -> Result<Value, Answer> {
    let bytes = u32::from(offset) as usize;
    if unit == Unit::Utf8 {
        return Ok(json!(bytes));
    }
    match text.get(..bytes) {
        Some(prefix) => Ok(json!(count(prefix, unit))),
        None => Err(Answer::Crash(format!(
            "NotABoundary: line-index gave byte offset {bytes}, not a boundary of the {}-byte text",
            text.len()
        ))),
    }
}

fn lines(text: &str, index: &LineIndex) -> Value {
    let mut out = Vec::new();
    let mut n = 0;
    while let Some(range) = index.line(n) {
        let line = &text[range];
        let (content, end) = match line.strip_suffix('\n') {
            Some(content) => (content, "\n"),
            None => (line, ""),
        };
        out.push(json!({"text": content, "end": end}));
        n += 1;
    }
    Value::Array(out)
}

fn document(input: &Value) -> Answer {
    let text = input["text"].as_str().unwrap_or_default();
    let encoding = input
        .get("encoding")
        .and_then(Value::as_str)
        .unwrap_or("utf-16");
    let (Some(encoding), Some(offset_unit)) = (
        unit(encoding),
        unit(input["offset_unit"].as_str().unwrap_or_default()),
    ) else {
        return Answer::Skip("line-index names no encodings (WideEncoding is an enum)".into());
    };
    let ops = input["ops"].as_array().cloned().unwrap_or_default();
    if ops.iter().any(|op| op["op"] == "change") {
        return Answer::Skip("line-index has no document edits (LineIndex::new per text)".into());
    }
    if offset_unit != Unit::Utf8 && ops.iter().any(|op| op["op"] == "position_at") {
        return Answer::Skip("line-index's try_line_col takes UTF-8 byte offsets only".into());
    }
    let index = LineIndex::new(text);
    let mut results = Vec::new();
    for op in &ops {
        let result = match op["op"].as_str() {
            Some("offset_at") => offset_at(text, &index, op, encoding, offset_unit),
            Some("position_at") => position_at(&index, op, encoding),
            Some("lines") => Ok(lines(text, &index)),
            _ => Err(Answer::Crash(format!("unknown op {op}"))),
        };
        match result {
            Ok(value) => results.push(value),
            Err(answer) => return answer,
        }
    }
    Answer::Output(json!({ "results": results }))
}

fn offset_at(
    text: &str,
    index: &LineIndex,
    op: &Value,
    encoding: Unit,
    offset_unit: Unit,
) -> Result<Value, Answer> {
    let (line, col) = (number(op, "line")?, number(op, "character")?);
    let line_col = match encoding {
        Unit::Utf8 => LineCol { line, col },
        Unit::Wide(wide) => index
            .to_utf8(wide, WideLineCol { line, col })
            .ok_or_else(|| Answer::Crash("None: line-index to_utf8 returned None".into()))?,
    };
    let offset = index.offset(line_col).ok_or_else(|| {
        Answer::Crash(format!(
            "None: line-index offset({line_col:?}) returned None"
        ))
    })?;
    in_unit(text, offset, offset_unit)
}

fn position_at(index: &LineIndex, op: &Value, encoding: Unit) -> Result<Value, Answer> {
    let offset = TextSize::from(number(op, "offset")?);
    let line_col = index.try_line_col(offset).ok_or_else(|| {
        Answer::Crash(format!(
            "None: line-index try_line_col({offset:?}) returned None"
        ))
    })?;
    let (line, character) = match encoding {
        Unit::Utf8 => (line_col.line, line_col.col),
        Unit::Wide(wide) => {
            let at = index
                .to_wide(wide, line_col)
                .ok_or_else(|| Answer::Crash("None: line-index to_wide returned None".into()))?;
            (at.line, at.col)
        }
    };
    Ok(json!({"line": line, "character": character}))
}

fn run(input: &Value) -> Answer {
    if input.get("chunks").is_some() {
        return Answer::Skip("line-index does no base-protocol framing".into());
    }
    if input.get("negotiate").is_some() || input.get("accept").is_some() {
        return Answer::Skip("line-index has no position-encoding negotiation".into());
    }
    document(input)
}

fn answer(request: &Value) -> Value {
    if request["cmd"] == "start" {
        return json!({"ok": true, "implementation": {
            "name": "line-index", "version": "0.1.2", "language": "rust",
            "domains": ["lsp-positions"]}});
    }
    let id = request["id"].as_str().unwrap_or_default();
    if request["domain"] != "lsp-positions" {
        return json!({"id": id, "crash": {"message": "not an lsp-positions request", "detail": ""}});
    }
    match run(&request["input"]) {
        Answer::Output(output) => json!({"id": id, "output": output}),
        Answer::Skip(reason) => json!({"id": id, "skip": {"reason": reason}}),
        Answer::Crash(message) => json!({"id": id, "crash": {"message": message, "detail": ""}}),
    }
}

fn main() {
    let stdin = io::stdin();
    let mut stdout = io::stdout().lock();
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        let response = match serde_json::from_str::<Value>(&line) {
            Ok(request) if request["cmd"] == "stop" => break,
            Ok(request) => answer(&request),
            Err(e) => json!({"id": "", "crash": {"message": e.to_string(), "detail": ""}}),
        };
        if writeln!(stdout, "{response}")
            .and_then(|()| stdout.flush())
            .is_err()
        {
            break;
        }
    }
}
