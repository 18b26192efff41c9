//! `http-retry`: one decision, or the decisions of a sequence (RETRY-10), over
//! [`hanzo_retry`].

use hanzo_retry::{
    decide, Context, Decision, Failure, Request, Response, RetryPolicy, TransportError,
};
use serde_json::{json, Value};

use crate::{schema_invalid, CaseError};

fn get<'a>(value: &'a Value, field: &str) -> &'a Value {
    value.get(field).unwrap_or_else(|| schema_invalid(field))
}

fn count(value: &Value, field: &str) -> u64 {
    get(value, field)
        .as_u64()
        .unwrap_or_else(|| schema_invalid(field))
}

fn now_ms(value: &Value) -> i64 {
    get(value, "now_ms")
        .as_i64()
        .unwrap_or_else(|| schema_invalid("now_ms"))
}

fn sample(value: &Value) -> f64 {
    get(value, "sample")
        .as_f64()
        .unwrap_or_else(|| schema_invalid("sample"))
}

fn text(value: &Value, what: &str) -> String {
    value
        .as_str()
        .unwrap_or_else(|| schema_invalid(what))
        .to_owned()
}

fn failure(response: &Value) -> Failure {
    if let Some(kind) = response.get("error") {
        return Failure::Error(match kind.as_str() {
            Some("connect") => TransportError::Connect,
            Some("timeout") => TransportError::Timeout,
            _ => schema_invalid("response.error"),
        });
    }
    let status = get(response, "status")
        .as_u64()
        .and_then(|s| u16::try_from(s).ok())
        .unwrap_or_else(|| schema_invalid("response.status"));
    let headers = get(response, "headers")
        .as_array()
        .unwrap_or_else(|| schema_invalid("response.headers"))
        .iter()
        .map(|pair| match pair.as_array().map(Vec::as_slice) {
            Some([name, value]) => (text(name, "header name"), text(value, "header value")),
            _ => schema_invalid("a header is a [name, value] pair"),
        })
        .collect();
    Failure::Response(Response { status, headers })
}

fn output(decision: &Decision) -> Value {
    json!({
        "retry": decision.retry,
        "delay_ms": decision.delay_ms,
        "reason": decision.reason.as_str(),
        "delay_source": decision.delay_source.map(hanzo_retry::DelaySource::as_str),
    })
}

fn contract(err: &hanzo_backoff::BackoffError) -> CaseError {
    CaseError::new(err.code(), err.to_string())
}

/// The single form to one decision, the sequence form to `{"decisions": [...]}`.
///
/// # Errors
/// `invalid_sample` (RETRY-6).
pub fn run(input: &Value) -> Result<Value, CaseError> {
    let request = Request {
        method: text(get(input, "method"), "method"),
        max_retries: count(input, "max_retries"),
        idempotency_key: input.get("idempotency_key").is_some_and(|key| {
            key.as_bool()
                .unwrap_or_else(|| schema_invalid("idempotency_key"))
        }),
    };
    let Some(steps) = input.get("steps") else {
        let context = Context {
            attempt: count(input, "attempt"),
            now_ms: now_ms(input),
            sample: sample(input),
        };
        let decision = decide(&failure(get(input, "response")), &request, context)
            .map_err(|e| contract(&e))?;
        return Ok(output(&decision));
    };
    let mut policy = RetryPolicy::new(request);
    let mut decisions = Vec::new();
    for step in steps.as_array().unwrap_or_else(|| schema_invalid("steps")) {
        let decision = policy
            .decide(&failure(get(step, "response")), now_ms(step), sample(step))
            .map_err(|e| contract(&e))?;
        decisions.push(output(&decision));
        if !decision.retry {
            break;
        }
    }
    Ok(json!({ "decisions": decisions }))
}
