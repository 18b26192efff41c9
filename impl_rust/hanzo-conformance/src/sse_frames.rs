//! `sse-frames`: feed `input.chunks` to one fresh [`hanzo_sse::SseFrameBuffer`].

use hanzo_sse::{SseFrame, SseFrameBuffer};
use serde_json::{json, Map, Value};

use crate::{schema_invalid, CaseError};

/// `{"chunks": [str, ...]}` to `{"frames": [{event, data, id, retry}, ...]}`.
///
/// # Errors
/// None: every chunking of every input has an output.
#[allow(clippy::unnecessary_wraps)] // the signature every domain's `run` has
pub fn run(input: &Value) -> Result<Value, CaseError> {
    let chunks = input
        .get("chunks")
        .and_then(Value::as_array)
        .unwrap_or_else(|| schema_invalid("input.chunks must be a list"));
    let mut buffer = SseFrameBuffer::new();
    let mut frames = Vec::new();
    for chunk in chunks {
        let chunk = chunk
            .as_str()
            .unwrap_or_else(|| schema_invalid("input.chunks must hold strings"));
        frames.extend(buffer.feed(chunk).into_iter().map(frame_json));
    }
    Ok(json!({ "frames": frames }))
}

/// `{event, data, id, retry}`, moving the strings out of the frame.
fn frame_json(frame: SseFrame) -> Value {
    let mut object = Map::new();
    object.insert(
        "event".to_owned(),
        frame.event.map_or(Value::Null, Value::String),
    );
    object.insert("data".to_owned(), Value::String(frame.data));
    object.insert("id".to_owned(), frame.id.map_or(Value::Null, Value::String));
    object.insert(
        "retry".to_owned(),
        frame.retry.map_or(Value::Null, Value::from),
    );
    Value::Object(object)
}
