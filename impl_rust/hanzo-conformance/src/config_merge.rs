//! `config-merge`: lay the case's files out in a fresh temporary directory, call
//! [`hanzo_config::load_config`] with an explicit environment, remove the directory.

use crate::{schema_invalid, CaseError};
use hanzo_config::{
    load_config, permission_rules, policy_from_config, HanzoConfig, LoadedConfig, Trust,
};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// Laying out the case's files failed: not the library's doing, so a crash.
fn io_failure(e: &std::io::Error) -> ! {
    panic!("cannot lay out case files: {e}")
}

/// A temporary directory removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> Self {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        for _ in 0..100 {
            let n = COUNTER.fetch_add(1, Ordering::Relaxed);
            let path =
                std::env::temp_dir().join(format!("hanzo-cfg-{}-{nanos}-{n}", std::process::id()));
            match std::fs::create_dir(&path) {
                Ok(()) => return Self(path),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
                Err(e) => io_failure(&e),
            }
        }
        panic!("cannot create a temporary directory")
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn place(path: &Path, spec: Option<&Value>) {
    let write = |f: &dyn Fn() -> std::io::Result<()>| {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).unwrap_or_else(|e| io_failure(&e));
        }
        f().unwrap_or_else(|e| io_failure(&e));
    };
    match spec {
        None | Some(Value::Null) => {}
        Some(Value::String(text)) => write(&|| std::fs::write(path, text.as_bytes())),
        Some(Value::Object(o)) if o.get("directory") == Some(&Value::Bool(true)) => {
            write(&|| std::fs::create_dir(path));
        }
        Some(Value::Object(o)) if o.get("bytes").is_some_and(Value::is_string) => {
            let bytes = latin1_bytes(o["bytes"].as_str().unwrap_or_default());
            write(&|| std::fs::write(path, &bytes));
        }
        Some(_) => schema_invalid("file spec must be a string, null, {directory: true} or {bytes}"),
    }
}

/// One byte per code point U+0000..U+00FF (the schema's pattern for `{bytes}` files).
fn latin1_bytes(text: &str) -> Vec<u8> {
    text.chars()
        .map(|c| {
            u8::try_from(c)
                .unwrap_or_else(|_| schema_invalid("a bytes file holds a code point above U+00FF"))
        })
        .collect()
}

fn config_json(c: &HanzoConfig) -> Value {
    let servers: Map<String, Value> = c
        .mcp_servers
        .iter()
        .map(|(name, s)| {
            (
                name.clone(),
                json!({"command": s.command, "args": s.args, "env": s.env}),
            )
        })
        .collect();
    let permissions: Map<String, Value> = c
        .permissions
        .iter()
        .map(|(k, m)| (k.clone(), Value::from(m.as_str())))
        .collect();
    let hooks: Vec<Value> = c
        .hooks
        .iter()
        .map(|h| {
            json!({
                "event": h.event,
                "command": h.command,
                "tool_pattern": h.tool_pattern,
                "timeout_ms": h.timeout_ms,
            })
        })
        .collect();
    json!({
        "api_key": c.api_key,
        "model": c.model,
        "mcp_servers": servers,
        "permissions": permissions,
        "custom_instructions": c.custom_instructions,
        "oauth_credentials": c.oauth_credentials,
        "hooks": hooks,
        "input_mode": c.input_mode.as_str(),
    })
}

fn output_json(loaded: &LoadedConfig, evaluate: Option<&[Value]>) -> Value {
    let warnings: Vec<Value> = loaded
        .warnings
        .iter()
        .map(|w| {
            let mut o = Map::new();
            o.insert("code".into(), w.code.code().into());
            o.insert("tier".into(), w.tier.as_str().into());
            if let Some(k) = &w.key {
                o.insert("key".into(), k.as_str().into());
            }
            Value::Object(o)
        })
        .collect();
    let policy: Vec<Value> = permission_rules(&loaded.config)
        .iter()
        .map(|r| json!({"tool_pattern": r.pattern.pattern(), "mode": r.mode.as_str()}))
        .collect();
    let mut out = json!({
        "config": config_json(&loaded.config),
        "policy": policy,
        "warnings": warnings,
    });
    if let Some(names) = evaluate {
        let policy = policy_from_config(&loaded.config);
        let evaluations = names
            .iter()
            .map(|n| {
                let name = n
                    .as_str()
                    .unwrap_or_else(|| schema_invalid("evaluate must be a list of strings"));
                json!({"tool_name": name, "mode": policy.evaluate(name).mode.as_str()})
            })
            .collect();
        out["evaluations"] = Value::Array(evaluations);
    }
    out
}

/// Run one `config-merge` case.
#[allow(clippy::unnecessary_wraps)] // the signature every domain's `run` has
pub fn run(input: &Value) -> Result<Value, CaseError> {
    let files = input
        .get("files")
        .and_then(Value::as_object)
        .unwrap_or_else(|| schema_invalid("files must be an object"));
    let xdg_mode = input
        .get("xdg_config_home")
        .map_or(Some("absent"), Value::as_str)
        .unwrap_or_else(|| schema_invalid("xdg_config_home must be a string"));
    let mut env = BTreeMap::new();
    if let Some(vars) = input.get("env") {
        let vars = vars
            .as_object()
            .unwrap_or_else(|| schema_invalid("env must be an object"));
        for (k, v) in vars {
            let v = v
                .as_str()
                .unwrap_or_else(|| schema_invalid("env values must be strings"));
            env.insert(k.clone(), v.to_owned());
        }
    }
    let tmp = TempDir::new();
    let (home, xdg, root) = (tmp.0.join("home"), tmp.0.join("xdg"), tmp.0.join("project"));
    for d in [&home, &xdg, &root] {
        std::fs::create_dir(d).unwrap_or_else(|e| io_failure(&e));
    }
    let home_file = home.join(".config").join("hanzo").join("settings.json");
    match input
        .get("home_env")
        .and_then(Value::as_str)
        .unwrap_or("set")
    {
        "set" => {
            env.insert("HOME".into(), home.to_string_lossy().into_owned());
        }
        "empty" => {
            env.insert("HOME".into(), String::new());
        }
        "unset" => {}
        other => schema_invalid(&format!("unknown home_env {other:?}")),
    }
    match xdg_mode {
        "temp" => {
            env.insert("XDG_CONFIG_HOME".into(), xdg.to_string_lossy().into_owned());
            place(&xdg.join("hanzo").join("settings.json"), files.get("user"));
            place(&home_file, files.get("home"));
        }
        "absent" | "empty" | "relative" => {
            if xdg_mode == "empty" {
                env.insert("XDG_CONFIG_HOME".into(), String::new());
            } else if xdg_mode == "relative" {
                env.insert("XDG_CONFIG_HOME".into(), "xdg".into());
            }
            place(&home_file, files.get("user"));
        }
        other => schema_invalid(&format!("unknown xdg_config_home {other:?}")),
    }
    let dot = root.join(".hanzo");
    place(&dot.join("settings.json"), files.get("project"));
    place(&dot.join("settings.local.json"), files.get("local"));
    let with_root = input
        .get("project_root")
        .map_or(Some(true), Value::as_bool)
        .unwrap_or_else(|| schema_invalid("project_root must be a boolean"));
    let evaluate = input.get("evaluate").map(|v| {
        v.as_array()
            .unwrap_or_else(|| schema_invalid("evaluate must be a list of strings"))
            .as_slice()
    });
    let trust = if input.get("trusted").and_then(Value::as_bool) == Some(true) {
        Trust::Trusted
    } else {
        Trust::Untrusted
    };
    let loaded = load_config(with_root.then_some(root.as_path()), &env, trust);
    drop(tmp);
    Ok(output_json(&loaded, evaluate))
}
