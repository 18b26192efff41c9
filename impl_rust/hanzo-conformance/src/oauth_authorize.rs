//! `oauth-authorize`: the input's `op` picks [`hanzo_oauth`]'s authorize URL, callback or
//! token response; the server's error responses are outputs, `OAuthError` the contract
//! error (docs/domains/oauth-authorize.md).

use hanzo_oauth::{AuthorizationRequest, Callback, ErrorResponse, TokenOutcome};
use serde_json::{json, Value};

use crate::{schema_invalid, CaseError};

fn text<'a>(input: &'a Value, name: &str) -> &'a str {
    input
        .get(name)
        .and_then(Value::as_str)
        .unwrap_or_else(|| schema_invalid(name))
}

fn texts<'a>(input: &'a Value, name: &str) -> Vec<&'a str> {
    input.get(name).map_or_else(Vec::new, |list| {
        list.as_array()
            .unwrap_or_else(|| schema_invalid(name))
            .iter()
            .map(|item| item.as_str().unwrap_or_else(|| schema_invalid(name)))
            .collect()
    })
}

fn server_error(response: &ErrorResponse) -> Value {
    json!({
        "error": response.error,
        "error_description": response.error_description,
        "error_uri": response.error_uri,
    })
}

fn contract(err: &hanzo_oauth::OAuthError) -> CaseError {
    CaseError::new(err.code(), err.to_string())
}

/// One case of the domain, by `op`.
///
/// # Errors
/// The contract's error codes (AUTH-1..9, CB-2..5, TOK-1..6).
pub fn run(input: &Value) -> Result<Value, CaseError> {
    match text(input, "op") {
        "authorize-url" => {
            let scopes = texts(input, "scopes");
            let prompt = texts(input, "prompt");
            let request = AuthorizationRequest {
                endpoint: text(input, "authorization_endpoint"),
                client_id: text(input, "client_id"),
                redirect_uri: text(input, "redirect_uri"),
                scopes: &scopes,
                state: text(input, "state"),
                code_verifier: text(input, "code_verifier"),
                resource: input.get("resource").and_then(Value::as_str),
                prompt: &prompt,
            };
            let url = hanzo_oauth::authorization_url(&request).map_err(|e| contract(&e))?;
            Ok(json!({ "url": url }))
        }
        "callback" => {
            match hanzo_oauth::parse_callback(text(input, "url"), text(input, "state"))
                .map_err(|e| contract(&e))?
            {
                Callback::Code(code) => Ok(json!({ "code": code })),
                Callback::Denied(response) => Ok(server_error(&response)),
            }
        }
        "token-response" => {
            let now = input
                .get("now")
                .and_then(Value::as_u64)
                .unwrap_or_else(|| schema_invalid("now"));
            let previous = input.get("previous_refresh_token").and_then(Value::as_str);
            match hanzo_oauth::parse_token_response(text(input, "body"), now, previous)
                .map_err(|e| contract(&e))?
            {
                TokenOutcome::Token(token) => Ok(json!({
                    "access_token": token.access_token,
                    "token_type": token.token_type,
                    "expires_at": token.expires_at,
                    "refresh_token": token.refresh_token,
                    "scope": token.scope,
                })),
                TokenOutcome::Failed(response) => Ok(server_error(&response)),
            }
        }
        other => schema_invalid(&format!("op {other:?}")),
    }
}
