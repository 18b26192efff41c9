//! The permission policy a config builds (CFG-22).

use crate::HanzoConfig;
use hanzo_permissions::{Glob, PermissionMode, PermissionPolicy, PermissionRule};

fn rank(mode: PermissionMode) -> u8 {
    match mode {
        PermissionMode::Deny => 0,
        PermissionMode::Prompt => 1,
        PermissionMode::Allow => 2,
    }
}

/// The rules a policy built from `config` checks, in order (CFG-22): every
/// `deny`, then every `prompt`, then every `allow`; within one mode by pattern in
/// code-point order (a `str`'s byte order is its code-point order). Never the
/// files' key order, which JSON maps on other platforms iterate differently.
pub fn permission_rules(config: &HanzoConfig) -> Vec<PermissionRule> {
    let mut pairs: Vec<(&String, PermissionMode)> =
        config.permissions.iter().map(|(p, m)| (p, *m)).collect();
    pairs.sort_by(|a, b| (rank(a.1), a.0).cmp(&(rank(b.1), b.0)));
    pairs
        .into_iter()
        .map(|(pattern, mode)| PermissionRule {
            pattern: Glob::new(pattern),
            mode,
            reason: None,
        })
        .collect()
}

/// HIP-301 §7's `PermissionPolicy` built from `config.permissions` (CFG-22).
pub fn policy_from_config(config: &HanzoConfig) -> PermissionPolicy {
    PermissionPolicy::from_rules(permission_rules(config))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deny_beats_allow_whatever_the_key_order() {
        let mut config = HanzoConfig::default();
        for (pattern, mode) in [
            ("mcp__github__create_issue", PermissionMode::Allow),
            ("10", PermissionMode::Allow),
            ("mcp__*", PermissionMode::Deny),
            ("2", PermissionMode::Deny),
            ("\u{1f600}", PermissionMode::Prompt),
            ("\u{ff41}", PermissionMode::Prompt),
        ] {
            config.permissions.insert(pattern.to_owned(), mode);
        }
        let order: Vec<_> = permission_rules(&config)
            .iter()
            .map(|r| r.pattern.pattern().to_owned())
            .collect();
        assert_eq!(
            order,
            [
                "2",
                "mcp__*",
                "\u{ff41}",
                "\u{1f600}",
                "10",
                "mcp__github__create_issue"
            ]
        );
        let policy = policy_from_config(&config);
        assert_eq!(
            policy.evaluate("mcp__github__create_issue").mode,
            PermissionMode::Deny
        );
    }
}
