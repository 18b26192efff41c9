//! `oauth-pkce`: `{"verifier": v}` to `{"challenge": S256(v)}` via [`hanzo_pkce`].

use serde_json::{json, Value};

use crate::{schema_invalid, CaseError};

/// `{"verifier": str}` to `{"challenge": str}`.
///
/// # Errors
/// `invalid_verifier` (PKCE-3).
pub fn run(input: &Value) -> Result<Value, CaseError> {
    let verifier = input
        .get("verifier")
        .and_then(Value::as_str)
        .unwrap_or_else(|| schema_invalid("input.verifier must be a string"));
    let challenge = hanzo_pkce::s256_challenge(verifier)
        .map_err(|err| CaseError::new(err.code(), err.to_string()))?;
    Ok(json!({ "challenge": challenge }))
}
