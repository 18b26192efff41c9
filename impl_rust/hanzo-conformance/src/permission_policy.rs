//! `permission-policy`: build a [`hanzo_permissions::PermissionPolicy`] from
//! `input.rules` and evaluate `input.tool_name`.

use hanzo_permissions::{PermissionPolicy, RuleSpec};
use serde_json::{json, Value};

use crate::{schema_invalid, CaseError};

fn rule_spec(raw: &Value) -> RuleSpec {
    let field = |key: &str| raw.get(key).and_then(Value::as_str);
    let tool_pattern = field("tool_pattern")
        .unwrap_or_else(|| schema_invalid("rule.tool_pattern must be a string"));
    let mode = field("mode").unwrap_or_else(|| schema_invalid("rule.mode must be a string"));
    let reason = match raw.get("reason") {
        None | Some(Value::Null) => None,
        Some(Value::String(reason)) => Some(reason.clone()),
        Some(_) => schema_invalid("rule.reason must be a string or null"),
    };
    RuleSpec {
        tool_pattern: tool_pattern.to_owned(),
        mode: mode.to_owned(),
        reason,
    }
}

/// `{"rules", "tool_name"}` to `{"mode", "rule_index", "reason", "audit"}`.
///
/// # Errors
/// `invalid_mode` from the contract.
pub fn run(input: &Value) -> Result<Value, CaseError> {
    let rules = input
        .get("rules")
        .and_then(Value::as_array)
        .unwrap_or_else(|| schema_invalid("input.rules must be a list"));
    let tool_name = input
        .get("tool_name")
        .and_then(Value::as_str)
        .unwrap_or_else(|| schema_invalid("input.tool_name must be a string"));
    let specs: Vec<RuleSpec> = rules.iter().map(rule_spec).collect();
    let policy =
        PermissionPolicy::new(specs).map_err(|e| CaseError::new(e.code(), e.to_string()))?;
    let decision = policy.evaluate(tool_name);
    Ok(json!({
        "mode": decision.mode.as_str(),
        "rule_index": decision.rule_index,
        "reason": decision.reason,
        "audit": {
            "tool_name": decision.audit.tool_name,
            "mode": decision.audit.mode.as_str(),
            "rule_matched": decision.audit.rule_matched,
            "reason": decision.audit.reason,
        },
    }))
}
