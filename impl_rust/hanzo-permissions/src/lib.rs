//! Tool permission rules (HIP-301 §7): the first rule whose glob matches the
//! whole tool name decides `allow`, `deny` or `prompt`; no match is `prompt`.
//!
//! The contract is `docs/domains/permission-policy.md`. Modes are checked when the
//! policy is built (PERM-2), so [`PermissionPolicy::evaluate`] never fails.
//!
//! ```
//! use hanzo_permissions::{PermissionMode, PermissionPolicy, RuleSpec};
//!
//! let policy = PermissionPolicy::new([
//!     RuleSpec::new("fs.write", "deny", Some("read-only workspace")),
//!     RuleSpec::new("mcp__*", "allow", None),
//! ])
//! .unwrap();
//! let decision = policy.evaluate("fs.write");
//! assert_eq!(decision.mode, PermissionMode::Deny);
//! assert_eq!(decision.audit.reason.as_deref(), Some("read-only workspace"));
//! assert_eq!(policy.evaluate("shell.exec").mode, PermissionMode::Prompt);
//! ```

mod glob;

use std::fmt;
use std::str::FromStr;

pub use glob::{glob_match, Glob};

/// What the agent loop does with a tool call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PermissionMode {
    /// Execute without prompting.
    Allow,
    /// Block execution, return the denial reason.
    Deny,
    /// Ask the `PermissionPrompter` before execution.
    Prompt,
}

impl PermissionMode {
    /// The contract spelling: `allow`, `deny` or `prompt`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Allow => "allow",
            Self::Deny => "deny",
            Self::Prompt => "prompt",
        }
    }
}

impl fmt::Display for PermissionMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for PermissionMode {
    type Err = PolicyError;

    /// Exactly `allow`, `deny` or `prompt`, case-sensitive (PERM-2).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "allow" => Ok(Self::Allow),
            "deny" => Ok(Self::Deny),
            "prompt" => Ok(Self::Prompt),
            _ => Err(PolicyError::InvalidMode {
                index: None,
                mode: s.to_owned(),
            }),
        }
    }
}

/// The permission-policy contract errors.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PolicyError {
    /// A mode other than `allow`, `deny`, `prompt` (PERM-2); code `invalid_mode`.
    InvalidMode {
        /// The index of the offending rule, when known.
        index: Option<usize>,
        /// The mode as given.
        mode: String,
    },
}

impl PolicyError {
    /// The contract's stable error code.
    pub fn code(&self) -> &'static str {
        match self {
            Self::InvalidMode { .. } => "invalid_mode",
        }
    }
}

impl fmt::Display for PolicyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::InvalidMode {
                index: Some(index),
                mode,
            } => write!(f, "rule {index}: invalid permission mode {mode:?}"),
            Self::InvalidMode { index: None, mode } => {
                write!(f, "invalid permission mode {mode:?}")
            }
        }
    }
}

impl std::error::Error for PolicyError {}

/// A rule as configured, mode still a string: [`PermissionPolicy::new`] checks it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleSpec {
    /// A glob of the PERM-11..PERM-19 dialect.
    pub tool_pattern: String,
    /// `allow`, `deny` or `prompt`.
    pub mode: String,
    /// Why; for a denial it is the denial reason (PERM-6).
    pub reason: Option<String>,
}

impl RuleSpec {
    /// Convenience constructor.
    pub fn new(tool_pattern: &str, mode: &str, reason: Option<&str>) -> Self {
        Self {
            tool_pattern: tool_pattern.to_owned(),
            mode: mode.to_owned(),
            reason: reason.map(str::to_owned),
        }
    }
}

/// A checked rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PermissionRule {
    /// The compiled pattern.
    pub pattern: Glob,
    /// The mode.
    pub mode: PermissionMode,
    /// The reason as given.
    pub reason: Option<String>,
}

/// HIP-301's audit record minus `timestamp` and `session_id` (PERM-6).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditRecord {
    /// The evaluated name.
    pub tool_name: String,
    /// The decision's mode.
    pub mode: PermissionMode,
    /// Index of the matched rule, `None` when none matched.
    pub rule_matched: Option<usize>,
    /// The denial reason for `Deny` (never `None` then, PERM-6b); `None` otherwise.
    pub reason: Option<String>,
}

/// The outcome of one evaluation (PERM-4..PERM-6).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    /// The mode of the first matching rule, or `Prompt`.
    pub mode: PermissionMode,
    /// Index of the first matching rule, `None` when none matched.
    pub rule_index: Option<usize>,
    /// The matched rule's reason as given, whatever its mode.
    pub reason: Option<String>,
    /// The audit record of this evaluation.
    pub audit: AuditRecord,
}

/// An ordered list of checked rules (HIP-301 §7).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PermissionPolicy {
    rules: Vec<PermissionRule>,
}

impl PermissionPolicy {
    /// Check and compile `rules`, in order.
    ///
    /// # Errors
    /// [`PolicyError::InvalidMode`] if *any* rule's mode is not `allow`, `deny` or
    /// `prompt`, even one no name could reach (PERM-2).
    pub fn new(rules: impl IntoIterator<Item = RuleSpec>) -> Result<Self, PolicyError> {
        let rules = rules
            .into_iter()
            .enumerate()
            .map(|(index, spec)| {
                let mode =
                    spec.mode
                        .parse::<PermissionMode>()
                        .map_err(|_| PolicyError::InvalidMode {
                            index: Some(index),
                            mode: spec.mode.clone(),
                        })?;
                Ok(PermissionRule {
                    pattern: Glob::new(&spec.tool_pattern),
                    mode,
                    reason: spec.reason,
                })
            })
            .collect::<Result<Vec<_>, PolicyError>>()?;
        Ok(Self { rules })
    }

    /// A policy of rules whose modes are already checked, in order (so it cannot fail);
    /// e.g. the rules `hanzo_config::policy_from_config` builds from a config.
    pub fn from_rules(rules: impl IntoIterator<Item = PermissionRule>) -> Self {
        Self {
            rules: rules.into_iter().collect(),
        }
    }

    /// The checked rules, in order.
    pub fn rules(&self) -> &[PermissionRule] {
        &self.rules
    }

    /// Decide `tool_name`: the first matching rule wins; no match is `Prompt` (PERM-4, PERM-5).
    pub fn evaluate(&self, tool_name: &str) -> Decision {
        let matched = self
            .rules
            .iter()
            .enumerate()
            .find(|(_, rule)| rule.pattern.matches(tool_name));
        let Some((index, rule)) = matched else {
            return Decision {
                mode: PermissionMode::Prompt,
                rule_index: None,
                reason: None,
                audit: AuditRecord {
                    tool_name: tool_name.to_owned(),
                    mode: PermissionMode::Prompt,
                    rule_matched: None,
                    reason: None,
                },
            };
        };
        let audit_reason = (rule.mode == PermissionMode::Deny).then(|| {
            rule.reason
                .clone()
                .unwrap_or_else(|| format!("denied by permission rule {index}"))
        });
        Decision {
            mode: rule.mode,
            rule_index: Some(index),
            reason: rule.reason.clone(),
            audit: AuditRecord {
                tool_name: tool_name.to_owned(),
                mode: rule.mode,
                rule_matched: Some(index),
                reason: audit_reason,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_mode_even_when_unreachable() {
        let err = PermissionPolicy::new([
            RuleSpec::new("*", "allow", None),
            RuleSpec::new("x", "Deny", None),
        ])
        .unwrap_err();
        assert_eq!(err.code(), "invalid_mode");
        assert_eq!(
            err,
            PolicyError::InvalidMode {
                index: Some(1),
                mode: "Deny".to_owned()
            }
        );
    }

    #[test]
    fn first_match_and_audit() {
        let policy = PermissionPolicy::new([
            RuleSpec::new("fs.read", "allow", Some("safe")),
            RuleSpec::new("fs.*", "deny", None),
        ])
        .unwrap();
        let read = policy.evaluate("fs.read");
        assert_eq!(
            (read.mode, read.rule_index),
            (PermissionMode::Allow, Some(0))
        );
        assert_eq!(
            (read.reason.as_deref(), read.audit.reason),
            (Some("safe"), None)
        );
        let write = policy.evaluate("fs.write");
        assert_eq!(write.rule_index, Some(1));
        assert_eq!(
            write.audit.reason.as_deref(),
            Some("denied by permission rule 1")
        );
        let none = policy.evaluate("shell");
        assert_eq!(
            (none.mode, none.audit.rule_matched),
            (PermissionMode::Prompt, None)
        );
    }
}
