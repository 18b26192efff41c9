//! `tool-call-pipeline`: compose the real policy, hook runner (fixtures) and
//! sandbox (a tree in a [`TempRoot`]) with a scripted prompter and executor, run
//! one call, and write the root back as `{root}` in the output.

use std::collections::BTreeMap;
use std::path::PathBuf;

use hanzo_config::{merge_tiers, HanzoConfig, TierSource, Trust};
use hanzo_hooks::{HookRunner, ToolResult};
use hanzo_permissions::{PermissionPolicy, RuleSpec};
use hanzo_pipeline::{
    ConfigParts, Origin, PermissionDecision, PermissionPrompter, PipelineOutcome, Step, ToolCall,
    ToolCallPipeline, ToolExecutor,
};
use hanzo_sandbox::{IsolationMode, Sandbox, SandboxConfig};
use serde_json::{json, Value};

use crate::hooks::{fixtures, hook_configs, substitute};
use crate::sandbox_paths::build_tree;
use crate::temp_root::{TempRoot, PLACEHOLDER};
use crate::CaseError;

struct ScriptedPrompter(PermissionDecision);

impl PermissionPrompter for ScriptedPrompter {
    fn request_permission(&self, _tool_name: &str, _input: &Value) -> PermissionDecision {
        self.0.clone()
    }
}

struct ScriptedExecutor(ToolResult);

impl ToolExecutor for ScriptedExecutor {
    fn execute(&self, _name: &str, _input: &Value, _session_id: &str) -> ToolResult {
        self.0.clone()
    }
}

/// The harness validated the input against the schema: a mismatch is a bug here.
fn bad(message: &str) -> CaseError {
    crate::schema_invalid(message)
}

fn field<'a>(value: &'a Value, key: &str) -> Result<&'a Value, CaseError> {
    value
        .get(key)
        .ok_or_else(|| bad(&format!("{key} is required")))
}

fn text<'a>(value: &'a Value, key: &str) -> Result<&'a str, CaseError> {
    field(value, key)?
        .as_str()
        .ok_or_else(|| bad(&format!("{key} must be a string")))
}

fn list<'a>(value: &'a Value, key: &str) -> Result<&'a Vec<Value>, CaseError> {
    field(value, key)?
        .as_array()
        .ok_or_else(|| bad(&format!("{key} must be a list")))
}

fn tool_result(raw: &Value) -> Result<ToolResult, CaseError> {
    Ok(ToolResult {
        output: text(raw, "output")?.to_owned(),
        error: raw.get("error").and_then(Value::as_str).map(str::to_owned),
        is_error: raw
            .get("is_error")
            .and_then(Value::as_bool)
            .unwrap_or(false),
    })
}

fn step_json(step: &Step) -> Value {
    match step {
        Step::Permission { mode, rule_index } => {
            json!({"step": "permission", "mode": mode.as_str(), "rule_index": rule_index})
        }
        Step::Prompter(answer) => {
            let reason = match answer {
                PermissionDecision::Deny(reason) => reason.clone(),
                _ => None,
            };
            json!({"step": "prompter", "answer": answer.as_str(), "reason": reason})
        }
        Step::PreHooks(pre) => json!({
            "step": "pre_hooks", "decision": pre.decision.as_str(), "reason": pre.reason, "ran": pre.ran,
        }),
        Step::Sandbox { path, check } => json!({
            "step": "sandbox", "path": path.to_string_lossy(), "allowed": check.allowed, "reason": check.reason.as_str(),
        }),
        Step::Execute { is_error } => json!({"step": "execute", "is_error": is_error}),
        Step::PostHooks { ran } => json!({"step": "post_hooks", "ran": ran}),
    }
}

fn unroot(value: Value, root: &str) -> Value {
    match value {
        Value::String(s) => Value::String(s.replace(root, PLACEHOLDER)),
        Value::Array(items) => Value::Array(items.into_iter().map(|v| unroot(v, root)).collect()),
        Value::Object(members) => Value::Object(
            members
                .into_iter()
                .map(|(k, v)| (k, unroot(v, root)))
                .collect(),
        ),
        other => other,
    }
}

fn outcome_json(outcome: &PipelineOutcome) -> Value {
    json!({
        "ran": outcome.ran,
        "steps": outcome.steps.iter().map(step_json).collect::<Vec<_>>(),
        "tool_result": {
            "output": outcome.tool_result.output,
            "error": outcome.tool_result.error,
            "is_error": outcome.tool_result.is_error,
        },
        "audit": {
            "tool_name": outcome.audit.tool_name,
            "origin": outcome.audit.origin.as_str(),
            "outcome": outcome.audit.outcome,
            "refused_by": outcome.audit.refused_by.map(hanzo_pipeline::RefusedBy::as_str),
            "reason": outcome.audit.reason,
        },
    })
}

/// `{settings | rules + hooks, prompter, sandbox, call, tool_output, session_id}` to
/// `{ran, steps, tool_result, audit}`.
///
/// # Errors
/// The composed domains' construction errors, `invalid_origin`.
pub fn run(input: &Value) -> Result<Value, CaseError> {
    let root = TempRoot::new("pipeline")?;
    let fixtures = fixtures();
    let sub = |s: &str| substitute(s, &root, &fixtures, false);
    let sub_command = |s: &str| substitute(s, &root, &fixtures, true);
    let sandbox_raw = field(input, "sandbox")?;
    build_tree(&root, sandbox_raw.get("tree"))?;
    // PIPE-1: the parts in the order of the pipeline's parameters (sandbox, whose
    // workspace the hooks run in, then policy, then hooks), then the call's origin.
    let config = field(sandbox_raw, "config")?;
    let mode: IsolationMode = text(config, "mode")?
        .parse()
        .map_err(|e: hanzo_sandbox::SandboxError| CaseError::new(e.code(), e.to_string()))?;
    let allowed_paths = list(config, "allowed_paths")?
        .iter()
        .map(|p| {
            p.as_str()
                .map(|p| PathBuf::from(sub(p)))
                .ok_or_else(|| bad("allowed_paths[] must be strings"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let sandbox = Sandbox::new(
        SandboxConfig {
            mode,
            allowed_paths,
        },
        sub(text(sandbox_raw, "workspace")?),
    )
    .map_err(|e| CaseError::new(e.code(), e.to_string()))?;
    let session_id = text(input, "session_id")?;
    let (policy, hooks) = match input.get("settings") {
        Some(settings) => {
            let mut config = merged(settings);
            for hook in &mut config.hooks {
                hook.command = sub_command(&hook.command);
            }
            let parts = ConfigParts::from_config(&config)
                .map_err(|e| CaseError::new(e.code(), e.to_string()))?;
            (parts.policy, parts.hooks)
        }
        None => direct(input, &sub_command)?,
    };
    let runner = hooks
        .session_id(session_id)
        .cwd(sandbox.workspace())
        .env([("PATH", "/usr/bin:/bin")]);
    let prompter_raw = field(input, "prompter")?;
    let reason = prompter_raw
        .get("reason")
        .and_then(Value::as_str)
        .map(str::to_owned);
    let answer = match text(prompter_raw, "answer")? {
        "allow" => PermissionDecision::Allow,
        "deny" => PermissionDecision::Deny(reason),
        "escalate" => PermissionDecision::Escalate,
        _ => return Err(bad("prompter.answer must be allow, deny or escalate")),
    };
    let prompter = ScriptedPrompter(answer);
    let executor = ScriptedExecutor(tool_result(field(input, "tool_output")?)?);
    let call_raw = field(input, "call")?;
    let origin: Origin = text(call_raw, "origin")?
        .parse()
        .map_err(|e: hanzo_pipeline::InvalidOrigin| CaseError::new(e.code(), e.to_string()))?;
    let paths = list(call_raw, "paths")?
        .iter()
        .map(|p| {
            p.as_str()
                .map(|p| PathBuf::from(sub(p)))
                .ok_or_else(|| bad("paths[] must be strings"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let call = ToolCall {
        tool_name: text(call_raw, "tool_name")?.to_owned(),
        input: field(call_raw, "input")?.clone(),
        origin,
        paths,
    };
    let pipeline = ToolCallPipeline {
        policy: &policy,
        prompter: &prompter,
        hooks: &runner,
        sandbox: &sandbox,
        executor: &executor,
        session_id,
    };
    let output = outcome_json(&pipeline.run(&call));
    Ok(unroot(output, &root.path().to_string_lossy()))
}

/// The settings tiers (file texts, as in config-merge) merged by config-merge's rules.
fn merged(settings: &Value) -> HanzoConfig {
    let files = settings.get("files");
    let source = |tier: &str| match files.and_then(|f| f.get(tier)).and_then(Value::as_str) {
        Some(text) => TierSource::Bytes(text.as_bytes().to_vec()),
        None => TierSource::Absent,
    };
    let env: BTreeMap<String, String> = settings
        .get("env")
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .filter_map(|(k, v)| v.as_str().map(|v| (k.clone(), v.to_owned())))
                .collect()
        })
        .unwrap_or_default();
    let trust = if settings.get("trusted").and_then(Value::as_bool) == Some(true) {
        Trust::Trusted
    } else {
        Trust::Untrusted
    };
    merge_tiers(
        [source("user"), source("project"), source("local")],
        &env,
        trust,
    )
    .config
}

/// The direct form: ordered rules and hooks as given (PIPE-6).
fn direct(
    input: &Value,
    sub: &dyn Fn(&str) -> String,
) -> Result<(PermissionPolicy, HookRunner), CaseError> {
    let rules = list(input, "rules")?
        .iter()
        .map(|r| {
            Ok(RuleSpec {
                tool_pattern: text(r, "tool_pattern")?.to_owned(),
                mode: text(r, "mode")?.to_owned(),
                reason: r.get("reason").and_then(Value::as_str).map(str::to_owned),
            })
        })
        .collect::<Result<Vec<_>, CaseError>>()?;
    let policy =
        PermissionPolicy::new(rules).map_err(|e| CaseError::new(e.code(), e.to_string()))?;
    let hooks = hook_configs(list(input, "hooks")?, sub)?;
    let runner = HookRunner::new(hooks).map_err(|e| CaseError::new(e.code(), e.to_string()))?;
    Ok((policy, runner))
}
