//! `session-compaction`: build a [`SessionCompactor`] from the case input in the
//! validation order of COMP-3, compact the messages, and write the
//! [`CompactionResult`] back as JSON with exactly the keys each message had.

use crate::{schema_invalid, CaseError};
use hanzo_compaction::{
    placeholder_summarizer, CompactionError, CompactionResult, Message, Role, SessionCompactor,
    Summarizer, ToolCall,
};
use serde_json::{json, Map, Value};

fn contract(e: &CompactionError) -> CaseError {
    CaseError::new(e.code(), e.to_string())
}

fn int(input: &Value, key: &str) -> i64 {
    input
        .get(key)
        .and_then(Value::as_i64)
        .unwrap_or_else(|| schema_invalid(key))
}

/// A negative cost is `invalid_token_count` (COMP-3 steps 3 and 4).
fn cost(value: i64, what: &str) -> Result<u64, CaseError> {
    u64::try_from(value).map_err(|_| {
        contract(&CompactionError::InvalidTokenCount {
            reason: format!("{what} is negative"),
        })
    })
}

/// `true`, `false` or absent (then `false`).
fn flag(input: &Value, key: &str) -> bool {
    match input.get(key) {
        None => false,
        Some(value) => value.as_bool().unwrap_or_else(|| schema_invalid(key)),
    }
}

/// `summarizer_fails`: every summarization call fails (COMP-11).
fn failing_summarizer() -> Summarizer {
    Box::new(|middle: &[Message]| {
        Err(format!("summarizing {} messages failed", middle.len()).into())
    })
}

fn text(object: &Map<String, Value>, key: &str) -> String {
    object
        .get(key)
        .and_then(Value::as_str)
        .map_or_else(|| schema_invalid(key), str::to_owned)
}

fn tool_calls(raw: &Value) -> Vec<ToolCall> {
    raw.as_array()
        .unwrap_or_else(|| schema_invalid("tool_calls must be an array"))
        .iter()
        .map(|call| {
            let call = call
                .as_object()
                .unwrap_or_else(|| schema_invalid("a tool call must be an object"));
            ToolCall {
                id: text(call, "id"),
                name: text(call, "name"),
            }
        })
        .collect()
}

fn message_in(
    index: usize,
    object: &Map<String, Value>,
    token_count: u64,
) -> Result<Message, CaseError> {
    let role_name = text(object, "role");
    let role = Role::parse(&role_name).ok_or_else(|| {
        contract(&CompactionError::InvalidMessages {
            index,
            reason: "unknown role",
        })
    })?;
    let tool_call_id = object
        .get("tool_call_id")
        .map(|_| text(object, "tool_call_id"));
    let summary = object.get("summary").map(|v| {
        v.as_bool()
            .unwrap_or_else(|| schema_invalid("message.summary must be a boolean"))
    });
    Ok(Message {
        role,
        content: text(object, "content"),
        token_count,
        tool_calls: object.get("tool_calls").map(tool_calls),
        tool_call_id,
        summary,
    })
}

fn messages_in(raw: &Value) -> Result<Vec<Message>, CaseError> {
    let list = raw
        .as_array()
        .unwrap_or_else(|| schema_invalid("input.messages must be an array"));
    let mut objects = Vec::with_capacity(list.len());
    // COMP-3 step 4: every cost is checked before any structure.
    for (index, item) in list.iter().enumerate() {
        let object = item
            .as_object()
            .unwrap_or_else(|| schema_invalid("a message must be an object"));
        let count = int(item, "token_count");
        objects.push((
            object,
            cost(count, &format!("messages[{index}].token_count"))?,
        ));
    }
    objects
        .into_iter()
        .enumerate()
        .map(|(i, (o, count))| message_in(i, o, count))
        .collect()
}

fn message_out(message: &Message) -> Value {
    let mut out = Map::new();
    out.insert("role".into(), json!(message.role.as_str()));
    out.insert("content".into(), json!(message.content));
    out.insert("token_count".into(), json!(message.token_count));
    if let Some(calls) = &message.tool_calls {
        let calls: Vec<Value> = calls
            .iter()
            .map(|c| json!({"id": c.id, "name": c.name}))
            .collect();
        out.insert("tool_calls".into(), Value::Array(calls));
    }
    if let Some(id) = &message.tool_call_id {
        out.insert("tool_call_id".into(), json!(id));
    }
    if let Some(summary) = message.summary {
        out.insert("summary".into(), json!(summary));
    }
    Value::Object(out)
}

fn result_out(result: &CompactionResult) -> Value {
    json!({
        "messages": result.messages.iter().map(message_out).collect::<Vec<_>>(),
        "compacted_count": result.compacted_count,
        "tokens_saved": result.tokens_saved,
        "total_tokens": result.total_tokens,
        "over_budget": result.over_budget,
    })
}

/// Run one case: `{messages, max_tokens, reserve_recent?, summary_tokens,
/// compacted_tokens, force?, summarizer_fails?}`.
pub fn run(input: &Value) -> Result<Value, CaseError> {
    let max_tokens = match input.get("max_tokens") {
        Some(Value::Null) => None,
        Some(_) => Some(int(input, "max_tokens")),
        None => schema_invalid("input.max_tokens is required"),
    };
    let reserve_recent = match input.get("reserve_recent") {
        None => 3,
        Some(_) => int(input, "reserve_recent"),
    };
    let compacted_tokens = int(input, "compacted_tokens");
    let summary_tokens = int(input, "summary_tokens");
    let compactor = SessionCompactor::try_new(max_tokens, reserve_recent)
        .map_err(|e| contract(&e))?
        .with_compacted_tokens(cost(compacted_tokens, "compacted_tokens")?)
        .with_summarizer(placeholder_summarizer(cost(
            summary_tokens,
            "summary_tokens",
        )?));
    let compactor = if flag(input, "summarizer_fails") {
        compactor.with_summarizer(failing_summarizer())
    } else {
        compactor
    };
    let force = flag(input, "force");
    let messages = messages_in(input.get("messages").unwrap_or(&Value::Null))?;
    let result = if force {
        compactor.force_compact(&messages)
    } else {
        compactor.compact(&messages)
    };
    result.map(|r| result_out(&r)).map_err(|e| contract(&e))
}
