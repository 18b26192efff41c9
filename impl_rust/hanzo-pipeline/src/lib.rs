//! One tool call through HIP-301's composition: permission policy, prompter,
//! pre-hooks, sandbox, execution, post-hooks (`docs/domains/tool-call-pipeline.md`).
//!
//! The first step that refuses ends the call (PIPE-2); the model then gets a
//! `ToolResult` with `is_error` and the refusal message (PIPE-4).

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

use hanzo_config::{policy_from_config, HanzoConfig};
use hanzo_hooks::{Decision, HookError, HookResult, HookRunner, ToolResult};
use hanzo_permissions::{PermissionMode, PermissionPolicy};
use hanzo_sandbox::{PathCheck, Sandbox};
use serde_json::Value;

/// HIP-301 §2's `PermissionDecision`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PermissionDecision {
    /// Run the tool.
    Allow,
    /// Do not, with an optional reason.
    Deny(Option<String>),
    /// A human must decide (PIPE-3): the call is refused now.
    Escalate,
}

impl PermissionDecision {
    /// `allow`, `deny` or `escalate`.
    pub fn as_str(&self) -> &'static str {
        match self {
            Self::Allow => "allow",
            Self::Deny(_) => "deny",
            Self::Escalate => "escalate",
        }
    }
}

/// HIP-301 §2's `PermissionPrompter`.
pub trait PermissionPrompter {
    /// Ask whether `tool_name` may run with `input`.
    fn request_permission(&self, tool_name: &str, input: &Value) -> PermissionDecision;
}

/// HIP-301 §2's `ToolExecutor`.
pub trait ToolExecutor {
    /// Run the tool.
    fn execute(&self, name: &str, input: &Value, session_id: &str) -> ToolResult;
}

/// PIPE-1: who asks for the call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Origin {
    /// The agent loop.
    Agent,
    /// A subagent (shares the parent's policy and hooks).
    Subagent,
    /// A user-initiated slash command (no permission system).
    SlashCommand,
}

impl Origin {
    /// The contract's spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Agent => "agent",
            Self::Subagent => "subagent",
            Self::SlashCommand => "slash_command",
        }
    }
}

/// PIPE-1: the origin is not one of the three.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvalidOrigin(pub String);

impl InvalidOrigin {
    /// The contract's stable error code.
    pub fn code(&self) -> &'static str {
        "invalid_origin"
    }
}

impl fmt::Display for InvalidOrigin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid origin {:?}", self.0)
    }
}

impl std::error::Error for InvalidOrigin {}

impl FromStr for Origin {
    type Err = InvalidOrigin;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "agent" => Ok(Self::Agent),
            "subagent" => Ok(Self::Subagent),
            "slash_command" => Ok(Self::SlashCommand),
            other => Err(InvalidOrigin(other.to_owned())),
        }
    }
}

/// One call: the tool, its input, who asks, the paths it touches.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    /// The tool's name.
    pub tool_name: String,
    /// The tool's input.
    pub input: Value,
    /// Who asks.
    pub origin: Origin,
    /// The paths the tool will touch, checked in order.
    pub paths: Vec<PathBuf>,
}

/// A step taken (PIPE-2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// The policy's decision.
    Permission {
        /// The mode.
        mode: PermissionMode,
        /// The first matching rule.
        rule_index: Option<usize>,
    },
    /// The prompter's answer.
    Prompter(PermissionDecision),
    /// The pre-hooks' result.
    PreHooks(HookResult),
    /// One path's check.
    Sandbox {
        /// The path as given.
        path: PathBuf,
        /// The check.
        check: PathCheck,
    },
    /// The executor ran.
    Execute {
        /// Whether its result is an error.
        is_error: bool,
    },
    /// The post-hooks ran.
    PostHooks {
        /// Their configuration indices.
        ran: Vec<usize>,
    },
}

/// Who refused, for the audit record (PIPE-5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RefusedBy {
    /// The permission policy.
    Permission,
    /// The prompter (deny or escalate).
    Prompter,
    /// A pre-hook.
    PreHooks,
    /// The sandbox.
    Sandbox,
}

impl RefusedBy {
    /// The step's name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Permission => "permission",
            Self::Prompter => "prompter",
            Self::PreHooks => "pre_hooks",
            Self::Sandbox => "sandbox",
        }
    }
}

/// PIPE-5.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditRecord {
    /// The tool.
    pub tool_name: String,
    /// Who asked.
    pub origin: Origin,
    /// `ran`, `refused` or `escalated`.
    pub outcome: &'static str,
    /// The refusing step.
    pub refused_by: Option<RefusedBy>,
    /// The refusal message.
    pub reason: Option<String>,
}

/// What a call came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PipelineOutcome {
    /// Whether the executor ran.
    pub ran: bool,
    /// The steps taken, in order.
    pub steps: Vec<Step>,
    /// What the model gets back.
    pub tool_result: ToolResult,
    /// The audit record.
    pub audit: AuditRecord,
}

/// The policy and hook runner of a pipeline built from the merged settings (PIPE-6).
pub struct ConfigParts {
    /// `policy_from_config(config)`: deny, then prompt, then allow rules (CFG-22).
    pub policy: PermissionPolicy,
    /// A runner over `config.hooks` in merged order (CFG-24); the caller sets its
    /// session, working directory and environment.
    pub hooks: HookRunner,
}

impl ConfigParts {
    /// The parts a [`ToolCallPipeline`] borrows, built from a merged config.
    ///
    /// # Errors
    /// A hook the runner rejects; never for a config the merge built, which admits
    /// only valid hooks.
    pub fn from_config(config: &HanzoConfig) -> Result<Self, HookError> {
        Ok(Self {
            policy: policy_from_config(config),
            hooks: HookRunner::new(config.hooks.clone())?,
        })
    }
}

/// The steps between the model asking for a tool and the result it gets back.
pub struct ToolCallPipeline<'a> {
    /// The permission rules.
    pub policy: &'a PermissionPolicy,
    /// Asked on `prompt`.
    pub prompter: &'a dyn PermissionPrompter,
    /// Pre- and post-hooks.
    pub hooks: &'a HookRunner,
    /// Path checks.
    pub sandbox: &'a Sandbox,
    /// Runs the tool.
    pub executor: &'a dyn ToolExecutor,
    /// Passed to the executor.
    pub session_id: &'a str,
}

/// A refusal: the refusing step, the message, and the audit outcome.
type Refusal = (RefusedBy, String, &'static str);

fn refused(call: &ToolCall, steps: Vec<Step>, (by, message, outcome): Refusal) -> PipelineOutcome {
    PipelineOutcome {
        ran: false,
        steps,
        tool_result: ToolResult {
            output: String::new(),
            error: Some(message.clone()),
            is_error: true,
        },
        audit: AuditRecord {
            tool_name: call.tool_name.clone(),
            origin: call.origin,
            outcome,
            refused_by: Some(by),
            reason: Some(message),
        },
    }
}

impl ToolCallPipeline<'_> {
    /// The permission step and, on `prompt`, the prompter step (skipped for slash commands).
    fn permission(&self, call: &ToolCall, steps: &mut Vec<Step>) -> Option<Refusal> {
        if call.origin == Origin::SlashCommand {
            return None;
        }
        let decision = self.policy.evaluate(&call.tool_name);
        steps.push(Step::Permission {
            mode: decision.mode,
            rule_index: decision.rule_index,
        });
        match decision.mode {
            PermissionMode::Allow => None,
            PermissionMode::Deny => {
                let reason = decision
                    .reason
                    .unwrap_or_else(|| "denied by permission policy".to_owned());
                Some((
                    RefusedBy::Permission,
                    format!("permission denied: {reason}"),
                    "refused",
                ))
            }
            PermissionMode::Prompt => {
                let answer = self
                    .prompter
                    .request_permission(&call.tool_name, &call.input);
                steps.push(Step::Prompter(answer.clone()));
                match answer {
                    PermissionDecision::Allow => None,
                    PermissionDecision::Deny(reason) => {
                        let reason = reason.unwrap_or_else(|| "denied by user".to_owned());
                        Some((
                            RefusedBy::Prompter,
                            format!("permission denied: {reason}"),
                            "refused",
                        ))
                    }
                    PermissionDecision::Escalate => {
                        let message = format!(
                            "permission escalated: {} needs a human decision",
                            call.tool_name
                        );
                        Some((RefusedBy::Prompter, message, "escalated"))
                    }
                }
            }
        }
    }

    /// Take PIPE-2's steps in order; the first refusal ends the call.
    pub fn run(&self, call: &ToolCall) -> PipelineOutcome {
        let mut steps = Vec::new();
        if let Some(refusal) = self.permission(call, &mut steps) {
            return refused(call, steps, refusal);
        }
        let pre = self.hooks.run_pre(&call.tool_name, &call.input);
        let blocked =
            (pre.decision != Decision::Allow).then(|| pre.reason.clone().unwrap_or_default());
        steps.push(Step::PreHooks(pre));
        if let Some(reason) = blocked {
            return refused(
                call,
                steps,
                (
                    RefusedBy::PreHooks,
                    format!("blocked by hook: {reason}"),
                    "refused",
                ),
            );
        }
        for path in &call.paths {
            let check = self.sandbox.check(path);
            let allowed = check.allowed;
            steps.push(Step::Sandbox {
                path: path.clone(),
                check,
            });
            if !allowed {
                let message = format!("path not allowed: {}", path.display());
                return refused(call, steps, (RefusedBy::Sandbox, message, "refused"));
            }
        }
        let result = self
            .executor
            .execute(&call.tool_name, &call.input, self.session_id);
        steps.push(Step::Execute {
            is_error: result.is_error,
        });
        let post = self.hooks.run_post(&call.tool_name, &call.input, &result);
        steps.push(Step::PostHooks { ran: post.ran });
        PipelineOutcome {
            ran: true,
            steps,
            tool_result: result,
            audit: AuditRecord {
                tool_name: call.tool_name.clone(),
                origin: call.origin,
                outcome: "ran",
                refused_by: None,
                reason: None,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use hanzo_config::{merge_tiers, TierSource, Trust};
    use hanzo_sandbox::{IsolationMode, SandboxConfig};
    use serde_json::json;

    use super::*;

    struct AlwaysAllow;

    impl PermissionPrompter for AlwaysAllow {
        fn request_permission(&self, _tool_name: &str, _input: &Value) -> PermissionDecision {
            PermissionDecision::Allow
        }
    }

    struct Done;

    impl ToolExecutor for Done {
        fn execute(&self, _name: &str, _input: &Value, _session_id: &str) -> ToolResult {
            ToolResult {
                output: "done".to_owned(),
                error: None,
                is_error: false,
            }
        }
    }

    fn run_with_settings(settings: &str, tool_name: &str) -> PipelineOutcome {
        let sources = [
            TierSource::Bytes(settings.as_bytes().to_vec()),
            TierSource::Absent,
            TierSource::Absent,
        ];
        // The user tier: trust does not matter (CFG-25).
        let config = merge_tiers(sources, &BTreeMap::new(), Trust::Untrusted).config;
        let parts = ConfigParts::from_config(&config).expect("merged hooks are valid");
        let hooks = parts.hooks.env([("PATH", "/usr/bin:/bin")]);
        let sandbox =
            Sandbox::new(SandboxConfig::new(IsolationMode::Off), "/").expect("root is absolute");
        let pipeline = ToolCallPipeline {
            policy: &parts.policy,
            prompter: &AlwaysAllow,
            hooks: &hooks,
            sandbox: &sandbox,
            executor: &Done,
            session_id: "s",
        };
        pipeline.run(&ToolCall {
            tool_name: tool_name.to_owned(),
            input: json!({}),
            origin: Origin::Agent,
            paths: Vec::new(),
        })
    }

    #[test]
    fn a_config_hook_denies_a_tool_the_config_allows() {
        let settings = r#"{"permissions": {"fs.*": "allow"}, "hooks": [
            {"event": "pre_tool_use", "command": "printf nope >&2; exit 2", "tool_pattern": "fs.*"}]}"#;
        let outcome = run_with_settings(settings, "fs.write");
        assert!(!outcome.ran);
        assert_eq!(outcome.audit.refused_by, Some(RefusedBy::PreHooks));
        assert_eq!(
            outcome.tool_result.error.as_deref(),
            Some("blocked by hook: nope")
        );
    }

    #[test]
    fn config_deny_rules_come_before_allow_rules_whatever_the_key_order() {
        let outcome = run_with_settings(
            r#"{"permissions": {"*": "allow", "fs.*": "deny"}}"#,
            "fs.rm",
        );
        assert!(!outcome.ran);
        assert_eq!(
            outcome.tool_result.error.as_deref(),
            Some("permission denied: denied by permission policy")
        );
        assert!(
            run_with_settings(
                r#"{"permissions": {"*": "allow", "fs.*": "deny"}}"#,
                "net.get"
            )
            .ran
        );
    }
}
