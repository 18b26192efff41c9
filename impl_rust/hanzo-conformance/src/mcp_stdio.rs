//! `mcp-stdio`: decode, session, encode and spawn-env through [`hanzo_mcp_stdio`].

use std::collections::{BTreeMap, HashMap};

use hanzo_config::McpServerConfig;
use hanzo_mcp_stdio::{
    encode_message, reply_for, server_process, EncodeError, McpClientSession, StdioMessageDecoder,
    DEFAULT_MAX_LINE_BYTES,
};
use serde_json::{json, Map, Value};

use crate::{schema_invalid, CaseError};

/// One byte per code point U+0000..U+00FF for `"encoding": "bytes"`, else UTF-8.
fn chunk_bytes(input: &Value) -> Vec<Vec<u8>> {
    let as_bytes = input.get("encoding").and_then(Value::as_str) == Some("bytes");
    input
        .get("chunks")
        .and_then(Value::as_array)
        .unwrap_or_else(|| schema_invalid("input.chunks must be a list"))
        .iter()
        .map(|chunk| {
            let text = chunk
                .as_str()
                .unwrap_or_else(|| schema_invalid("input.chunks must hold strings"));
            if as_bytes {
                text.chars()
                    .map(|c| {
                        u8::try_from(c)
                            .unwrap_or_else(|_| schema_invalid("a bytes chunk above U+00FF"))
                    })
                    .collect()
            } else {
                text.as_bytes().to_vec()
            }
        })
        .collect()
}

fn max_line_bytes(input: &Value) -> usize {
    input
        .get("max_line_bytes")
        .and_then(Value::as_u64)
        .map_or(DEFAULT_MAX_LINE_BYTES, |n| {
            usize::try_from(n).unwrap_or(usize::MAX)
        })
}

fn eof(input: &Value) -> bool {
    input.get("eof").and_then(Value::as_bool) == Some(true)
}

fn decode(input: &Value) -> Value {
    let mut decoder = StdioMessageDecoder::new(max_line_bytes(input));
    let mut messages = Vec::new();
    for chunk in chunk_bytes(input) {
        messages.extend(decoder.feed(&chunk));
    }
    if eof(input) {
        messages.extend(decoder.close());
    }
    let writes: Vec<Value> = messages.iter().filter_map(reply_for).collect();
    let messages: Vec<Value> = messages
        .iter()
        .map(hanzo_mcp_stdio::Incoming::to_json)
        .collect();
    json!({ "messages": messages, "writes": writes })
}

fn session(input: &Value) -> Value {
    let server = input
        .get("list_tools")
        .and_then(|l| l.get("server"))
        .and_then(Value::as_str)
        .map(str::to_owned);
    let listing = server.is_some();
    let mut session = McpClientSession::new(max_line_bytes(input), server);
    let handles: Vec<usize> = input
        .get("calls")
        .and_then(Value::as_array)
        .map(|calls| {
            calls
                .iter()
                .map(|call| {
                    let method = call
                        .get("method")
                        .and_then(Value::as_str)
                        .unwrap_or_else(|| schema_invalid("a call needs a method"));
                    session.request(method, call.get("params").cloned())
                })
                .collect()
        })
        .unwrap_or_default();
    for chunk in chunk_bytes(input) {
        session.feed(&chunk);
    }
    if eof(input) {
        session.close();
    }
    let mut out = Map::new();
    out.insert("writes".to_owned(), Value::Array(session.writes().to_vec()));
    out.insert("initialize".to_owned(), session.outcome(0));
    out.insert(
        "calls".to_owned(),
        handles.iter().map(|&h| session.outcome(h)).collect(),
    );
    out.insert("events".to_owned(), Value::Array(session.events().to_vec()));
    if listing {
        let tables: Vec<Value> = session
            .tables()
            .iter()
            .map(|table| {
                table
                    .iter()
                    .map(|(name, tool)| json!({"name": name, "tool": tool}))
                    .collect()
            })
            .collect();
        out.insert("tables".to_owned(), Value::Array(tables));
    }
    Value::Object(out)
}

fn encode(input: &Value) -> Result<Value, CaseError> {
    let mut message = input
        .get("message")
        .cloned()
        .unwrap_or_else(|| schema_invalid("encode needs a message"));
    if let Some(text) = input.get("params_json").and_then(Value::as_str) {
        // A Rust string cannot hold a lone surrogate, so STDIO-11d is read off the text:
        // it comes before any number (11e), wherever the two are in it.
        if has_lone_surrogate_escape(text) {
            let error = EncodeError::InvalidString;
            return Err(CaseError::new(error.code(), error.to_string()));
        }
        let params: Value = serde_json::from_str(text).map_err(|e| {
            let error = if e.to_string().contains("number out of range") {
                EncodeError::InvalidNumber
            } else {
                schema_invalid("params_json must be JSON")
            };
            CaseError::new(error.code(), e.to_string())
        })?;
        message["params"] = params;
    }
    let line = encode_message(&message).map_err(|e| CaseError::new(e.code(), e.to_string()))?;
    Ok(json!({ "line": line }))
}

/// Whether a JSON text has a `\u` escape of a surrogate that is not half of a pair.
fn has_lone_surrogate_escape(text: &str) -> bool {
    let bytes = text.as_bytes();
    let escape_at = |at: usize| -> Option<u32> {
        let hex = bytes.get(at..at + 6)?.strip_prefix(b"\\u")?;
        u32::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()
    };
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at] != b'\\' {
            at += 1;
            continue;
        }
        match escape_at(at) {
            Some(0xD800..=0xDBFF) if matches!(escape_at(at + 6), Some(0xDC00..=0xDFFF)) => at += 12,
            Some(0xD800..=0xDFFF) => return true,
            Some(_) => at += 6,
            None => at += 2, // another escape: its second byte is never an escape's start
        }
    }
    false
}

fn strings(value: Option<&Value>) -> Vec<String> {
    value
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .map(|s| {
                    s.as_str()
                        .unwrap_or_else(|| schema_invalid("strings"))
                        .to_owned()
                })
                .collect()
        })
        .unwrap_or_default()
}

fn string_map(value: Option<&Value>) -> BTreeMap<String, String> {
    value
        .and_then(Value::as_object)
        .map(|map| {
            map.iter()
                .map(|(k, v)| {
                    (
                        k.clone(),
                        v.as_str()
                            .unwrap_or_else(|| schema_invalid("string values"))
                            .to_owned(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

fn spawn_env(input: &Value) -> Result<Value, CaseError> {
    let raw = input
        .get("config")
        .unwrap_or_else(|| schema_invalid("spawn-env needs a config"));
    let config = McpServerConfig {
        command: strings(raw.get("command")),
        args: strings(raw.get("args")),
        env: string_map(raw.get("env")),
    };
    let parent: HashMap<String, String> = string_map(input.get("parent_env")).into_iter().collect();
    let process =
        server_process(&config, &parent).map_err(|e| CaseError::new(e.code(), e.to_string()))?;
    Ok(json!({ "argv": process.argv, "env": process.env }))
}

/// The four operations of `docs/domains/mcp-stdio.md` ("JSON layer").
///
/// # Errors
/// `invalid_string`, `invalid_number` (encode); `empty_command`, `nul_byte`,
/// `invalid_env_name` (spawn-env).
pub fn run(input: &Value) -> Result<Value, CaseError> {
    match input.get("op").and_then(Value::as_str) {
        Some("decode") => Ok(decode(input)),
        Some("session") => Ok(session(input)),
        Some("encode") => encode(input),
        Some("spawn-env") => spawn_env(input),
        _ => schema_invalid("op"),
    }
}
