//! `stream-assembly`: feed `input.frames` to one fresh [`hanzo_stream::StreamAssembler`], then `end()`.

use hanzo_stream::{InputError, StreamAssembler, StreamEvent};
use serde_json::{json, Value};

use crate::{schema_invalid, CaseError};

/// `{"dialect", "frames": [{event, data, id, retry}, ...]}` to `{"events": [...], "usage": ...}`.
///
/// # Errors
/// None: every frame sequence has an answer (STREAM-1).
#[allow(clippy::unnecessary_wraps)] // the signature every domain's `run` has
pub fn run(input: &Value) -> Result<Value, CaseError> {
    let dialect = input
        .get("dialect")
        .and_then(Value::as_str)
        .and_then(|d| d.parse().ok())
        .unwrap_or_else(|| schema_invalid("input.dialect must be anthropic or openai-chat"));
    let frames = input
        .get("frames")
        .and_then(Value::as_array)
        .unwrap_or_else(|| schema_invalid("input.frames must be a list"));
    let mut assembler = StreamAssembler::new(dialect);
    let mut events = Vec::new();
    for frame in frames {
        let data = frame
            .get("data")
            .and_then(Value::as_str)
            .unwrap_or_else(|| schema_invalid("a frame's data must be a string"));
        let event = frame.get("event").and_then(Value::as_str);
        events.extend(assembler.feed(event, data));
    }
    events.extend(assembler.end());
    let usage = assembler.usage().map_or(
        Value::Null,
        |u| json!({"input_tokens": u.input_tokens, "output_tokens": u.output_tokens}),
    );
    Ok(json!({
        "events": events.into_iter().map(event_json).collect::<Vec<_>>(),
        "usage": usage,
    }))
}

fn event_json(event: StreamEvent) -> Value {
    match event {
        StreamEvent::ContentDelta { text } => json!({"type": "content_delta", "text": text}),
        StreamEvent::ToolUse(call) => json!({
            "type": "tool_use",
            "id": call.id,
            "name": call.name,
            "input": call.input.map_or(Value::Null, Value::Object),
            "input_json": call.input_json,
            "input_error": call.input_error.map(InputError::as_str),
        }),
        StreamEvent::MessageStop {
            stop_reason,
            provider_stop_reason,
        } => json!({
            "type": "message_stop",
            "stop_reason": stop_reason,
            "provider_stop_reason": provider_stop_reason,
        }),
        StreamEvent::Error {
            error_type,
            message,
        } => json!({"type": "error", "error_type": error_type, "message": message}),
    }
}
