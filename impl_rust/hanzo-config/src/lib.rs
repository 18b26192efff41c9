//! Hierarchical configuration for Hanzo's agent runtime (HIP-301 §4).
//!
//! Three settings files are merged in order user < project < local, then the
//! `HANZO_API_KEY` and `HANZO_MODEL` environment variables override everything.
//! The contract is `docs/domains/config-merge.md` (clauses `CFG-*`).
//!
//! Loading never fails because of what a file contains: every problem becomes a
//! [`ConfigWarning`] (code, tier and a JSON pointer, never a value) and the
//! offending file, key or server entry is skipped.

use serde_json::{Map, Value};
use std::collections::{BTreeMap, HashMap};
use std::hash::BuildHasher;
use std::path::{Path, PathBuf};

mod merge;
mod parse;
mod policy;

/// One pre/post tool-use hook (HIP-301 §9, CFG-24): the hooks domain's own type, so
/// `HanzoConfig::hooks` feeds a `HookRunner` unchanged. The merge only admits entries
/// whose `event` is a [`HookEvent`] spelling and whose `timeout_ms` is in
/// 1..=[`MAX_HOOK_TIMEOUT_MS`] ([`DEFAULT_HOOK_TIMEOUT_MS`] unless set).
pub use hanzo_hooks::HookConfig;
pub use merge::merge_tiers;
pub use parse::{parse_tier_text, ParseError, MAX_DEPTH};
pub use policy::{permission_rules, policy_from_config};

/// `model` when no tier and no environment variable sets it (CFG-9).
pub const DEFAULT_MODEL: &str = "claude-sonnet-4-20250514";

/// `timeout_ms` of a hook that does not set it (HIP-301 §9).
pub const DEFAULT_HOOK_TIMEOUT_MS: u32 = 5000;

/// Largest accepted hook timeout: the largest delay a JS timer honours (CFG-24).
pub const MAX_HOOK_TIMEOUT_MS: u32 = 2_147_483_647;

/// When a hook runs (HIP-301 §9).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HookEvent {
    /// Before the tool runs; exit code 2 denies it.
    PreToolUse,
    /// After the tool ran; failures are logged, never block.
    PostToolUse,
}

impl HookEvent {
    /// The contract spelling: `pre_tool_use` or `post_tool_use`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::PreToolUse => "pre_tool_use",
            Self::PostToolUse => "post_tool_use",
        }
    }
}

/// The TUI's keybinding mode (HIP-301 §11, CFG-23).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum InputMode {
    /// Vim motions and operators.
    Vim,
    /// Emacs keybindings.
    Emacs,
    /// The platform's plain line editor.
    #[default]
    Default,
}

impl InputMode {
    /// The contract spelling: `vim`, `emacs` or `default`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Vim => "vim",
            Self::Emacs => "emacs",
            Self::Default => "default",
        }
    }
}

/// A configuration tier, ordered as merged: a later tier overrides an earlier one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Tier {
    /// `$XDG_CONFIG_HOME/hanzo/settings.json` or `~/.config/hanzo/settings.json`.
    User,
    /// `<project root>/.hanzo/settings.json`.
    Project,
    /// `<project root>/.hanzo/settings.local.json` (gitignored).
    Local,
}

impl Tier {
    /// All tiers in merge order.
    pub const ALL: [Tier; 3] = [Tier::User, Tier::Project, Tier::Local];

    /// The tier's name in warnings: `user`, `project` or `local`.
    pub fn as_str(self) -> &'static str {
        match self {
            Tier::User => "user",
            Tier::Project => "project",
            Tier::Local => "local",
        }
    }
}

/// The permission modes are the permission policy's own (HIP-301 §7): one type
/// from config file to policy.
pub use hanzo_permissions::PermissionMode;

/// How to start one MCP server (HIP-301 §1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpServerConfig {
    /// Program and leading arguments; never empty.
    pub command: Vec<String>,
    /// Further arguments.
    pub args: Vec<String>,
    /// Extra environment variables for the server process.
    pub env: BTreeMap<String, String>,
}

/// The merged configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct HanzoConfig {
    /// API key: user tier or `HANZO_API_KEY` only.
    pub api_key: Option<String>,
    /// Model name; [`DEFAULT_MODEL`] unless set.
    pub model: String,
    /// MCP servers by name.
    pub mcp_servers: BTreeMap<String, McpServerConfig>,
    /// Permission mode by tool pattern.
    pub permissions: BTreeMap<String, PermissionMode>,
    /// Extra instructions for the system prompt.
    pub custom_instructions: String,
    /// Opaque OAuth credentials object: user tier only.
    pub oauth_credentials: Option<Map<String, Value>>,
    /// Hooks of every tier, user's first (CFG-24).
    pub hooks: Vec<HookConfig>,
    /// Keybinding mode (CFG-23).
    pub input_mode: InputMode,
}

impl Default for HanzoConfig {
    fn default() -> Self {
        Self {
            api_key: None,
            model: DEFAULT_MODEL.to_owned(),
            mcp_servers: BTreeMap::new(),
            permissions: BTreeMap::new(),
            custom_instructions: String::new(),
            oauth_credentials: None,
            hooks: Vec::new(),
            input_mode: InputMode::Default,
        }
    }
}

/// Why something in a tier was ignored (CFG-20).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WarningCode {
    /// The file exists but cannot be read.
    UnreadableFile,
    /// The file is not a JSON text this contract accepts.
    InvalidJson,
    /// The file's top-level value is not an object.
    NotAnObject,
    /// A key the contract does not know.
    UnknownKey,
    /// A known key with a value of the wrong JSON type.
    InvalidType,
    /// A known key with a value of the right type but not allowed.
    InvalidValue,
    /// An MCP server entry without `command`.
    MissingKey,
    /// `api_key` or `oauth_credentials` outside the user tier.
    SensitiveKeyIgnored,
    /// A permission whose mode is not `allow`, `deny` or `prompt`: it became `deny`.
    InvalidModeDenied,
    /// A project or local hook or MCP server, dropped because the project is not trusted (CFG-25).
    UntrustedIgnored,
}

impl WarningCode {
    /// The stable code compared across platforms.
    pub fn code(self) -> &'static str {
        match self {
            WarningCode::UnreadableFile => "unreadable_file",
            WarningCode::InvalidJson => "invalid_json",
            WarningCode::NotAnObject => "not_an_object",
            WarningCode::UnknownKey => "unknown_key",
            WarningCode::InvalidType => "invalid_type",
            WarningCode::InvalidValue => "invalid_value",
            WarningCode::MissingKey => "missing_key",
            WarningCode::SensitiveKeyIgnored => "sensitive_key_ignored",
            WarningCode::InvalidModeDenied => "invalid_mode_denied",
            WarningCode::UntrustedIgnored => "untrusted_ignored",
        }
    }
}

/// Something in a tier was ignored. Holds no value from the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigWarning {
    /// What went wrong.
    pub code: WarningCode,
    /// Which file.
    pub tier: Tier,
    /// JSON pointer (RFC 6901) to the ignored member; `None` for the whole file.
    pub key: Option<String>,
}

/// The merged configuration and the sorted warnings produced while loading it.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedConfig {
    /// The merged configuration.
    pub config: HanzoConfig,
    /// Sorted by tier, then key (code point order), then code (CFG-21).
    pub warnings: Vec<ConfigWarning>,
}

/// Whether the user trusts the project whose settings are loaded (CFG-25).
///
/// Untrusted (the default), the project and local tiers cannot define `hooks` or
/// `mcp_servers` entries, which would run commands from a cloned repository: each is
/// dropped with [`WarningCode::UntrustedIgnored`]. Trusted, they are honoured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Trust {
    /// The default: project and local hooks and MCP servers are dropped.
    #[default]
    Untrusted,
    /// The user trusts this project: every tier is honoured.
    Trusted,
}

/// One tier's file as found on disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TierSource {
    /// No file (or no path for this tier).
    Absent,
    /// The path exists but reading it failed.
    Unreadable,
    /// The file's bytes.
    Bytes(Vec<u8>),
}

/// Where environment variables come from; lets callers avoid the process env.
pub trait Env {
    /// The variable's value, or `None` when unset (or not Unicode).
    fn var(&self, name: &str) -> Option<String>;
}

/// The real process environment.
#[derive(Debug, Clone, Copy, Default)]
pub struct ProcessEnv;

impl Env for ProcessEnv {
    fn var(&self, name: &str) -> Option<String> {
        std::env::var(name).ok()
    }
}

impl<S: BuildHasher> Env for HashMap<String, String, S> {
    fn var(&self, name: &str) -> Option<String> {
        self.get(name).cloned()
    }
}

impl Env for BTreeMap<String, String> {
    fn var(&self, name: &str) -> Option<String> {
        self.get(name).cloned()
    }
}

/// The file each tier is read from, in tier order (CFG-1, CFG-2); `None` = not read.
pub fn tier_paths<E: Env + ?Sized>(project_root: Option<&Path>, env: &E) -> [Option<PathBuf>; 3] {
    let xdg = env
        .var("XDG_CONFIG_HOME")
        .filter(|x| Path::new(x).is_absolute());
    let user = match xdg {
        Some(x) => Some(PathBuf::from(x).join("hanzo").join("settings.json")),
        None => env.var("HOME").filter(|h| !h.is_empty()).map(|h| {
            PathBuf::from(h)
                .join(".config")
                .join("hanzo")
                .join("settings.json")
        }),
    };
    let dir = project_root.map(|r| r.join(".hanzo"));
    [
        user,
        dir.as_ref().map(|d| d.join("settings.json")),
        dir.as_ref().map(|d| d.join("settings.local.json")),
    ]
}

fn read(path: Option<PathBuf>) -> TierSource {
    let Some(path) = path else {
        return TierSource::Absent;
    };
    match std::fs::read(path) {
        Ok(bytes) => TierSource::Bytes(bytes),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => TierSource::Absent,
        Err(_) => TierSource::Unreadable,
    }
}

/// Load and merge the settings tiers and the environment (HIP-301 §4).
///
/// `env` is consulted for `HOME`, `XDG_CONFIG_HOME`, `HANZO_API_KEY` and
/// `HANZO_MODEL`; pass [`ProcessEnv`] for the real environment. With no
/// `project_root`, only the user tier is read. `trust` (CFG-25): pass
/// [`Trust::Untrusted`] (the default) unless the user trusts this project.
pub fn load_config<E: Env + ?Sized>(
    project_root: Option<&Path>,
    env: &E,
    trust: Trust,
) -> LoadedConfig {
    let sources = tier_paths(project_root, env).map(read);
    merge_tiers(sources, env, trust)
}

#[cfg(test)]
mod tests {
    use super::*;

    // The JSON layer passes a BTreeMap; these are the other two environments a caller has.
    #[test]
    fn every_env_reads_its_variables() {
        let map: HashMap<String, String> = [("A".to_owned(), "1".to_owned())].into();
        assert_eq!(map.var("A").as_deref(), Some("1"));
        assert_eq!(map.var("B"), None);
        let path = std::env::var("PATH").ok();
        assert!(
            path.as_deref().is_some_and(|p| !p.is_empty()),
            "PATH is set for cargo test"
        );
        assert_eq!(ProcessEnv.var("PATH"), path);
    }
}
