//! Pre/post tool-use hooks run as real processes, as HIP-301 §9 specifies them.
//!
//! The contract is `docs/domains/hooks.md`. Each matching hook is
//! `/bin/sh -c command` in a new process group, with `HANZO_TOOL_NAME`,
//! `HANZO_TOOL_INPUT` (canonical JSON, HOOK-6), `HANZO_SESSION_ID` and, for
//! post-hooks, `HANZO_TOOL_OUTPUT`. Exit 0 allows, 2 denies (reason from
//! stderr), anything else is an error; a timeout kills the whole group, and so
//! does the end of the hook (nothing outlives it).
//!
//! ```
//! use hanzo_hooks::{Decision, HookConfig, HookRunner};
//! let runner = HookRunner::new(vec![HookConfig::new("pre_tool_use", "exit 2", "fs.*")])?;
//! let result = runner.run_pre("fs.write", &serde_json::json!({"path": "/etc/passwd"}));
//! assert_eq!(result.decision, Decision::Deny);
//! # Ok::<(), hanzo_hooks::HookError>(())
//! ```

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use hanzo_permissions::Glob;
use serde_json::{json, Value};

mod canonical;
mod process;
mod spawn;

pub use canonical::{canonical_json, ecmascript_number};
use process::{reason_text, Ending};
pub use process::{MAX_ENV_ENTRY_BYTES, REASON_LIMIT_BYTES};

/// HOOK-1: the default timeout.
pub const DEFAULT_TIMEOUT_MS: u64 = 5000;
/// HOOK-1: the largest timeout every platform's timer supports.
pub const MAX_TIMEOUT_MS: u64 = 2_147_483_647;
/// HOOK-11: the reason of a deny whose stderr is empty.
pub const DEFAULT_DENY_REASON: &str = "blocked by pre_tool_use hook";

/// A contract error of this crate (construction only).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum HookError {
    /// HOOK-1: the event is not `pre_tool_use` or `post_tool_use`.
    InvalidEvent(String),
    /// HOOK-1: the timeout is not an integer in 1..=2^31-1.
    InvalidTimeout(String),
}

impl HookError {
    /// The contract's stable error code.
    pub fn code(&self) -> &'static str {
        match self {
            Self::InvalidEvent(_) => "invalid_event",
            Self::InvalidTimeout(_) => "invalid_timeout",
        }
    }
}

impl fmt::Display for HookError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::InvalidEvent(event) => write!(f, "invalid hook event {event:?}"),
            Self::InvalidTimeout(timeout) => write!(f, "invalid hook timeout {timeout}"),
        }
    }
}

impl std::error::Error for HookError {}

/// HIP-301's `HookConfig` (the same shape as `HanzoConfig.hooks`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookConfig {
    /// `pre_tool_use` or `post_tool_use`.
    pub event: String,
    /// A shell command.
    pub command: String,
    /// A permission-policy glob over tool names.
    pub tool_pattern: String,
    /// Milliseconds before the hook's process group is killed.
    pub timeout_ms: u64,
}

impl HookConfig {
    /// A hook with the default timeout.
    pub fn new(event: &str, command: &str, tool_pattern: &str) -> Self {
        Self {
            event: event.to_owned(),
            command: command.to_owned(),
            tool_pattern: tool_pattern.to_owned(),
            timeout_ms: DEFAULT_TIMEOUT_MS,
        }
    }
}

/// HIP-301 §2's `ToolResult`, as passed to post-hooks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolResult {
    /// The tool's output.
    pub output: String,
    /// The error message, if any.
    pub error: Option<String>,
    /// Whether the call failed.
    pub is_error: bool,
}

/// The outcome of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Decision {
    /// The tool may run.
    Allow,
    /// A hook exited 2.
    Deny,
    /// A hook failed (deny + log).
    Error,
}

impl Decision {
    /// The contract's spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Allow => "allow",
            Self::Deny => "deny",
            Self::Error => "error",
        }
    }
}

/// HOOK-13: one log record per hook considered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookLogRecord {
    /// `hook_allow`, `hook_deny`, `hook_exit_error`, `hook_signal`, `hook_timeout`, `hook_env_unpassable`.
    pub code: &'static str,
    /// The hook's index in the configuration.
    pub hook: usize,
    /// The exit code, when the process exited.
    pub exit_code: Option<i32>,
    /// The signal, when it died by one the runner did not send.
    pub signal: Option<i32>,
}

/// What `run_pre` / `run_post` return.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookResult {
    /// The decision (always `Allow` for post-hooks).
    pub decision: Decision,
    /// The deny or error reason.
    pub reason: Option<String>,
    /// Indices of the hooks considered, in order.
    pub ran: Vec<usize>,
    /// One record per hook considered.
    pub log: Vec<HookLogRecord>,
}

/// Runs the hooks matching a tool call.
#[derive(Debug, Clone)]
pub struct HookRunner {
    hooks: Vec<(HookConfig, Glob)>,
    session_id: String,
    cwd: Option<PathBuf>,
    env: BTreeMap<OsString, OsString>,
}

const PRE: &str = "pre_tool_use";
const POST: &str = "post_tool_use";

impl HookRunner {
    /// Validates every hook (HOOK-1); the environment defaults to this process's.
    ///
    /// # Errors
    /// `InvalidEvent` or `InvalidTimeout`.
    pub fn new(hooks: Vec<HookConfig>) -> Result<Self, HookError> {
        let hooks = hooks
            .into_iter()
            .map(|hook| {
                if hook.event != PRE && hook.event != POST {
                    return Err(HookError::InvalidEvent(hook.event));
                }
                if !(1..=MAX_TIMEOUT_MS).contains(&hook.timeout_ms) {
                    return Err(HookError::InvalidTimeout(hook.timeout_ms.to_string()));
                }
                let glob = Glob::new(&hook.tool_pattern);
                Ok((hook, glob))
            })
            .collect::<Result<_, _>>()?;
        Ok(Self {
            hooks,
            session_id: String::new(),
            cwd: None,
            env: std::env::vars_os().collect(),
        })
    }

    /// `HANZO_SESSION_ID`.
    #[must_use]
    pub fn session_id(mut self, session_id: impl Into<String>) -> Self {
        self.session_id = session_id.into();
        self
    }

    /// The hooks' working directory (the agent passes the workspace).
    #[must_use]
    pub fn cwd(mut self, cwd: impl Into<PathBuf>) -> Self {
        self.cwd = Some(cwd.into());
        self
    }

    /// The rest of the hooks' environment, instead of this process's (HOOK-5).
    #[must_use]
    pub fn env<K: Into<OsString>, V: Into<OsString>>(
        mut self,
        env: impl IntoIterator<Item = (K, V)>,
    ) -> Self {
        self.env = env.into_iter().map(|(k, v)| (k.into(), v.into())).collect();
        self
    }

    fn environment(
        &self,
        tool_name: &str,
        input: &Value,
        result: Option<&ToolResult>,
    ) -> BTreeMap<OsString, OsString> {
        let mut env = self.env.clone();
        env.remove(&OsString::from("HANZO_TOOL_OUTPUT"));
        env.insert("HANZO_TOOL_NAME".into(), tool_name.into());
        env.insert("HANZO_TOOL_INPUT".into(), canonical_json(input).into());
        env.insert("HANZO_SESSION_ID".into(), self.session_id.clone().into());
        if let Some(result) = result {
            let output = json!({"output": result.output, "error": result.error, "is_error": result.is_error});
            env.insert("HANZO_TOOL_OUTPUT".into(), canonical_json(&output).into());
        }
        env
    }

    fn matching<'a>(
        &'a self,
        event: &'a str,
        tool_name: &'a str,
    ) -> impl Iterator<Item = (usize, &'a HookConfig)> + 'a {
        self.hooks
            .iter()
            .enumerate()
            .filter(move |(_, (hook, glob))| hook.event == event && glob.matches(tool_name))
            .map(|(index, (hook, _))| (index, hook))
    }

    fn run_one(
        &self,
        index: usize,
        hook: &HookConfig,
        env: &BTreeMap<OsString, OsString>,
    ) -> (HookLogRecord, Decision, Option<String>) {
        let record = |code, exit_code, signal| HookLogRecord {
            code,
            hook: index,
            exit_code,
            signal,
        };
        let timeout = Duration::from_millis(hook.timeout_ms);
        match process::run(&hook.command, env, self.cwd.as_deref(), timeout) {
            Ending::Unpassable(name) => (
                record("hook_env_unpassable", None, None),
                Decision::Error,
                Some(format!("hook environment variable {name} cannot be passed")),
            ),
            Ending::TimedOut => (
                record("hook_timeout", None, None),
                Decision::Error,
                Some(format!("hook timed out after {} ms", hook.timeout_ms)),
            ),
            Ending::Signaled(signal) => (
                record("hook_signal", None, Some(signal)),
                Decision::Error,
                Some(format!("hook killed by signal {signal}")),
            ),
            Ending::Exited(0, _) => (record("hook_allow", Some(0), None), Decision::Allow, None),
            Ending::Exited(2, stderr) => {
                let reason = reason_text(&stderr);
                let reason = if reason.is_empty() {
                    DEFAULT_DENY_REASON.to_owned()
                } else {
                    reason
                };
                (
                    record("hook_deny", Some(2), None),
                    Decision::Deny,
                    Some(reason),
                )
            }
            Ending::Exited(code, _) => (
                record("hook_exit_error", Some(code), None),
                Decision::Error,
                Some(format!("hook exited with code {code}")),
            ),
            Ending::SpawnFailed => (
                record("hook_exit_error", Some(127), None),
                Decision::Error,
                Some("hook exited with code 127".to_owned()),
            ),
        }
    }

    /// Runs matching pre-hooks in order; the first deny or error decides (HOOK-3).
    pub fn run_pre(&self, tool_name: &str, input: &Value) -> HookResult {
        let env = self.environment(tool_name, input, None);
        let mut result = HookResult {
            decision: Decision::Allow,
            reason: None,
            ran: Vec::new(),
            log: Vec::new(),
        };
        for (index, hook) in self.matching(PRE, tool_name) {
            result.ran.push(index);
            let (record, decision, reason) = self.run_one(index, hook, &env);
            result.log.push(record);
            if decision != Decision::Allow {
                result.decision = decision;
                result.reason = reason;
                break;
            }
        }
        result
    }

    /// Runs every matching post-hook; failures are logged, never block (HOOK-12).
    pub fn run_post(&self, tool_name: &str, input: &Value, tool_result: &ToolResult) -> HookResult {
        let env = self.environment(tool_name, input, Some(tool_result));
        let mut result = HookResult {
            decision: Decision::Allow,
            reason: None,
            ran: Vec::new(),
            log: Vec::new(),
        };
        for (index, hook) in self.matching(POST, tool_name) {
            result.ran.push(index);
            result.log.push(self.run_one(index, hook, &env).0);
        }
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runner(command: &str, timeout_ms: u64) -> HookRunner {
        let mut hook = HookConfig::new(PRE, command, "fs.*");
        hook.timeout_ms = timeout_ms;
        HookRunner::new(vec![hook])
            .expect("valid hook")
            .env([("PATH", "/usr/bin:/bin")])
    }

    #[test]
    fn timed_out_hook_with_a_background_child_is_an_error() {
        let result = runner("sleep 5 & sleep 5", 100).run_pre("fs.write", &json!({}));
        assert_eq!(result.decision, Decision::Error);
        assert_eq!(
            result.reason.as_deref(),
            Some("hook timed out after 100 ms")
        );
        assert_eq!(result.log[0].code, "hook_timeout");
    }

    #[test]
    fn deny_reason_is_stderr_and_non_matching_tools_run_nothing() {
        let runner = runner("printf 'no\\n' >&2; exit 2", 5000);
        let denied = runner.run_pre("fs.write", &json!({}));
        assert_eq!(
            (denied.decision, denied.reason.as_deref()),
            (Decision::Deny, Some("no"))
        );
        let other = runner.run_pre("net.get", &json!({}));
        assert_eq!((other.decision, other.ran.len()), (Decision::Allow, 0));
    }

    #[test]
    fn invalid_configuration_is_refused() {
        let bad_event = HookConfig::new("PreToolUse", "true", "*");
        assert_eq!(
            HookRunner::new(vec![bad_event]).unwrap_err().code(),
            "invalid_event"
        );
        let mut zero = HookConfig::new(PRE, "true", "*");
        zero.timeout_ms = 0;
        assert_eq!(
            HookRunner::new(vec![zero]).unwrap_err().code(),
            "invalid_timeout"
        );
    }
}
