//! The OAuth 2.1 authorization-code flow with PKCE around the S256 challenge, as HIP-301
//! §6 specifies it: the authorize URL, the callback and the token response.
//!
//! The contract is `docs/domains/oauth-authorize.md` (clauses AUTH-1..9, CB-1..5,
//! TOK-1..6); the challenge is [`hanzo_pkce`]'s.
//!
//! ```
//! let request = hanzo_oauth::AuthorizationRequest {
//!     endpoint: "https://as.example/authorize?tenant=a%20b",
//!     client_id: "c",
//!     redirect_uri: "http://127.0.0.1:8765/cb",
//!     scopes: &["read", "write"],
//!     state: "s",
//!     code_verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk",
//!     resource: None,
//!     prompt: &[],
//! };
//! let url = hanzo_oauth::authorization_url(&request)?;
//! assert!(url.starts_with("https://as.example/authorize?tenant=a%20b&response_type=code&"));
//! assert!(url.contains("&scope=read%20write&"));
//! # Ok::<(), hanzo_oauth::OAuthError>(())
//! ```

use serde_json::{Map, Value};
use std::fmt;

mod url;

pub use url::authorization_url;

/// TOK-4: the largest lifetime, in seconds.
pub const MAX_EXPIRES_IN: u64 = (1 << 31) - 1;
/// AUTH-8: the prompt values of `OpenID` Connect Core §3.1.2.1.
pub const PROMPT_VALUES: [&str; 4] = ["none", "login", "consent", "select_account"];

/// A refusal of this client: a contract error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OAuthError {
    code: &'static str,
    reason: String,
}

impl OAuthError {
    pub(crate) fn new(code: &'static str, reason: impl Into<String>) -> Self {
        Self {
            code,
            reason: reason.into(),
        }
    }

    /// The contract's stable error code (`invalid_endpoint`, `state_mismatch`, ...).
    pub fn code(&self) -> &'static str {
        self.code
    }
}

impl fmt::Display for OAuthError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.reason)
    }
}

impl std::error::Error for OAuthError {}

/// The inputs of the authorization request (AUTH-1..8).
#[derive(Debug, Clone, Copy)]
pub struct AuthorizationRequest<'a> {
    /// The authorization endpoint, possibly with a query of its own (AUTH-3).
    pub endpoint: &'a str,
    /// `client_id` (AUTH-5).
    pub client_id: &'a str,
    /// `redirect_uri` (AUTH-5).
    pub redirect_uri: &'a str,
    /// The scopes, in the caller's order (AUTH-5).
    pub scopes: &'a [&'a str],
    /// `state` (AUTH-6).
    pub state: &'a str,
    /// The PKCE code verifier; only its S256 challenge is sent (AUTH-6).
    pub code_verifier: &'a str,
    /// RFC 8707's `resource`, sent exactly when given (AUTH-7).
    pub resource: Option<&'a str>,
    /// `prompt` values (AUTH-8).
    pub prompt: &'a [&'a str],
}

/// The authorization server's error response (CB-4, TOK-2), as sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ErrorResponse {
    /// `error`: the server's code, an open set (RFC 6749 §8.5).
    pub error: String,
    /// `error_description`, if sent.
    pub error_description: Option<String>,
    /// `error_uri`, if sent.
    pub error_uri: Option<String>,
}

/// What the redirect back to the client carried (CB-4, CB-5).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Callback {
    /// The authorization code.
    Code(String),
    /// The server's error response.
    Denied(ErrorResponse),
}

/// A credential from the token endpoint (TOK-3..6).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenResponse {
    /// `access_token`.
    pub access_token: String,
    /// Always `Bearer` (TOK-3).
    pub token_type: &'static str,
    /// Whole seconds since the Unix epoch, or `None` without `expires_in` (TOK-4).
    pub expires_at: Option<u64>,
    /// The new refresh token, else the previous one (TOK-5).
    pub refresh_token: Option<String>,
    /// The granted scope as sent (TOK-6).
    pub scope: Option<String>,
}

/// What the token endpoint's body carried (TOK-2..6).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenOutcome {
    /// A credential.
    Token(TokenResponse),
    /// The server's error body.
    Failed(ErrorResponse),
}

/// CB-1..5: the authorization code, or the server's error, from the redirect URL.
///
/// # Errors
/// `invalid_callback` (CB-2, CB-4), `state_mismatch` (CB-3), `missing_code` (CB-5).
pub fn parse_callback(redirect: &str, expected_state: &str) -> Result<Callback, OAuthError> {
    // The fragment starts at the first `#`, even before a `?` (RFC 3986 §3.5).
    let before_fragment = redirect.split('#').next().unwrap_or("");
    let query = before_fragment.split_once('?').map_or("", |(_, q)| q);
    let pairs = url::form_pairs(query).ok_or_else(|| {
        OAuthError::new("invalid_callback", "the query is not form-encoded UTF-8")
    })?;
    let mut params: Vec<(String, String)> = Vec::with_capacity(pairs.len());
    for (name, value) in pairs {
        if params.iter().any(|(seen, _)| *seen == name) {
            return Err(OAuthError::new(
                "invalid_callback",
                format!("{name:?} appears twice"),
            ));
        }
        params.push((name, value));
    }
    let get = |name: &str| {
        params
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    };
    if get("state") != Some(expected_state) {
        return Err(OAuthError::new(
            "state_mismatch",
            "state does not match the request's",
        ));
    }
    if let Some(error) = get("error") {
        if error.is_empty() || get("code").is_some() {
            return Err(OAuthError::new(
                "invalid_callback",
                "malformed error response",
            ));
        }
        return Ok(Callback::Denied(ErrorResponse {
            error: error.to_owned(),
            error_description: get("error_description").map(str::to_owned),
            error_uri: get("error_uri").map(str::to_owned),
        }));
    }
    match get("code") {
        Some(code) if !code.is_empty() => Ok(Callback::Code(code.to_owned())),
        _ => Err(OAuthError::new("missing_code", "the callback has no code")),
    }
}

fn invalid(reason: impl Into<String>) -> OAuthError {
    OAuthError::new("invalid_token_response", reason)
}

fn optional_text(body: &Map<String, Value>, name: &str) -> Result<Option<String>, OAuthError> {
    match body.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => Ok(Some(text.clone())),
        Some(_) => Err(invalid(format!("{name} must be a string"))),
    }
}

/// TOK-4: a whole number of seconds from 0 to [`MAX_EXPIRES_IN`].
fn lifetime(value: &Value) -> Option<u64> {
    let number = value.as_number()?;
    if let Some(whole) = number.as_u64() {
        return (whole <= MAX_EXPIRES_IN).then_some(whole);
    }
    if number.is_i64() {
        return None; // negative
    }
    let float = number.as_f64()?;
    // 2^31 - 1 is exact in f64; -0.0 is zero; inside the bound the cast is exact.
    #[allow(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        clippy::cast_precision_loss
    )]
    let whole = (float.fract() == 0.0 && (0.0..=MAX_EXPIRES_IN as f64).contains(&float))
        .then_some(float as u64);
    whole
}

/// TOK-1..6: the credential in a token endpoint's JSON body; `now` in whole seconds.
///
/// # Errors
/// `invalid_token_response` (TOK-1..6), `unsupported_token_type` (TOK-3).
pub fn parse_token_response(
    body: &str,
    now: u64,
    previous_refresh_token: Option<&str>,
) -> Result<TokenOutcome, OAuthError> {
    // serde_json refuses NaN, Infinity, a BOM, numbers outside binary64 and lone
    // surrogates, and keeps a repeated member's last value: TOK-1 as written.
    let parsed: Value = serde_json::from_str(body)
        .map_err(|err| invalid(format!("the body is not JSON: {err}")))?;
    let Value::Object(object) = parsed else {
        return Err(invalid("the body is not a JSON object"));
    };
    if let Some(error) = object.get("error") {
        let error = match error {
            Value::String(text) if !text.is_empty() => text.clone(),
            _ => return Err(invalid("error must be a non-empty string")),
        };
        return Ok(TokenOutcome::Failed(ErrorResponse {
            error,
            error_description: optional_text(&object, "error_description")?,
            error_uri: optional_text(&object, "error_uri")?,
        }));
    }
    let access_token = match object.get("access_token") {
        Some(Value::String(text)) if !text.is_empty() => text.clone(),
        _ => return Err(invalid("access_token must be a non-empty string")),
    };
    let Some(Value::String(token_type)) = object.get("token_type") else {
        return Err(invalid("token_type must be a string"));
    };
    if !token_type.eq_ignore_ascii_case("bearer") {
        return Err(OAuthError::new(
            "unsupported_token_type",
            format!("token type {token_type:?} is not Bearer"),
        ));
    }
    let expires_at = match object.get("expires_in") {
        None | Some(Value::Null) => None,
        Some(value) => Some(
            now + lifetime(value)
                .ok_or_else(|| invalid("expires_in must be whole seconds from 0 to 2^31-1"))?,
        ),
    };
    let refresh_token = match object.get("refresh_token") {
        None | Some(Value::Null) => previous_refresh_token.map(str::to_owned),
        Some(Value::String(text)) if !text.is_empty() => Some(text.clone()),
        Some(_) => return Err(invalid("refresh_token must be a non-empty string")),
    };
    let scope = optional_text(&object, "scope")?;
    Ok(TokenOutcome::Token(TokenResponse {
        access_token,
        token_type: "Bearer",
        expires_at,
        refresh_token,
        scope,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serde_json_refuses_what_tok_1_refuses() {
        for body in [
            "\u{feff}{}",
            "{\"x\":NaN}",
            "{\"x\":1e400}",
            &format!("{{\"x\":{}}}", "9".repeat(400)),
            "{\"x\":\"\\ud800\"}",
        ] {
            let err = parse_token_response(body, 0, None).unwrap_err();
            assert_eq!(err.code(), "invalid_token_response", "{body}");
        }
    }

    #[test]
    fn a_repeated_member_takes_its_last_value() {
        let body = r#"{"access_token":"a","token_type":"Bearer","access_token":"b"}"#;
        let Ok(TokenOutcome::Token(token)) = parse_token_response(body, 0, None) else {
            panic!("not a token");
        };
        assert_eq!(token.access_token, "b");
    }

    #[test]
    fn callback_reads_the_query_not_the_fragment() {
        let url = "http://127.0.0.1/cb?code=a&state=s#code=b";
        assert_eq!(parse_callback(url, "s"), Ok(Callback::Code("a".into())));
    }
}
