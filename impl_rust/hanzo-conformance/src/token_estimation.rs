//! `token-estimation`: a bare text's cost, or a message list's counts, through
//! [`hanzo_tokens`] (TOK-1 to TOK-5).

use crate::{schema_invalid, CaseError};
use hanzo_tokens::{estimate_text, fill_token_counts, utf8_length, MessageText, ToolCallText};
use serde_json::{json, Map, Value};

fn text(object: &Map<String, Value>, key: &str) -> String {
    object
        .get(key)
        .and_then(Value::as_str)
        .map_or_else(|| schema_invalid(key), str::to_owned)
}

fn tool_call(raw: &Value) -> ToolCallText {
    let call = raw
        .as_object()
        .unwrap_or_else(|| schema_invalid("a tool call must be an object"));
    ToolCallText {
        id: text(call, "id"),
        name: text(call, "name"),
        arguments: call
            .get("arguments")
            .map_or_else(String::new, |_| text(call, "arguments")),
    }
}

fn message_in(raw: &Value) -> MessageText {
    let object = raw
        .as_object()
        .unwrap_or_else(|| schema_invalid("a message must be an object"));
    MessageText {
        content: text(object, "content"),
        token_count: object
            .get("token_count")
            .map(|n| n.as_i64().unwrap_or_else(|| schema_invalid("token_count"))),
        tool_calls: object.get("tool_calls").map_or_else(Vec::new, |calls| {
            calls
                .as_array()
                .unwrap_or_else(|| schema_invalid("tool_calls must be an array"))
                .iter()
                .map(tool_call)
                .collect()
        }),
        tool_call_id: object
            .get("tool_call_id")
            .map(|_| text(object, "tool_call_id")),
    }
}

pub fn run(input: &Value) -> Result<Value, CaseError> {
    if let Some(raw) = input.get("text") {
        let text = raw.as_str().unwrap_or_else(|| schema_invalid("text"));
        return Ok(json!({"utf8_bytes": utf8_length(text), "tokens": estimate_text(text)}));
    }
    let messages: Vec<MessageText> = input
        .get("messages")
        .and_then(Value::as_array)
        .unwrap_or_else(|| schema_invalid("messages"))
        .iter()
        .map(message_in)
        .collect();
    let counts =
        fill_token_counts(&messages).map_err(|e| CaseError::new(e.code(), e.to_string()))?;
    Ok(json!({
        "token_counts": counts.token_counts,
        "estimated": counts.estimated,
        "total_tokens": counts.total_tokens,
    }))
}
