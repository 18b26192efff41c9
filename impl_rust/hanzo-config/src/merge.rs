//! Merging parsed tiers into a [`HanzoConfig`] (CFG-6 .. CFG-19).

use crate::{
    ConfigWarning, Env, HanzoConfig, HookConfig, HookEvent, InputMode, LoadedConfig,
    McpServerConfig, PermissionMode, Tier, TierSource, Trust, WarningCode, DEFAULT_HOOK_TIMEOUT_MS,
    MAX_HOOK_TIMEOUT_MS,
};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// A JSON pointer (RFC 6901) built from unescaped segments.
fn pointer(segments: &[&str]) -> String {
    let mut out = String::new();
    for s in segments {
        out.push('/');
        out.push_str(&s.replace('~', "~0").replace('/', "~1"));
    }
    out
}

fn string_list(value: &Value) -> Option<Vec<String>> {
    value
        .as_array()?
        .iter()
        .map(|v| v.as_str().map(str::to_owned))
        .collect()
}

/// A hook timeout: an integral number in 1..=`MAX_HOOK_TIMEOUT_MS`, judged by value
/// (`5000.0` counts, as JS cannot tell it from `5000`) (CFG-24).
fn timeout_ms(value: &Value) -> Result<u32, WarningCode> {
    let n = value.as_f64().ok_or(WarningCode::InvalidType)?;
    if n.fract() != 0.0 || n < 1.0 || n > f64::from(MAX_HOOK_TIMEOUT_MS) {
        return Err(WarningCode::InvalidValue);
    }
    // In range and integral, so the conversion is exact.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    Ok(n as u32)
}

fn hook_event(value: &Value) -> Result<HookEvent, WarningCode> {
    match value.as_str() {
        None => Err(WarningCode::InvalidType),
        Some("pre_tool_use") => Ok(HookEvent::PreToolUse),
        Some("post_tool_use") => Ok(HookEvent::PostToolUse),
        Some(_) => Err(WarningCode::InvalidValue),
    }
}

fn non_empty_str(value: &Value) -> Result<&str, WarningCode> {
    match value.as_str() {
        None => Err(WarningCode::InvalidType),
        Some("") => Err(WarningCode::InvalidValue),
        Some(s) => Ok(s),
    }
}

fn string_map(value: &Value) -> Option<BTreeMap<String, String>> {
    value
        .as_object()?
        .iter()
        .map(|(k, v)| v.as_str().map(|s| (k.clone(), s.to_owned())))
        .collect()
}

struct Merger {
    config: HanzoConfig,
    warnings: Vec<ConfigWarning>,
    trust: Trust,
}

impl Merger {
    /// CFG-25: untrusted, the project and local tiers cannot make the agent run a process.
    fn runs_nothing_from(&self, tier: Tier) -> bool {
        self.trust == Trust::Untrusted && tier != Tier::User
    }

    fn warn(&mut self, code: WarningCode, tier: Tier, segments: &[&str]) {
        let key = if segments.is_empty() {
            None
        } else {
            Some(pointer(segments))
        };
        self.warnings.push(ConfigWarning { code, tier, key });
    }

    fn apply(&mut self, tier: Tier, doc: &Map<String, Value>) {
        for (key, value) in doc {
            let k = key.as_str();
            match k {
                "api_key" | "oauth_credentials" if tier != Tier::User => {
                    self.warn(WarningCode::SensitiveKeyIgnored, tier, &[k]);
                }
                "api_key" | "model" => match value.as_str() {
                    None => self.warn(WarningCode::InvalidType, tier, &[k]),
                    Some("") => self.warn(WarningCode::InvalidValue, tier, &[k]),
                    Some(s) if k == "api_key" => self.config.api_key = Some(s.to_owned()),
                    Some(s) => s.clone_into(&mut self.config.model),
                },
                "oauth_credentials" => match value.as_object() {
                    Some(obj) => self.config.oauth_credentials = Some(obj.clone()),
                    None => self.warn(WarningCode::InvalidType, tier, &[k]),
                },
                "custom_instructions" => match value.as_str() {
                    Some(s) => s.clone_into(&mut self.config.custom_instructions),
                    None => self.warn(WarningCode::InvalidType, tier, &[k]),
                },
                "permissions" => self.permissions(tier, value),
                "mcp_servers" => self.servers(tier, value),
                "hooks" => self.hooks(tier, value),
                "input_mode" => match value.as_str() {
                    None => self.warn(WarningCode::InvalidType, tier, &[k]),
                    Some("vim") => self.config.input_mode = InputMode::Vim,
                    Some("emacs") => self.config.input_mode = InputMode::Emacs,
                    Some("default") => self.config.input_mode = InputMode::Default,
                    Some(_) => self.warn(WarningCode::InvalidValue, tier, &[k]),
                },
                _ => self.warn(WarningCode::UnknownKey, tier, &[k]),
            }
        }
    }

    fn permissions(&mut self, tier: Tier, value: &Value) {
        let Some(map) = value.as_object() else {
            self.warn(WarningCode::InvalidType, tier, &["permissions"]);
            return;
        };
        for (pattern, mode) in map {
            let segs = ["permissions", pattern.as_str()];
            if pattern.is_empty() {
                self.warn(WarningCode::InvalidValue, tier, &segs);
                continue;
            }
            let mode = mode.as_str().and_then(|m| m.parse::<PermissionMode>().ok());
            if mode.is_none() {
                // Fail closed (CFG-15): a typo such as "Deny" must not let a broader allow apply.
                self.warn(WarningCode::InvalidModeDenied, tier, &segs);
            }
            self.config
                .permissions
                .insert(pattern.clone(), mode.unwrap_or(PermissionMode::Deny));
        }
    }

    fn hooks(&mut self, tier: Tier, value: &Value) {
        let Some(list) = value.as_array() else {
            self.warn(WarningCode::InvalidType, tier, &["hooks"]);
            return;
        };
        for (i, entry) in list.iter().enumerate() {
            let index = i.to_string();
            match entry.as_object() {
                None => self.warn(WarningCode::InvalidType, tier, &["hooks", &index]),
                Some(entry) => {
                    let Some(hook) = self.hook(tier, &index, entry) else {
                        continue;
                    };
                    // CFG-25: a cloned repository runs no command.
                    if self.runs_nothing_from(tier) {
                        self.warn(WarningCode::UntrustedIgnored, tier, &["hooks", &index]);
                    } else {
                        self.config.hooks.push(hook);
                    }
                }
            }
        }
    }

    fn hook(&mut self, tier: Tier, index: &str, entry: &Map<String, Value>) -> Option<HookConfig> {
        let mut event = None;
        let mut command = None;
        let mut tool_pattern = None;
        let mut timeout = DEFAULT_HOOK_TIMEOUT_MS;
        let mut ok = true;
        for (field, value) in entry {
            let checked = match field.as_str() {
                "event" => hook_event(value).map(|e| event = Some(e)),
                "command" => non_empty_str(value).map(|s| command = Some(s.to_owned())),
                "tool_pattern" => non_empty_str(value).map(|s| tool_pattern = Some(s.to_owned())),
                "timeout_ms" => timeout_ms(value).map(|t| timeout = t),
                _ => {
                    self.warn(WarningCode::UnknownKey, tier, &["hooks", index, field]);
                    Ok(())
                }
            };
            if let Err(code) = checked {
                ok = false;
                self.warn(code, tier, &["hooks", index, field]);
            }
        }
        for field in ["event", "command", "tool_pattern"] {
            if !entry.contains_key(field) {
                ok = false;
                self.warn(WarningCode::MissingKey, tier, &["hooks", index, field]);
            }
        }
        match (ok, event, command, tool_pattern) {
            (true, Some(event), Some(command), Some(tool_pattern)) => Some(HookConfig {
                event: event.as_str().to_owned(),
                command,
                tool_pattern,
                timeout_ms: u64::from(timeout),
            }),
            _ => None,
        }
    }

    fn servers(&mut self, tier: Tier, value: &Value) {
        let Some(map) = value.as_object() else {
            self.warn(WarningCode::InvalidType, tier, &["mcp_servers"]);
            return;
        };
        for (name, entry) in map {
            let Some(entry) = entry.as_object() else {
                self.warn(WarningCode::InvalidType, tier, &["mcp_servers", name]);
                continue;
            };
            if name.is_empty() {
                self.warn(WarningCode::InvalidValue, tier, &["mcp_servers", name]);
            } else if entry.get("disabled") == Some(&Value::Bool(true)) {
                self.config.mcp_servers.remove(name);
            } else if let Some(server) = self.server(tier, name, entry) {
                // CFG-25: nor starts a server process.
                if self.runs_nothing_from(tier) {
                    self.warn(WarningCode::UntrustedIgnored, tier, &["mcp_servers", name]);
                } else {
                    self.config.mcp_servers.insert(name.clone(), server);
                }
            }
        }
    }

    fn server(
        &mut self,
        tier: Tier,
        name: &str,
        entry: &Map<String, Value>,
    ) -> Option<McpServerConfig> {
        let mut server = McpServerConfig {
            command: Vec::new(),
            args: Vec::new(),
            env: BTreeMap::new(),
        };
        let mut ok = true;
        for (field, value) in entry {
            let bad = match field.as_str() {
                "command" => match string_list(value) {
                    None => Some(WarningCode::InvalidType),
                    Some(c) if c.is_empty() => Some(WarningCode::InvalidValue),
                    Some(c) => {
                        server.command = c;
                        None
                    }
                },
                "args" => string_list(value).map_or(Some(WarningCode::InvalidType), |a| {
                    server.args = a;
                    None
                }),
                "env" => string_map(value).map_or(Some(WarningCode::InvalidType), |e| {
                    server.env = e;
                    None
                }),
                "disabled" => (!value.is_boolean()).then_some(WarningCode::InvalidType),
                _ => {
                    self.warn(WarningCode::UnknownKey, tier, &["mcp_servers", name, field]);
                    None
                }
            };
            if let Some(code) = bad {
                ok = false;
                self.warn(code, tier, &["mcp_servers", name, field]);
            }
        }
        if !entry.contains_key("command") {
            ok = false;
            self.warn(
                WarningCode::MissingKey,
                tier,
                &["mcp_servers", name, "command"],
            );
        }
        ok.then_some(server)
    }
}

/// Merge already-read tier files, in tier order user, project, local, with the
/// environment (CFG-6 .. CFG-19). Warnings come back sorted (CFG-21). `trust`
/// decides whether the project and local tiers may define hooks and MCP servers (CFG-25).
pub fn merge_tiers<E: Env + ?Sized>(
    sources: [TierSource; 3],
    env: &E,
    trust: Trust,
) -> LoadedConfig {
    let mut m = Merger {
        config: HanzoConfig::default(),
        warnings: Vec::new(),
        trust,
    };
    for (tier, source) in Tier::ALL.into_iter().zip(sources) {
        let raw = match source {
            TierSource::Absent => continue,
            TierSource::Unreadable => {
                m.warn(WarningCode::UnreadableFile, tier, &[]);
                continue;
            }
            TierSource::Bytes(raw) => raw,
        };
        match crate::parse_tier_text(&raw) {
            Err(_) => m.warn(WarningCode::InvalidJson, tier, &[]),
            Ok(None) => {}
            Ok(Some(Value::Object(doc))) => m.apply(tier, &doc),
            Ok(Some(_)) => m.warn(WarningCode::NotAnObject, tier, &[]),
        }
    }
    if let Some(key) = env.var("HANZO_API_KEY").filter(|v| !v.is_empty()) {
        m.config.api_key = Some(key);
    }
    if let Some(model) = env.var("HANZO_MODEL").filter(|v| !v.is_empty()) {
        m.config.model = model;
    }
    m.warnings.sort_by(|a, b| {
        (a.tier, a.key.as_deref().unwrap_or(""), a.code.code()).cmp(&(
            b.tier,
            b.key.as_deref().unwrap_or(""),
            b.code.code(),
        ))
    });
    LoadedConfig {
        config: m.config,
        warnings: m.warnings,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn merge(user: &str, project: &str, local: &str) -> LoadedConfig {
        let src = |s: &str| {
            if s.is_empty() {
                TierSource::Absent
            } else {
                TierSource::Bytes(s.as_bytes().to_vec())
            }
        };
        merge_tiers(
            [src(user), src(project), src(local)],
            &BTreeMap::<String, String>::new(),
            Trust::Trusted,
        )
    }

    #[test]
    fn untrusted_drops_project_and_local_hooks_and_servers_only() {
        let hook = r#"{"event": "pre_tool_use", "command": "true", "tool_pattern": "*"}"#;
        let tier =
            format!(r#"{{"hooks": [{hook}], "mcp_servers": {{"s": {{"command": ["x"]}}}}}}"#);
        let src = || TierSource::Bytes(tier.as_bytes().to_vec());
        let out = merge_tiers(
            [src(), src(), src()],
            &BTreeMap::<String, String>::new(),
            Trust::default(),
        );
        assert_eq!(out.config.hooks.len(), 1, "the user tier's hook stays");
        assert!(out.config.mcp_servers.contains_key("s"));
        let dropped: Vec<_> = out
            .warnings
            .iter()
            .map(|w| (w.code.code(), w.tier, w.key.as_deref()))
            .collect();
        assert_eq!(
            dropped,
            vec![
                ("untrusted_ignored", Tier::Project, Some("/hooks/0")),
                ("untrusted_ignored", Tier::Project, Some("/mcp_servers/s")),
                ("untrusted_ignored", Tier::Local, Some("/hooks/0")),
                ("untrusted_ignored", Tier::Local, Some("/mcp_servers/s")),
            ]
        );
    }

    #[test]
    fn pointer_escapes_tilde_and_slash() {
        assert_eq!(pointer(&["mcp_servers", "a/b~c"]), "/mcp_servers/a~1b~0c");
        assert_eq!(pointer(&["permissions", ""]), "/permissions/");
    }

    #[test]
    fn later_tier_replaces_whole_server_and_disabled_removes() {
        let out = merge(
            r#"{"mcp_servers": {"a": {"command": ["x"], "env": {"K": "v"}}, "b": {"command": ["y"]}}}"#,
            r#"{"mcp_servers": {"a": {"command": ["z"]}}}"#,
            r#"{"mcp_servers": {"b": {"disabled": true, "command": 5}}}"#,
        );
        let a = out.config.mcp_servers.get("a");
        assert_eq!(a.map(|s| s.command.clone()), Some(vec!["z".to_owned()]));
        assert_eq!(a.map(|s| s.env.len()), Some(0));
        assert!(!out.config.mcp_servers.contains_key("b"));
        assert!(out.warnings.is_empty());
    }

    #[test]
    fn sensitive_keys_are_warned_without_values() {
        let out = merge("", r#"{"api_key": {"nested": "sk-secret"}}"#, "");
        assert_eq!(out.config.api_key, None);
        assert_eq!(out.warnings.len(), 1);
        let w = out.warnings.first();
        assert_eq!(w.map(|w| w.code.code()), Some("sensitive_key_ignored"));
        assert_eq!(w.and_then(|w| w.key.clone()), Some("/api_key".to_owned()));
    }

    #[test]
    fn warnings_sort_by_tier_then_code_point_key_then_code() {
        let out = merge(
            "",
            "{\"\u{ff41}\": 1, \"\u{1f600}\": 2, \"model\": 3}",
            "[]",
        );
        let keys: Vec<_> = out.warnings.iter().map(|w| w.key.clone()).collect();
        assert_eq!(
            keys,
            vec![
                Some("/model".to_owned()),
                Some("/\u{ff41}".to_owned()),
                Some("/\u{1f600}".to_owned()),
                None
            ]
        );
    }
}
