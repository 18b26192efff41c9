//! The JSON layer between the shared vectors and the `hanzo-*` crates.
//!
//! Each domain module exposes `run(input) -> Result<output, CaseError>`; the
//! harness (through the `PyO3` binding in `impl_rust/hanzo-conformance-py`, via
//! [`batch`]) and `cargo test` (through `tests/vectors.rs`) both call [`run_case`].

use serde_json::Value;

mod backoff_timing;
mod config_merge;
mod hooks;
mod mcp_normalization;
mod oauth_pkce;
mod permission_policy;
mod sandbox_paths;
mod session_compaction;
mod sse_frames;
mod tool_call_pipeline;

pub mod batch;
pub mod compare;
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

type RunFn = fn(&Value) -> Result<Value, CaseError>;

/// Every domain this platform implements, by its kebab-case name.
const DOMAINS: &[(&str, RunFn)] = &[
    ("oauth-pkce", oauth_pkce::run),
    ("backoff-timing", backoff_timing::run),
    ("session-compaction", session_compaction::run),
    ("sse-frames", sse_frames::run),
    ("mcp-normalization", mcp_normalization::run),
    ("permission-policy", permission_policy::run),
    ("config-merge", config_merge::run),
    ("sandbox-paths", sandbox_paths::run),
    ("hooks", hooks::run),
    ("tool-call-pipeline", tool_call_pipeline::run),
];

/// The domains this platform implements.
pub fn domains() -> impl Iterator<Item = &'static str> {
    DOMAINS.iter().map(|(name, _)| *name)
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
    let Some((_, run)) = DOMAINS.iter().find(|(name, _)| *name == domain) else {
        panic!("rust does not implement {domain}");
    };
    run(input)
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
