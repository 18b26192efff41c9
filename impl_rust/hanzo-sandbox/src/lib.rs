//! Filesystem isolation and container detection, as HIP-301 §10 specifies them.
//!
//! The contract is `docs/domains/sandbox-paths.md`. Paths are canonicalized by
//! one walk over the real filesystem (SBX-4): symbolic links are followed, `..`
//! applies to what a link points at, and missing names are kept as written, so a
//! file about to be created is judged by its deepest existing parent. Paths are
//! byte strings (`OsStr`), so non-UTF-8 names work.
//!
//! ```
//! use hanzo_sandbox::{IsolationMode, Sandbox, SandboxConfig};
//! let workspace = std::env::temp_dir();
//! let sandbox = Sandbox::new(SandboxConfig::new(IsolationMode::WorkspaceOnly), &workspace)?;
//! assert!(sandbox.check_path(workspace.join("new-file.txt")));
//! assert!(!sandbox.check_path(workspace.join("..")));
//! # Ok::<(), hanzo_sandbox::SandboxError>(())
//! ```

use std::collections::HashMap;
use std::ffi::{OsStr, OsString};
use std::fmt;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// SBX-5: symbolic links followed in one canonicalization (Linux `MAXSYMLINKS`).
pub const MAX_SYMLINKS: usize = 40;

/// A contract error of this crate (raised at construction only).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SandboxError {
    /// SBX-1: the mode is not `off`, `workspace` or `allowlist`.
    InvalidMode(String),
    /// SBX-2: the workspace is relative, unresolvable or not a directory.
    InvalidWorkspace(PathBuf),
    /// SBX-3: an allowed path is empty, contains NUL or is a symlink loop.
    InvalidAllowedPath(PathBuf),
}

impl SandboxError {
    /// The contract's stable error code.
    pub fn code(&self) -> &'static str {
        match self {
            Self::InvalidMode(_) => "invalid_mode",
            Self::InvalidWorkspace(_) => "invalid_workspace",
            Self::InvalidAllowedPath(_) => "invalid_allowed_path",
        }
    }
}

impl fmt::Display for SandboxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::InvalidMode(mode) => write!(f, "invalid isolation mode {mode:?}"),
            Self::InvalidWorkspace(path) => write!(f, "invalid workspace {}", path.display()),
            Self::InvalidAllowedPath(path) => {
                write!(f, "invalid allowed path {}", path.display())
            }
        }
    }
}

impl std::error::Error for SandboxError {}

/// HIP-301's `IsolationMode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IsolationMode {
    /// No filesystem restrictions.
    Off,
    /// Restrict to the workspace.
    WorkspaceOnly,
    /// Restrict to the allowed paths.
    AllowList,
}

impl IsolationMode {
    /// The contract's spelling: `off`, `workspace`, `allowlist`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Off => "off",
            Self::WorkspaceOnly => "workspace",
            Self::AllowList => "allowlist",
        }
    }

    /// SBX-15: `off` inside a container (the container is the sandbox), `workspace` otherwise.
    pub fn default_for(container: Option<ContainerRuntime>) -> Self {
        if container.is_some() {
            Self::Off
        } else {
            Self::WorkspaceOnly
        }
    }
}

impl FromStr for IsolationMode {
    type Err = SandboxError;

    /// SBX-1: exactly `off`, `workspace` or `allowlist`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "off" => Ok(Self::Off),
            "workspace" => Ok(Self::WorkspaceOnly),
            "allowlist" => Ok(Self::AllowList),
            other => Err(SandboxError::InvalidMode(other.to_owned())),
        }
    }
}

/// HIP-301's `SandboxConfig`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SandboxConfig {
    /// The isolation mode.
    pub mode: IsolationMode,
    /// Used in [`IsolationMode::AllowList`] only; relative entries are relative to the workspace.
    pub allowed_paths: Vec<PathBuf>,
}

impl SandboxConfig {
    /// A config with no allowed paths.
    pub fn new(mode: IsolationMode) -> Self {
        Self {
            mode,
            allowed_paths: Vec::new(),
        }
    }
}

/// Why a check answered as it did (SBX-9).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CheckReason {
    /// SBX-10.
    IsolationOff,
    /// SBX-6: empty or containing NUL.
    InvalidPath,
    /// SBX-5.
    SymlinkLoop,
    /// SBX-12.
    InWorkspace,
    /// SBX-13.
    InAllowedPath,
    /// Neither.
    Outside,
}

impl CheckReason {
    /// The contract's spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::IsolationOff => "isolation_off",
            Self::InvalidPath => "invalid_path",
            Self::SymlinkLoop => "symlink_loop",
            Self::InWorkspace => "in_workspace",
            Self::InAllowedPath => "in_allowed_path",
            Self::Outside => "outside",
        }
    }
}

/// The result of one check (SBX-9).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathCheck {
    /// Whether the path may be used.
    pub allowed: bool,
    /// Why.
    pub reason: CheckReason,
    /// The canonical path the decision was made on, if one was computed.
    pub resolved: Option<PathBuf>,
}

/// More than [`MAX_SYMLINKS`] links on the way (SBX-5).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SymlinkLoop;

fn components(path: &OsStr) -> impl DoubleEndedIterator<Item = &[u8]> {
    path.as_bytes()
        .split(|&b| b == b'/')
        .filter(|part| !part.is_empty() && *part != b".")
}

fn parent(path: &mut Vec<u8>) {
    match path.iter().rposition(|&b| b == b'/') {
        Some(0) | None => path.truncate(1),
        Some(slash) => path.truncate(slash),
    }
}

/// The SBX-4 walk: `path`, relative ones starting at `base` (itself canonical).
///
/// # Errors
/// [`SymlinkLoop`] when a 41st link would be followed.
pub fn canonicalize(path: &Path, base: &Path) -> Result<PathBuf, SymlinkLoop> {
    let bytes = path.as_os_str().as_bytes();
    let mut current: Vec<u8> = if bytes.starts_with(b"/") {
        b"/".to_vec()
    } else {
        base.as_os_str().as_bytes().to_vec()
    };
    // A stack: the next component is on top.
    let mut pending: Vec<Vec<u8>> = components(path.as_os_str())
        .rev()
        .map(<[u8]>::to_vec)
        .collect();
    let mut followed = 0;
    while let Some(name) = pending.pop() {
        if name == b".." {
            parent(&mut current);
            continue;
        }
        let mut candidate = current.clone();
        if candidate != b"/" {
            candidate.push(b'/');
        }
        candidate.extend_from_slice(&name);
        let candidate_path = PathBuf::from(OsString::from_vec(candidate.clone()));
        let is_link =
            std::fs::symlink_metadata(&candidate_path).is_ok_and(|m| m.file_type().is_symlink());
        if !is_link {
            // Existing or not (missing, under a file, unreadable): taken as written.
            current = candidate;
            continue;
        }
        followed += 1;
        if followed > MAX_SYMLINKS {
            return Err(SymlinkLoop);
        }
        let Ok(target) = std::fs::read_link(&candidate_path) else {
            current = candidate; // vanished between lstat and readlink
            continue;
        };
        if target.as_os_str().as_bytes().starts_with(b"/") {
            current = b"/".to_vec();
        }
        pending.extend(components(target.as_os_str()).rev().map(<[u8]>::to_vec));
    }
    Ok(PathBuf::from(OsString::from_vec(current)))
}

/// SBX-11: `path` is `directory` or below it, comparing whole components.
pub fn is_inside(path: &Path, directory: &Path) -> bool {
    let (p, d) = (
        path.as_os_str().as_bytes(),
        directory.as_os_str().as_bytes(),
    );
    d == b"/" || p == d || (p.starts_with(d) && p.get(d.len()) == Some(&b'/'))
}

fn is_valid(path: &Path) -> bool {
    let bytes = path.as_os_str().as_bytes();
    !bytes.is_empty() && !bytes.contains(&0)
}

/// Filesystem isolation for one workspace.
#[derive(Debug, Clone)]
pub struct Sandbox {
    mode: IsolationMode,
    workspace: PathBuf,
    allowed_paths: Vec<PathBuf>,
}

impl Sandbox {
    /// Canonicalizes the workspace and the allowed paths once (SBX-2, SBX-3).
    ///
    /// # Errors
    /// `InvalidWorkspace` or `InvalidAllowedPath`.
    pub fn new(config: SandboxConfig, workspace: impl AsRef<Path>) -> Result<Self, SandboxError> {
        let given = workspace.as_ref();
        let invalid_workspace = || SandboxError::InvalidWorkspace(given.to_path_buf());
        if !is_valid(given) || !given.is_absolute() {
            return Err(invalid_workspace());
        }
        let workspace =
            canonicalize(given, Path::new("/")).map_err(|SymlinkLoop| invalid_workspace())?;
        if !workspace.is_dir() {
            return Err(invalid_workspace());
        }
        let allowed_paths = config
            .allowed_paths
            .into_iter()
            .map(|entry| {
                let invalid = || SandboxError::InvalidAllowedPath(entry.clone());
                if !is_valid(&entry) {
                    return Err(invalid());
                }
                canonicalize(&entry, &workspace).map_err(|SymlinkLoop| invalid())
            })
            .collect::<Result<_, _>>()?;
        Ok(Self {
            mode: config.mode,
            workspace,
            allowed_paths,
        })
    }

    /// The canonical workspace.
    pub fn workspace(&self) -> &Path {
        &self.workspace
    }

    /// Decide `path` (SBX-9..SBX-13); never fails.
    pub fn check(&self, path: impl AsRef<Path>) -> PathCheck {
        let path = path.as_ref();
        let answer = |allowed, reason, resolved| PathCheck {
            allowed,
            reason,
            resolved,
        };
        if self.mode == IsolationMode::Off {
            return answer(true, CheckReason::IsolationOff, None);
        }
        if !is_valid(path) {
            return answer(false, CheckReason::InvalidPath, None);
        }
        let Ok(resolved) = canonicalize(path, &self.workspace) else {
            return answer(false, CheckReason::SymlinkLoop, None);
        };
        let (inside, reason) = if self.mode == IsolationMode::WorkspaceOnly {
            (
                is_inside(&resolved, &self.workspace),
                CheckReason::InWorkspace,
            )
        } else {
            let inside = self
                .allowed_paths
                .iter()
                .any(|entry| is_inside(&resolved, entry));
            (inside, CheckReason::InAllowedPath)
        };
        if inside {
            answer(true, reason, Some(resolved))
        } else {
            answer(false, CheckReason::Outside, Some(resolved))
        }
    }

    /// HIP-301: true if the path is allowed under the current isolation mode.
    pub fn check_path(&self, path: impl AsRef<Path>) -> bool {
        self.check(path).allowed
    }
}

/// A detected container runtime.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ContainerRuntime {
    /// Docker.
    Docker,
    /// Podman.
    Podman,
    /// Kubernetes.
    Kubernetes,
}

impl ContainerRuntime {
    /// HIP-301's spelling: `docker`, `podman`, `k8s`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Docker => "docker",
            Self::Podman => "podman",
            Self::Kubernetes => "k8s",
        }
    }
}

/// SBX-14: the bytes of `proc/1/cgroup` read at most (a real one is a few hundred; a
/// link to `/dev/zero` must not be read without end).
pub const CGROUP_READ_LIMIT: u64 = 65_536;

fn read_at_most(path: &Path, limit: u64) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut bytes = Vec::new();
    std::fs::File::open(path)?
        .take(limit)
        .read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// SBX-14: look at `root`'s `proc/1/cgroup`, `.dockerenv`, `run/.containerenv`,
/// then `env["KUBERNETES_SERVICE_HOST"]`, in that order.
pub fn detect_container<S: std::hash::BuildHasher>(
    root: &Path,
    env: &HashMap<String, String, S>,
) -> Option<ContainerRuntime> {
    let cgroup = read_at_most(&root.join("proc/1/cgroup"), CGROUP_READ_LIMIT).unwrap_or_default();
    let cgroup = String::from_utf8_lossy(&cgroup);
    let paths: Vec<&str> = cgroup
        .split('\n')
        .filter_map(|line| line.splitn(3, ':').nth(2))
        .collect();
    for (needle, runtime) in [
        ("kubepods", ContainerRuntime::Kubernetes),
        ("docker", ContainerRuntime::Docker),
        ("libpod", ContainerRuntime::Podman),
    ] {
        if paths.iter().any(|p| p.contains(needle)) {
            return Some(runtime);
        }
    }
    let exists = |rel: &str| std::fs::symlink_metadata(root.join(rel)).is_ok();
    if exists(".dockerenv") {
        return Some(ContainerRuntime::Docker);
    }
    if exists("run/.containerenv") {
        return Some(ContainerRuntime::Podman);
    }
    if env
        .get("KUBERNETES_SERVICE_HOST")
        .is_some_and(|v| !v.is_empty())
    {
        return Some(ContainerRuntime::Kubernetes);
    }
    None
}

/// [`detect_container`] on this machine: `/` and the process environment.
pub fn detect_current_container() -> Option<ContainerRuntime> {
    let env: HashMap<String, String> = std::env::vars().collect();
    detect_container(Path::new("/"), &env)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parent_of_root_is_root() {
        let mut p = b"/".to_vec();
        parent(&mut p);
        assert_eq!(p, b"/");
        let mut p = b"/a".to_vec();
        parent(&mut p);
        assert_eq!(p, b"/");
        let mut p = b"/a/b".to_vec();
        parent(&mut p);
        assert_eq!(p, b"/a");
    }

    #[test]
    fn inside_compares_components() {
        assert!(is_inside(Path::new("/ws"), Path::new("/ws")));
        assert!(is_inside(Path::new("/ws/a"), Path::new("/ws")));
        assert!(!is_inside(Path::new("/ws2"), Path::new("/ws")));
        assert!(is_inside(Path::new("/anything"), Path::new("/")));
    }

    #[test]
    fn non_utf8_names_are_kept() {
        let name = OsStr::from_bytes(b"/no/such/\xff\xfe");
        let resolved = canonicalize(Path::new(name), Path::new("/")).expect("no links");
        assert_eq!(resolved.as_os_str().as_bytes(), b"/no/such/\xff\xfe");
    }
}
