//! `mcp-normalization`: `op` "normalize" or "parse" on [`hanzo_mcp_names`].

use hanzo_mcp_names::{normalize_tool_name, parse_tool_name, McpNameError};
use serde_json::{json, Value};

use crate::{schema_invalid, CaseError};

fn contract(err: &McpNameError) -> CaseError {
    CaseError::new(err.code(), err.to_string())
}

fn text<'a>(input: &'a Value, key: &str) -> &'a str {
    input
        .get(key)
        .and_then(Value::as_str)
        .unwrap_or_else(|| schema_invalid(key))
}

/// `{"op": "normalize", "server", "tool"}` to `{"name"}`;
/// `{"op": "parse", "name"}` to `{"server", "tool"}`.
///
/// # Errors
/// `empty_name` / `not_mcp_name` from the contract.
pub fn run(input: &Value) -> Result<Value, CaseError> {
    match input.get("op").and_then(Value::as_str) {
        Some("normalize") => {
            let name = normalize_tool_name(text(input, "server"), text(input, "tool"))
                .map_err(|e| contract(&e))?;
            Ok(json!({ "name": name }))
        }
        Some("parse") => {
            let parts = parse_tool_name(text(input, "name")).map_err(|e| contract(&e))?;
            Ok(json!({ "server": parts.server, "tool": parts.tool }))
        }
        _ => schema_invalid("op"),
    }
}
