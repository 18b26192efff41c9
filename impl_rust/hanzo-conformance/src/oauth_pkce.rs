//! `oauth-pkce`: `{"verifier": v}` to `{"challenge": S256(v)}`, and `{"generate": true}` to a
//! fresh `{"verifier", "challenge"}` pair (PKCE-5), via [`hanzo_pkce`].

use serde_json::{json, Value};

use crate::{schema_invalid, CaseError};

/// `{"verifier": str}` to `{"challenge": str}`; `{"generate": true}` to `{"verifier", "challenge"}`.
///
/// # Errors
/// `invalid_verifier` (PKCE-3), `random_unavailable` (PKCE-5).
pub fn run(input: &Value) -> Result<Value, CaseError> {
    if input.get("generate").is_some() {
        // Random output: no vector can expect it; `hanzo-conformance generate` checks the
        // pairs' properties on every platform through this operation.
        let pair = hanzo_pkce::PkceChallenge::generate()
            .map_err(|err| CaseError::new(err.code(), err.to_string()))?;
        return Ok(json!({ "verifier": pair.verifier(), "challenge": pair.challenge() }));
    }
    let verifier = input
        .get("verifier")
        .and_then(Value::as_str)
        .unwrap_or_else(|| schema_invalid("input.verifier must be a string"));
    let challenge = hanzo_pkce::s256_challenge(verifier)
        .map_err(|err| CaseError::new(err.code(), err.to_string()))?;
    Ok(json!({ "challenge": challenge }))
}
