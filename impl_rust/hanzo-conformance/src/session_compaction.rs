//! `session-compaction`: build a [`SessionCompactor`] from the case input in the
//! validation order of COMP-3, compact the messages, and write the
//! [`CompactionResult`] back as JSON text with exactly the keys each message had, in
//! the contract's (and the python reference's) order.

use crate::{schema_invalid, CaseError};
use hanzo_compaction::{
    placeholder_summarizer, CompactionError, CompactionResult, Message, Role, SessionCompactor,
    Summarizer, ToolCall,
};
use serde::Serialize;
use serde_json::{Map, Value};

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
    token_count: Option<u64>,
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
    let message = Message {
        role,
        content: text(object, "content"),
        token_count: token_count.unwrap_or(0),
        tool_calls: object.get("tool_calls").map(tool_calls),
        tool_call_id,
        summary,
    };
    // COMP-13: a message without a count is costed by the estimator.
    Ok(match token_count {
        Some(_) => message,
        None => message.with_estimated_token_count(),
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
        let count = match object.get("token_count") {
            None => None,
            Some(_) => Some(cost(
                int(item, "token_count"),
                &format!("messages[{index}].token_count"),
            )?),
        };
        objects.push((object, count));
    }
    objects
        .into_iter()
        .enumerate()
        .map(|(i, (o, count))| message_in(i, o, count))
        .collect()
}

/// A message as the reference writes it: keys in the contract's order, optional
/// fields absent when `None` (COMP-2).
#[derive(Serialize)]
struct MessageOut<'a> {
    role: &'static str,
    content: &'a str,
    token_count: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_calls: Option<Vec<ToolCallOut<'a>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_call_id: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    summary: Option<bool>,
}

#[derive(Serialize)]
struct ToolCallOut<'a> {
    id: &'a str,
    name: &'a str,
}

/// A [`CompactionResult`] as the reference writes it (COMP-1).
#[derive(Serialize)]
struct ResultOut<'a> {
    messages: Vec<MessageOut<'a>>,
    compacted_count: usize,
    tokens_saved: i64,
    total_tokens: u64,
    over_budget: bool,
}

fn message_out(message: &Message) -> MessageOut<'_> {
    MessageOut {
        role: message.role.as_str(),
        content: &message.content,
        token_count: message.token_count,
        tool_calls: message.tool_calls.as_ref().map(|calls| {
            calls
                .iter()
                .map(|c| ToolCallOut {
                    id: &c.id,
                    name: &c.name,
                })
                .collect()
        }),
        tool_call_id: message.tool_call_id.as_deref(),
        summary: message.summary,
    }
}

/// The result as JSON text with its keys in the reference's order (a `Value` would
/// write them sorted), so that the harness can take an answer whose text is the
/// reference's for the same JSON without decoding it.
fn result_out(result: &CompactionResult) -> String {
    let out = ResultOut {
        messages: result.messages.iter().map(message_out).collect(),
        compacted_count: result.compacted_count,
        tokens_saved: result.tokens_saved,
        total_tokens: result.total_tokens,
        over_budget: result.over_budget,
    };
    serde_json::to_string(&out)
        .unwrap_or_else(|e| unreachable!("plain fields always serialize: {e}"))
}

/// Run one case: `{messages, max_tokens, reserve_recent?, summary_tokens,
/// compacted_tokens, force?, summarizer_fails?}`.
pub fn run(input: &Value) -> Result<String, CaseError> {
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

#[cfg(test)]
mod tests {
    use super::run;
    use serde_json::json;

    #[test]
    fn output_keys_are_in_the_contracts_order() {
        let input = json!({
            "messages": [
                {"role": "system", "content": "sys", "token_count": 1},
                {"role": "user", "content": "q", "token_count": 5},
                {"role": "assistant", "content": "a", "token_count": 5,
                 "tool_calls": [{"id": "c0", "name": "fs.read"}]},
                {"role": "tool", "content": "r", "token_count": 50, "tool_call_id": "c0"},
                {"role": "user", "content": "q", "token_count": 5},
            ],
            "max_tokens": 20,
            "reserve_recent": 1,
            "summary_tokens": 4,
            "compacted_tokens": 0,
            "force": true,
        });
        assert_eq!(
            run(&input).expect("a well-formed history"),
            concat!(
                r#"{"messages":[{"role":"system","content":"sys","token_count":1},"#,
                r#"{"role":"user","content":"Summary of 3 earlier messages.","token_count":4,"summary":true},"#,
                r#"{"role":"user","content":"q","token_count":5}],"#,
                r#""compacted_count":3,"tokens_saved":56,"total_tokens":10,"over_budget":false}"#
            )
        );

        // Unchanged (no budget): tool calls and results written back, keys in order.
        let mut unchanged = input;
        unchanged["max_tokens"] = json!(null);
        unchanged["force"] = json!(false);
        let text = run(&unchanged).expect("a well-formed history");
        assert!(
            text.contains(concat!(
                r#"{"role":"assistant","content":"a","token_count":5,"#,
                r#""tool_calls":[{"id":"c0","name":"fs.read"}]},"#,
                r#"{"role":"tool","content":"r","token_count":50,"tool_call_id":"c0"}"#
            )),
            "{text}"
        );
    }
}
