//! The JSON layer between the shared vectors and the `hanzo-*` crates.
//!
//! Each domain module exposes `run(input) -> Result<output, CaseError>`, the output
//! a JSON value or JSON text ([`Layer`]); the harness (through the `PyO3` binding in
//! `impl_rust/hanzo-conformance-py`, via [`batch`]) calls [`run_case_text`], and
//! `cargo test` (through `tests/vectors.rs`) calls [`run_case`].

use serde_json::Value;

mod backoff_timing;
mod config_merge;
mod hooks;
mod http_retry;
mod lsp_positions;
mod mcp_normalization;
mod mcp_stdio;
mod oauth_authorize;
mod oauth_pkce;
mod permission_policy;
mod sandbox_paths;
mod session_compaction;
mod sse_frames;
mod stream_assembly;
mod token_estimation;
mod tool_call_pipeline;

pub mod batch;
pub mod compare;
pub mod line;
pub mod temp_root;
pub mod time_limit;
pub mod variants;
pub mod vectors;

/// A contract error: a stable `code` from the domain's contract, and a message
/// that is for people only (never compared).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaseError {
    /// The stable error code from the domain's contract (`invalid_verifier`, ...).
    pub code: String,
    /// A human-readable explanation; never compared across platforms.
    pub message: String,
}

impl CaseError {
    /// A contract error with the given code and message.
    pub fn new(code: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            code: code.into(),
            message: message.into(),
        }
    }
}

/// A JSON layer trusts its input: the harness (and the native runner's loader)
/// validated it against the domain's `$defs.input`, so an input of another shape
/// is a harness bug, reported as a crash, never a contract error.
#[track_caller]
pub(crate) fn schema_invalid(what: &str) -> ! {
    panic!("input does not match the domain's $defs.input: {what}")
}

/// A domain's JSON layer, by what its output is.
#[derive(Clone, Copy)]
enum Layer {
    /// A JSON value: written with its object keys sorted (`serde_json`'s map order).
    Value(fn(&Value) -> Result<Value, CaseError>),
    /// JSON text, object keys in the contract's order (the python reference's): a
    /// differential search compares outputs of such domains as text first, and
    /// sorted keys would never be the reference's text.
    Text(fn(&Value) -> Result<String, CaseError>),
}

/// Every domain this platform implements, by its kebab-case name.
const DOMAINS: &[(&str, Layer)] = &[
    ("oauth-pkce", Layer::Value(oauth_pkce::run)),
    ("backoff-timing", Layer::Value(backoff_timing::run)),
    ("session-compaction", Layer::Text(session_compaction::run)),
    ("sse-frames", Layer::Value(sse_frames::run)),
    ("mcp-normalization", Layer::Value(mcp_normalization::run)),
    ("permission-policy", Layer::Value(permission_policy::run)),
    ("config-merge", Layer::Value(config_merge::run)),
    ("sandbox-paths", Layer::Value(sandbox_paths::run)),
    ("hooks", Layer::Value(hooks::run)),
    ("tool-call-pipeline", Layer::Value(tool_call_pipeline::run)),
    ("oauth-authorize", Layer::Value(oauth_authorize::run)),
    ("lsp-positions", Layer::Value(lsp_positions::run)),
    ("token-estimation", Layer::Value(token_estimation::run)),
    ("stream-assembly", Layer::Value(stream_assembly::run)),
    ("http-retry", Layer::Value(http_retry::run)),
    ("mcp-stdio", Layer::Value(mcp_stdio::run)),
];

/// The domains this platform implements.
pub fn domains() -> impl Iterator<Item = &'static str> {
    DOMAINS.iter().map(|(name, _)| *name)
}

fn layer(domain: &str) -> Layer {
    let Some((_, layer)) = DOMAINS.iter().find(|(name, _)| *name == domain) else {
        panic!("rust does not implement {domain}");
    };
    *layer
}

/// Run one case's input through the named domain.
///
/// # Errors
/// The domain's contract error.
///
/// # Panics
/// For a domain not in [`domains`]: callers never send one, so it is a crash
/// (docs/architecture.md), not a contract error of any domain.
pub fn run_case(domain: &str, input: &Value) -> Result<Value, CaseError> {
    #[cfg(feature = "test-doubles")]
    test_doubles::misbehave(input);
    match layer(domain) {
        Layer::Value(run) => run(input),
        Layer::Text(run) => run(input).map(|text| {
            serde_json::from_str(&text)
                .unwrap_or_else(|e| panic!("{domain} wrote an output that is not JSON: {e}"))
        }),
    }
}

/// Run one case's input through the named domain; the output as compact JSON text
/// (object keys sorted, or in the contract's order where the domain writes text).
///
/// # Errors
/// The domain's contract error.
///
/// # Panics
/// For a domain not in [`domains`], as [`run_case`].
pub fn run_case_text(domain: &str, input: &Value) -> Result<String, CaseError> {
    #[cfg(feature = "test-doubles")]
    test_doubles::misbehave(input);
    match layer(domain) {
        Layer::Value(run) => run(input).map(|output| output.to_string()),
        Layer::Text(run) => run(input),
    }
}

/// Deliberately broken behaviour for the harness's isolation tests, compiled only
/// with the `test-doubles` feature (never in a release of the platform).
#[cfg(feature = "test-doubles")]
mod test_doubles {
    use serde_json::Value;

    /// A case whose input has `"server": "hanzo-test-loop"` never returns;
    /// `"hanzo-test-abort"` aborts the process (as a `panic = "abort"` build would).
    pub fn misbehave(input: &Value) {
        match input.get("server").and_then(Value::as_str) {
            Some("hanzo-test-loop") => loop {
                std::thread::sleep(std::time::Duration::from_secs(3600));
            },
            Some("hanzo-test-abort") => std::process::abort(),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    #[should_panic(expected = "rust does not implement no-such-domain")]
    fn an_unknown_domain_is_a_crash_not_a_contract_error() {
        let _ = super::run_case("no-such-domain", &serde_json::Value::Null);
    }
}
