//! `sse-frames`: feed the bytes of `input.chunks` to one fresh [`hanzo_sse::SseFrameBuffer`].

use std::borrow::Cow;

use hanzo_sse::{SseFrame, SseFrameBuffer};
use serde_json::{json, Map, Value};

use crate::{schema_invalid, CaseError};

/// `{"chunks": [str, ...], "encoding"?: "bytes"}` to `{"frames": [{event, data, id, retry}, ...]}`.
///
/// Text chunks are fed as their UTF-8 encoding; with `"encoding": "bytes"` each
/// code point of a chunk is one byte (`SSE-11`).
///
/// # Errors
/// None: every chunking of every input has an output.
#[allow(clippy::unnecessary_wraps)] // the signature every domain's `run` has
pub fn run(input: &Value) -> Result<Value, CaseError> {
    let as_bytes = input.get("encoding").and_then(Value::as_str) == Some("bytes");
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
        let bytes = if as_bytes {
            Cow::Owned(latin1_bytes(chunk))
        } else {
            Cow::Borrowed(chunk.as_bytes())
        };
        frames.extend(buffer.feed(&bytes).map(frame_json));
    }
    Ok(json!({ "frames": frames }))
}

/// One byte per code point U+0000..U+00FF (the schema's pattern for bytes chunks).
fn latin1_bytes(chunk: &str) -> Vec<u8> {
    chunk
        .chars()
        .map(|c| {
            u8::try_from(c)
                .unwrap_or_else(|_| schema_invalid("a bytes chunk holds a code point above U+00FF"))
        })
        .collect()
}
/// `{event, data, id, retry}`, moving the owned strings out of the frame.
fn frame_json(frame: SseFrame) -> Value {
    let mut object = Map::new();
    object.insert(
        "event".to_owned(),
        frame
            .event
            .map_or(Value::Null, |event| Value::from(&*event)),
    );
    object.insert("data".to_owned(), Value::String(frame.data));
    object.insert("id".to_owned(), frame.id.map_or(Value::Null, Value::String));
    object.insert(
        "retry".to_owned(),
        frame.retry.map_or(Value::Null, Value::from),
    );
    Value::Object(object)
}
