//! `mcp-normalization`: `op` "normalize", "parse" or "table" on [`hanzo_mcp_names`].

use hanzo_mcp_names::{build_tool_table, normalize_tool_name, parse_tool_name, McpNameError};
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

fn strings<'a>(value: Option<&'a Value>, what: &str) -> Vec<&'a str> {
    value
        .and_then(Value::as_array)
        .and_then(|items| items.iter().map(Value::as_str).collect::<Option<Vec<_>>>())
        .unwrap_or_else(|| schema_invalid(what))
}

/// `{"op": "table", "servers": [{server, tools}], "lookup"?}` to `{"table", "resolved"?}`.
fn table(input: &Value) -> Result<Value, CaseError> {
    let servers = input
        .get("servers")
        .and_then(Value::as_array)
        .unwrap_or_else(|| schema_invalid("servers"));
    let mut pairs = Vec::with_capacity(servers.len());
    for item in servers {
        let server = item
            .get("server")
            .and_then(Value::as_str)
            .unwrap_or_else(|| schema_invalid("servers/server"));
        pairs.push((server, strings(item.get("tools"), "servers/tools")));
    }
    let built = build_tool_table(pairs).map_err(|e| contract(&e))?;
    let rows: Vec<Value> = built
        .entries()
        .iter()
        .map(|e| json!({"name": e.name, "server": e.server, "tool": e.tool}))
        .collect();
    let mut out = json!({ "table": rows });
    if let Some(lookup) = input.get("lookup") {
        let resolved: Vec<Value> = strings(Some(lookup), "lookup")
            .into_iter()
            .map(|n| {
                built
                    .resolve(n)
                    .map_or(Value::Null, |e| json!({"server": e.server, "tool": e.tool}))
            })
            .collect();
        out["resolved"] = Value::Array(resolved);
    }
    Ok(out)
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
        Some("table") => table(input),
        _ => schema_invalid("op"),
    }
}
