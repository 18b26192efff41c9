//! The adapter protocol in plain Rust: requests in, responses out, panics caught.
//!
//! Shared by the Python binding (`impl_rust/hanzo-conformance-py`, which only
//! converts [`BadRequest`] into `ValueError`) and the native runner
//! (`tests/vectors.rs`, which uses [`catch_crash`]).
//!
//! `docs/architecture.md` ("Running a case on a platform"): a request is
//! `{id, domain, input}`; a response is exactly one of `{id, output}`,
//! `{id, error: {code, message}}` (a contract error) or
//! `{id, crash: {message, detail}}` (the implementation panicked). A panic never
//! escapes: it is caught per request and becomes that request's `crash`.

use std::backtrace::Backtrace;
use std::cell::RefCell;
use std::fmt::Write as _;
use std::panic::{self, AssertUnwindSafe, PanicHookInfo};
use std::sync::Once;

use serde_json::{json, Map, Value};

use crate::CaseError;

/// A request or batch the caller got wrong (not JSON, or not the protocol's shape).
///
/// This is a harness bug, never an implementation's: the binding raises it as
/// `ValueError`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadRequest(pub String);

/// What a caught panic left behind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Crash {
    /// The panic message.
    pub message: String,
    /// Where it panicked, and a backtrace.
    pub detail: String,
}

/// Whether this thread is inside [`catch_crash`], and what the hook caught there.
#[derive(Debug, Default)]
enum Capture {
    /// Not inside [`catch_crash`]: panics go to the previous hook.
    #[default]
    Off,
    /// Inside [`catch_crash`], nothing caught yet.
    Armed,
    /// Inside [`catch_crash`], and this panic was recorded.
    Caught(Crash),
}

thread_local! {
    /// The hook records the panic here instead of printing it while armed.
    static CAPTURE: RefCell<Capture> = const { RefCell::new(Capture::Off) };
}

/// Install (once per process) a panic hook that, on threads inside
/// [`catch_crash`], records the panic's location and backtrace; elsewhere it
/// defers to the hook that was installed before.
fn install_hook() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            let captured = CAPTURE.with(|slot| match slot.try_borrow_mut() {
                Ok(mut slot) if !matches!(*slot, Capture::Off) => {
                    *slot = Capture::Caught(crash_from_hook(info));
                    true
                }
                _ => false,
            });
            if !captured {
                previous(info);
            }
        }));
    });
}

fn payload_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(ToString::to_string)
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "panic with a non-string payload".to_owned())
}

fn crash_from_hook(info: &PanicHookInfo<'_>) -> Crash {
    let message = payload_message(info.payload());
    let mut detail = String::from("panicked");
    if let Some(location) = info.location() {
        let _ = write!(detail, " at {location}");
    }
    let _ = write!(detail, ": {message}\n{}", Backtrace::force_capture());
    Crash { message, detail }
}

/// Run `f`, turning a panic into a [`Crash`] carrying the panic message (and, in
/// `detail`, its location and backtrace).
///
/// # Errors
/// The [`Crash`] when `f` panicked.
pub fn catch_crash<T>(f: impl FnOnce() -> T) -> Result<T, Crash> {
    install_hook();
    let outer = CAPTURE.with(|slot| slot.replace(Capture::Armed));
    let result = panic::catch_unwind(AssertUnwindSafe(f));
    let hooked = CAPTURE.with(|slot| slot.replace(outer));
    result.map_err(|payload| match hooked {
        Capture::Caught(crash) => crash,
        Capture::Off | Capture::Armed => {
            let message = payload_message(payload.as_ref());
            Crash {
                detail: format!("panicked: {message}"),
                message,
            }
        }
    })
}

/// What running one request came to, before it is written as a response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answered {
    /// The output's JSON text, as the domain wrote it (see [`crate::run_case_text`]).
    Output(String),
    /// A contract error.
    Error(CaseError),
    /// A panic, or a domain this platform does not implement.
    Crash(Crash),
}

impl Answered {
    /// The response for request `id`, as JSON text: `{"id":..,"output":..}`,
    /// `{"error":..,"id":..}` or `{"crash":..,"id":..}`.
    #[must_use]
    pub fn response(self, id: &Value) -> String {
        let (key, body) = match self {
            Self::Output(output) => return format!("{{\"id\":{id},\"output\":{output}}}"),
            Self::Error(error) => (
                "error",
                json!({"code": error.code, "message": error.message}),
            ),
            Self::Crash(crash) => (
                "crash",
                json!({"message": crash.message, "detail": crash.detail}),
            ),
        };
        let response = Map::from_iter([("id".to_owned(), id.clone()), (key.to_owned(), body)]);
        Value::Object(response).to_string()
    }
}

/// Run one case, panics caught.
///
/// The harness never sends a domain missing from [`implementation`]; if it does,
/// that is a `crash` (as on the other platforms), not a contract error.
fn answer(domain: &str, input: &Value) -> Answered {
    if !crate::domains().any(|d| d == domain) {
        return Answered::Crash(Crash {
            message: format!("rust does not implement {domain}"),
            detail: "not in implementation().domains".to_owned(),
        });
    }
    match catch_crash(|| crate::run_case_text(domain, input)) {
        Ok(Ok(output)) => Answered::Output(output),
        Ok(Err(error)) => Answered::Error(error),
        Err(crash) => Answered::Crash(crash),
    }
}

/// The response to one request, as JSON text (see [`Answered::response`]).
fn respond(id: &Value, domain: &str, input: &Value) -> String {
    answer(domain, input).response(id)
}

/// `{"name", "version", "language", "domains"}` for this platform, as JSON.
pub fn implementation() -> String {
    json!({
        "name": "hanzo-rust",
        "version": env!("CARGO_PKG_VERSION"),
        "language": "rust",
        "domains": crate::domains().collect::<Vec<_>>(),
    })
    .to_string()
}

/// Run a JSON array of requests `[{id, domain, input}]`; a JSON array of
/// responses, one per request, in order, ids echoed.
///
/// # Errors
/// [`BadRequest`] when the batch is not JSON or a request lacks a string `id`,
/// a string `domain` or an `input`; nothing is run then.
pub fn run_batch(requests_json: &str) -> Result<String, BadRequest> {
    let requests: Value = serde_json::from_str(requests_json)
        .map_err(|e| BadRequest(format!("requests are not JSON: {e}")))?;
    let Value::Array(requests) = requests else {
        return Err(BadRequest("requests must be a JSON array".to_owned()));
    };
    let parsed = requests
        .iter()
        .enumerate()
        .map(|(index, request)| {
            let field = |name: &str| request.get(name);
            match (
                field("id"),
                field("domain").and_then(Value::as_str),
                field("input"),
            ) {
                (Some(id @ Value::String(_)), Some(domain), Some(input)) => Ok((id, domain, input)),
                _ => Err(BadRequest(format!(
                    "request {index} needs a string \"id\", a string \"domain\" and an \"input\""
                ))),
            }
        })
        .collect::<Result<Vec<_>, _>>()?;
    let responses: Vec<String> = parsed
        .into_iter()
        .map(|(id, domain, input)| respond(id, domain, input))
        .collect();
    Ok(format!("[{}]", responses.join(",")))
}

/// The response to one request `{id, domain, input}` (other keys are ignored) as JSON
/// text, as [`run_batch`] answers it: `{"id":..,"output":..}` for an output.
///
/// # Errors
/// [`BadRequest`] when the request lacks a string `id`, a string `domain` or an
/// `input`; nothing is run then.
pub fn run_request(request: &Value) -> Result<String, BadRequest> {
    let (id, answered) = answer_request(request)?;
    Ok(answered.response(id))
}

/// The request's id and what running it came to, not yet written (the caller may
/// answer a contract error it expected more briefly, docs/protocol.md).
///
/// # Errors
/// As [`run_request`].
pub fn answer_request(request: &Value) -> Result<(&Value, Answered), BadRequest> {
    match (
        request.get("id"),
        request.get("domain").and_then(Value::as_str),
        request.get("input"),
    ) {
        (Some(id @ Value::String(_)), Some(domain), Some(input)) => Ok((id, answer(domain, input))),
        _ => Err(BadRequest(
            "the request needs a string \"id\", a string \"domain\" and an \"input\"".to_owned(),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Value {
        serde_json::from_str(text).expect("the binding emits JSON")
    }

    #[test]
    fn panics_become_crashes_with_the_message() {
        let crash = catch_crash(|| -> u8 { panic!("chunk {} out of range", 3) })
            .expect_err("the closure panics");
        assert_eq!(crash.message, "chunk 3 out of range");
        assert!(
            crash.detail.contains("batch.rs"),
            "location in detail: {}",
            crash.detail
        );
        let crash = catch_crash(|| -> u8 { panic!("static message") }).expect_err("panics");
        assert_eq!(crash.message, "static message");
    }

    #[test]
    fn panics_in_indexing_are_caught_too() {
        let items: Vec<u8> = Vec::new();
        let index = items.len() + 2;
        let crash = catch_crash(|| items[index]).expect_err("out of bounds");
        assert!(
            crash.message.contains("index out of bounds"),
            "{}",
            crash.message
        );
    }

    #[test]
    fn no_panic_passes_the_value_through() {
        assert_eq!(catch_crash(|| 41 + 1), Ok(42));
        // Capture state is restored: a nested catch does not swallow the outer one.
        let outer = catch_crash(|| {
            assert_eq!(catch_crash(|| 1), Ok(1));
            panic!("outer")
        });
        assert_eq!(
            outer.map_err(|c| c.message),
            Err::<(), _>("outer".to_owned())
        );
    }

    #[test]
    fn implementation_lists_the_crate_domains() {
        let info = parse(&implementation());
        assert_eq!(info["name"], "hanzo-rust");
        assert_eq!(info["language"], "rust");
        let domains: Vec<&str> = crate::domains().collect();
        assert_eq!(info["domains"], json!(domains));
    }

    #[test]
    fn batch_echoes_ids_in_order() {
        let out = run_batch(
            r#"[{"id": "a", "domain": "no-such-domain", "input": {}},
                {"id": "b", "domain": "no-such-domain", "input": null}]"#,
        )
        .expect("well-formed batch");
        let out = parse(&out);
        assert_eq!(out[0]["id"], "a");
        assert_eq!(out[1]["id"], "b");
        assert!(out[0]["crash"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("no-such-domain")));
        assert_eq!(out[0].as_object().map(Map::len), Some(2), "{out}");
        assert_eq!(run_batch("[]"), Ok("[]".to_owned()));
    }

    #[test]
    fn malformed_batches_are_bad_requests() {
        assert!(run_batch("not json").is_err());
        assert!(run_batch(r#"{"id": "a"}"#).is_err());
        assert!(run_batch(r#"[{"id": 1, "domain": "d", "input": {}}]"#).is_err());
        assert!(run_batch(r#"[{"id": "a", "input": {}}]"#).is_err());
    }
}
