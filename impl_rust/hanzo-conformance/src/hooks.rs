//! `hooks`: run the case's hooks for real with [`hanzo_hooks::HookRunner`] in a
//! [`TempRoot`], and report what the `record` fixtures saw and which processes the
//! case left alive (in the platform's PID namespace, or working in the case root).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use hanzo_hooks::{HookConfig, HookError, HookRunner, ToolResult, DEFAULT_TIMEOUT_MS};
use serde_json::{json, Map, Value};

use crate::temp_root::{self, TempRoot, PLACEHOLDER};
use crate::CaseError;

const LEFTOVER_WAIT: Duration = Duration::from_secs(1);
/// How the harness confined this process (set by adapters/isolation.py, which owns it).
const ISOLATION_ENV: &str = "HANZO_CONFORMANCE_ISOLATION";

/// The harness validated the input against the schema: a mismatch is a bug here.
fn bad(message: &str) -> CaseError {
    crate::schema_invalid(message)
}

fn contract(e: &HookError) -> CaseError {
    CaseError::new(e.code(), e.to_string())
}

/// `fixtures/hooks/` of this repository, or `$HANZO_HOOK_FIXTURES`.
pub(crate) fn fixtures() -> String {
    std::env::var("HANZO_HOOK_FIXTURES").unwrap_or_else(|_| {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/hooks");
        std::fs::canonicalize(&dir)
            .unwrap_or(dir)
            .to_string_lossy()
            .into_owned()
    })
}

/// `path` as one `/bin/sh` word, as Python's `shlex.quote` writes it: as it is when
/// every character is safe, else in single quotes (each `'` as `'"'"'`).
fn sh_word(path: &str) -> String {
    let safe = !path.is_empty()
        && path
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_@%+=:,./-".contains(&b));
    if safe {
        path.to_owned()
    } else {
        format!("'{}'", path.replace('\'', "'\"'\"'"))
    }
}

/// `{root}` and `{fixtures}` replaced (HOOK-4); in a command each path is one `/bin/sh`
/// word, so a checkout or temp dir with a space, quote or `$` runs the same hook.
pub(crate) fn substitute(text: &str, root: &TempRoot, fixtures: &str, command: bool) -> String {
    let root_text = root.path().to_string_lossy();
    if command {
        text.replace(PLACEHOLDER, &sh_word(&root_text))
            .replace("{fixtures}", &sh_word(fixtures))
    } else {
        text.replace(PLACEHOLDER, &root_text)
            .replace("{fixtures}", fixtures)
    }
}

pub(crate) fn timeout_ms(raw: Option<&Value>) -> Result<u64, CaseError> {
    match raw {
        None => Ok(DEFAULT_TIMEOUT_MS),
        // A non-integer or negative number is out of HookConfig's u64 range: the same contract error.
        // JSON has one number type: 2000.0 is the integer 2000 (HOOK-1).
        Some(value) => value
            .as_u64()
            .or_else(|| {
                let f = value.as_f64()?;
                let in_range = f.fract() == 0.0 && (0.0..=9_007_199_254_740_991.0).contains(&f);
                #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
                in_range.then_some(f as u64)
            })
            .ok_or_else(|| contract(&HookError::InvalidTimeout(value.to_string()))),
    }
}

/// The case's hooks as `HookConfig`s. A JSON timeout that `HookConfig`'s `u64` cannot
/// hold (negative, fractional) is reported where `HookRunner::new` would report it
/// (HOOK-1: hook by hook, each hook's event before its timeout), so the error does
/// not depend on this layer converting every hook before the library checks any.
pub(crate) fn hook_configs(
    raw_hooks: &[Value],
    sub: &dyn Fn(&str) -> String,
) -> Result<Vec<HookConfig>, CaseError> {
    let mut hooks = Vec::with_capacity(raw_hooks.len());
    for raw in raw_hooks {
        let mut hook = HookConfig {
            event: string(raw.get("event"), "hook.event")?.to_owned(),
            command: sub(string(raw.get("command"), "hook.command")?),
            tool_pattern: string(raw.get("tool_pattern"), "hook.tool_pattern")?.to_owned(),
            timeout_ms: DEFAULT_TIMEOUT_MS,
        };
        match timeout_ms(raw.get("timeout_ms")) {
            Ok(timeout) => hook.timeout_ms = timeout,
            Err(unrepresentable) => {
                // The hooks before it and this hook's event are checked first.
                hooks.push(hook);
                HookRunner::new(hooks).map_err(|e| contract(&e))?;
                return Err(unrepresentable);
            }
        }
        hooks.push(hook);
    }
    Ok(hooks)
}

/// Files under `dir` (recursively) whose name ends with `suffix`, sorted.
fn files_ending(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(next) = pending.pop() {
        for entry in std::fs::read_dir(&next).into_iter().flatten().flatten() {
            let path = entry.path();
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                pending.push(path);
            } else if path.to_string_lossy().ends_with(suffix) {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

/// Running and not a zombie (Linux `/proc`).
fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        let state = stat
            .rsplit_once(')')
            .map_or("", |(_, rest)| rest.trim_start());
        !state.starts_with('Z') && !state.starts_with('X')
    })
}

/// This platform's other processes that the case left. As the init of the PID
/// namespace the harness made for it (adapters/isolation.py owns
/// `HANZO_CONFORMANCE_ISOLATION`): every process of that namespace. Else (no
/// namespaces, or the native vector runner): every process whose working directory is
/// in the case root (hooks start in their own sessions, so no session of ours holds
/// them). Never a list a hook could write (a forged one would have this kill any pid);
/// a process that changes its directory away escapes the count where there is no
/// namespace.
fn others(root: &Path) -> Vec<u32> {
    let me = std::process::id();
    let everything = std::env::var(ISOLATION_ENV).is_ok_and(|m| m == "namespace") && me == 1;
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Ok(pid) = name.parse::<u32>() else {
            continue;
        };
        if pid == me {
            continue;
        }
        if !everything {
            let Ok(cwd) = std::fs::read_link(format!("/proc/{pid}/cwd")) else {
                continue;
            };
            if !cwd.starts_with(root) {
                continue;
            }
        }
        found.push(pid);
    }
    found
}

fn leftovers(root: &Path) -> usize {
    let pids = others(root);
    let deadline = Instant::now() + LEFTOVER_WAIT;
    let mut living: Vec<u32> = pids.into_iter().filter(|&p| alive(p)).collect();
    while !living.is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
        living.retain(|&p| alive(p));
    }
    for pid in &living {
        // A failing implementation must not leak processes into the run.
        let _ = std::process::Command::new("kill")
            .args(["-KILL", &pid.to_string()])
            .status();
    }
    living.len()
}

fn saw(root: &TempRoot, observe: &[String]) -> Value {
    let mut saw = Map::new();
    let root_text = root.path().to_string_lossy().into_owned();
    for env_file in files_ending(root.path(), ".env") {
        let recorded = std::fs::read(&env_file).unwrap_or_default();
        let vars: Vec<(String, String)> = recorded
            .split(|&b| b == 0)
            .filter_map(|entry| {
                let eq = entry.iter().position(|&b| b == b'=')?;
                Some((
                    String::from_utf8_lossy(&entry[..eq]).into_owned(),
                    String::from_utf8_lossy(&entry[eq + 1..]).into_owned(),
                ))
            })
            .collect();
        let env: Map<String, Value> = observe
            .iter()
            .map(|name| {
                let value = vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone());
                (name.clone(), json!(value))
            })
            .collect();
        let cwd = std::fs::read_to_string(env_file.with_extension("cwd")).unwrap_or_default();
        let cwd = cwd.trim_end_matches('\n');
        let cwd = match cwd.strip_prefix(&root_text) {
            Some(rest) if rest.is_empty() || rest.starts_with('/') => {
                format!("{PLACEHOLDER}{rest}")
            }
            _ => cwd.to_owned(),
        };
        let stdin = std::fs::read_to_string(env_file.with_extension("stdin")).unwrap_or_default();
        let name = env_file
            .file_stem()
            .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
        saw.insert(name, json!({"env": env, "cwd": cwd, "stdin": stdin}));
    }
    Value::Object(saw)
}

fn string<'a>(value: Option<&'a Value>, what: &str) -> Result<&'a str, CaseError> {
    value
        .and_then(Value::as_str)
        .ok_or_else(|| bad(&format!("{what} must be a string")))
}

fn run_in(input: &Value, root: &TempRoot) -> Result<Value, CaseError> {
    let fixtures = fixtures();
    let sub = |text: &str| substitute(text, root, &fixtures, false);
    let sub_command = |text: &str| substitute(text, root, &fixtures, true);
    let raw_hooks = input
        .get("hooks")
        .and_then(Value::as_array)
        .ok_or_else(|| bad("input.hooks must be a list"))?;
    let hooks = hook_configs(raw_hooks, &sub_command)?;
    let env = input
        .get("env")
        .and_then(Value::as_object)
        .ok_or_else(|| bad("input.env must be an object"))?
        .iter()
        .map(|(k, v)| string(Some(v), "env value").map(|v| (k.clone(), sub(v))))
        .collect::<Result<Vec<_>, _>>()?;
    let raw_cwd = string(input.get("cwd"), "input.cwd")?;
    let cwd = sub(raw_cwd);
    let what = format!("input.cwd {raw_cwd:?}");
    let cwd_rel = temp_root::under_root(&cwd, root.path(), &what);
    // create_cwd false: a vector of HOOK-4's missing working directory.
    if input.get("create_cwd").and_then(Value::as_bool) != Some(false) {
        let parts = if cwd_rel.is_empty() {
            Vec::new()
        } else {
            temp_root::relative_parts(cwd_rel, &what)
        };
        temp_root::directory(root.path(), &parts, &what)?;
    }
    let runner = HookRunner::new(hooks)
        .map_err(|e| contract(&e))?
        .session_id(string(input.get("session_id"), "input.session_id")?)
        .cwd(&cwd)
        .env(env);
    let tool_name = string(input.get("tool_name"), "input.tool_name")?;
    let mut tool_input = input
        .get("tool_input")
        .and_then(Value::as_object)
        .cloned()
        .ok_or_else(|| bad("input.tool_input must be an object"))?;
    if let Some(fill) = input.get("tool_input_fill") {
        let key = string(fill.get("key"), "fill.key")?;
        let text = string(fill.get("text"), "fill.text")?;
        let count = fill
            .get("count")
            .and_then(Value::as_u64)
            .ok_or_else(|| bad("fill.count"))?;
        let count = usize::try_from(count).map_err(|_| bad("fill.count"))?;
        tool_input.insert(key.to_owned(), json!(text.repeat(count)));
    }
    let tool_input = Value::Object(tool_input);
    let result = if input.get("event").and_then(Value::as_str) == Some("post_tool_use") {
        let raw = input
            .get("tool_result")
            .ok_or_else(|| bad("input.tool_result is required"))?;
        let tool_result = ToolResult {
            output: string(raw.get("output"), "tool_result.output")?.to_owned(),
            error: raw.get("error").and_then(Value::as_str).map(str::to_owned),
            is_error: raw
                .get("is_error")
                .and_then(Value::as_bool)
                .unwrap_or(false),
        };
        runner.run_post(tool_name, &tool_input, &tool_result)
    } else {
        runner.run_pre(tool_name, &tool_input)
    };
    let observe: Vec<String> = input
        .get("observe")
        .and_then(Value::as_array)
        .ok_or_else(|| bad("input.observe must be a list"))?
        .iter()
        .filter_map(|v| v.as_str().map(str::to_owned))
        .collect();
    Ok(json!({
        "decision": result.decision.as_str(),
        "reason": result.reason,
        "ran": result.ran,
        "log": result.log.iter().map(|r| json!({
            "code": r.code, "hook": r.hook, "exit_code": r.exit_code, "signal": r.signal,
        })).collect::<Vec<_>>(),
        "saw": saw(root, &observe),
        "leftover_processes": leftovers(root.path()),
    }))
}

/// `{hooks, event, tool_name, tool_input, ...}` to `{decision, reason, ran, log, saw, leftover_processes}`.
///
/// # Errors
/// The contract's construction errors.
pub fn run(input: &Value) -> Result<Value, CaseError> {
    let root = TempRoot::new("hooks")?;
    run_in(input, &root)
}
