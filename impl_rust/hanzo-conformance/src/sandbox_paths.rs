//! `sandbox-paths`: build the case's tree in a [`TempRoot`], then
//! [`hanzo_sandbox::Sandbox::check`] a path or [`hanzo_sandbox::detect_container`].

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use hanzo_sandbox::{detect_container, IsolationMode, Sandbox, SandboxConfig};
use serde_json::{json, Value};

use crate::temp_root::{self, TempRoot, PLACEHOLDER};
use crate::CaseError;

/// The harness validated the input against the schema: a mismatch is a bug here.
fn bad(message: &str) -> CaseError {
    crate::schema_invalid(message)
}

fn io(e: &std::io::Error) -> CaseError {
    CaseError::new("io_error", e.to_string())
}

fn string<'a>(value: Option<&'a Value>, what: &str) -> Result<&'a str, CaseError> {
    value
        .and_then(Value::as_str)
        .ok_or_else(|| bad(&format!("{what} must be a string")))
}

/// Creates the `tree` entries under `root`, in order, each confined to the root
/// ([`temp_root::directory`]: an entry under or on a symlink is refused).
///
/// # Errors
/// `io_error` if the filesystem refuses.
///
/// # Panics
/// On a schema-invalid entry, or one that would escape the root ([`temp_root::refuse`]).
pub fn build_tree(root: &TempRoot, tree: Option<&Value>) -> Result<(), CaseError> {
    let entries = tree
        .and_then(Value::as_array)
        .ok_or_else(|| bad("input.tree must be a list"))?;
    for (index, entry) in entries.iter().enumerate() {
        let rel = string(entry.get("path"), "tree[].path")?;
        let what = format!("tree[{index}] {rel:?}");
        let parts = temp_root::relative_parts(rel, &what);
        let kind = string(entry.get("kind"), "tree[].kind")?;
        if kind == "dir" {
            temp_root::directory(root.path(), &parts, &what)?;
            continue;
        }
        let (name, parents) = parts.split_last().expect("split never yields nothing");
        let parent = temp_root::directory(root.path(), parents, &what)?;
        match kind {
            "file" => {
                let content = entry.get("content").and_then(Value::as_str).unwrap_or("");
                temp_root::write_file(&parent, name, content.as_bytes(), &what)?;
            }
            "symlink" => {
                let target = root.substitute(string(entry.get("target"), "tree[].target")?);
                std::os::unix::fs::symlink(target, parent.join(name)).map_err(|e| io(&e))?;
            }
            _ => return Err(bad("tree[].kind must be dir, file or symlink")),
        }
    }
    Ok(())
}

fn relative_to_root(path: Option<&Path>, root: &Path) -> Value {
    match path.and_then(|p| p.strip_prefix(root).ok()) {
        Some(rest) if rest.as_os_str().is_empty() => json!(PLACEHOLDER),
        Some(rest) => json!(format!("{PLACEHOLDER}/{}", rest.to_string_lossy())),
        None => Value::Null,
    }
}

fn check(input: &Value, root: &TempRoot) -> Result<Value, CaseError> {
    let config = input
        .get("config")
        .ok_or_else(|| bad("input.config is required"))?;
    let mode: IsolationMode = string(config.get("mode"), "config.mode")?
        .parse()
        .map_err(|e: hanzo_sandbox::SandboxError| CaseError::new(e.code(), e.to_string()))?;
    let allowed_paths = config
        .get("allowed_paths")
        .and_then(Value::as_array)
        .ok_or_else(|| bad("config.allowed_paths must be a list"))?
        .iter()
        .map(|p| string(Some(p), "allowed_paths[]").map(|s| PathBuf::from(root.substitute(s))))
        .collect::<Result<Vec<_>, _>>()?;
    let workspace = root.substitute(string(input.get("workspace"), "input.workspace")?);
    let sandbox = Sandbox::new(
        SandboxConfig {
            mode,
            allowed_paths,
        },
        workspace,
    )
    .map_err(|e| CaseError::new(e.code(), e.to_string()))?;
    let result = sandbox.check(root.substitute(string(input.get("path"), "input.path")?));
    Ok(json!({
        "allowed": result.allowed,
        "reason": result.reason.as_str(),
        "resolved": relative_to_root(result.resolved.as_deref(), root.path()),
    }))
}

fn detect(input: &Value, root: &TempRoot) -> Result<Value, CaseError> {
    let env = input
        .get("env")
        .and_then(Value::as_object)
        .ok_or_else(|| bad("input.env must be an object"))?
        .iter()
        .map(|(k, v)| string(Some(v), "env value").map(|v| (k.clone(), v.to_owned())))
        .collect::<Result<HashMap<_, _>, _>>()?;
    let runtime = detect_container(root.path(), &env);
    Ok(json!({
        "runtime": runtime.map(hanzo_sandbox::ContainerRuntime::as_str),
        "default_mode": IsolationMode::default_for(runtime).as_str(),
    }))
}

/// `{op: check_path | detect_container, tree, ...}` to the check or the detection.
///
/// # Errors
/// The contract's construction errors.
pub fn run(input: &Value) -> Result<Value, CaseError> {
    let op = string(input.get("op"), "input.op")?;
    if op != "check_path" && op != "detect_container" {
        return Err(bad("input.op must be check_path or detect_container"));
    }
    let root = TempRoot::new("sandbox")?;
    build_tree(&root, input.get("tree"))?;
    if op == "check_path" {
        check(input, &root)
    } else {
        detect(input, &root)
    }
}
