//! A fresh temporary directory per case, removed (links not followed) when dropped,
//! and the confinement of what a case writes into it (docs/protocol.md, "Case roots:
//! what an OS-domain case writes"): every path a case creates or writes is a plain
//! relative path under the root, reached one directory at a time without following
//! a symlink; a file is never opened for writing through one. A symlink may point
//! anywhere (sandbox-paths' test material); nothing is created or written through it.

use std::fs::OpenOptions;
use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::CaseError;

/// The placeholder for the case root in vector strings.
pub const PLACEHOLDER: &str = "{root}";

/// A temporary directory under `std::env::temp_dir()`, canonical, removed on drop.
pub struct TempRoot {
    path: PathBuf,
}

impl TempRoot {
    /// Creates `hanzo-<prefix>-<pid>-<n>-<nanos>`.
    ///
    /// # Errors
    /// `io_error` if no directory could be created.
    pub fn new(prefix: &str) -> Result<Self, CaseError> {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let dir =
            std::env::temp_dir().join(format!("hanzo-{prefix}-{}-{n}-{nanos}", std::process::id()));
        std::fs::create_dir(&dir).map_err(|e| CaseError::new("io_error", e.to_string()))?;
        let path = std::fs::canonicalize(&dir).unwrap_or(dir);
        Ok(Self { path })
    }

    /// The canonical path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// `text` with every `{root}` replaced by this root.
    pub fn substitute(&self, text: &str) -> String {
        text.replace(PLACEHOLDER, &self.path.to_string_lossy())
    }
}

impl Drop for TempRoot {
    fn drop(&mut self) {
        // remove_dir_all removes symlinks themselves, never what they point at.
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

fn io(e: &std::io::Error) -> CaseError {
    CaseError::new("io_error", e.to_string())
}

/// A case would create or write outside its root: the case is malformed (answered
/// as a crash naming the entry), never a contract error.
///
/// # Panics
/// Always, with `what` and `problem` in the message.
#[track_caller]
pub fn refuse(what: &str, problem: &str) -> ! {
    panic!(
        "{what}: {problem}; a case creates and writes only inside its case root, \
         never through a symlink (the case is malformed)"
    )
}

/// `rel`'s components; an absolute path, NUL, or an empty, `.` or `..` component is refused.
pub fn relative_parts<'a>(rel: &'a str, what: &str) -> Vec<&'a str> {
    if rel.starts_with('/') {
        refuse(what, &format!("{rel:?} is absolute"));
    }
    let parts: Vec<&str> = rel.split('/').collect();
    if rel.contains('\0') || parts.iter().any(|p| matches!(*p, "" | "." | "..")) {
        refuse(
            what,
            &format!("{rel:?} is not a plain relative path (empty, '.' or '..' component)"),
        );
    }
    parts
}

/// `root/parts...`, each missing directory made; a component that is a symlink or
/// not a directory is refused. Nothing else runs in the root while a case's paths
/// are made, so what `symlink_metadata` saw is what is used.
///
/// # Errors
/// `io_error` if the filesystem refuses.
pub fn directory(root: &Path, parts: &[&str], what: &str) -> Result<PathBuf, CaseError> {
    let mut dir = root.to_path_buf();
    for (depth, name) in parts.iter().enumerate() {
        dir.push(name);
        match std::fs::symlink_metadata(&dir) {
            Err(e) if e.kind() == ErrorKind::NotFound => {
                std::fs::create_dir(&dir).map_err(|e| io(&e))?;
            }
            Err(e) => return Err(io(&e)),
            Ok(meta) if meta.file_type().is_symlink() => {
                refuse(
                    what,
                    &format!("{:?} is a symlink", parts[..=depth].join("/")),
                );
            }
            Ok(meta) if !meta.is_dir() => {
                refuse(
                    what,
                    &format!("{:?} is not a directory", parts[..=depth].join("/")),
                );
            }
            Ok(_) => {}
        }
    }
    Ok(dir)
}

/// `dir/name` created (`create_new`: `O_EXCL` never follows a link) or, when an
/// earlier entry made it a file, truncated; refused when it is a symlink.
///
/// # Errors
/// `io_error` if the filesystem refuses.
pub fn write_file(dir: &Path, name: &str, data: &[u8], what: &str) -> Result<(), CaseError> {
    let path = dir.join(name);
    let mut options = OpenOptions::new();
    options.write(true);
    match std::fs::symlink_metadata(&path) {
        Ok(meta) if meta.file_type().is_symlink() => refuse(
            what,
            &format!("{name:?} is a symlink, and a file is never written through one"),
        ),
        Ok(_) => options.truncate(true),
        Err(e) if e.kind() == ErrorKind::NotFound => options.create_new(true),
        Err(e) => return Err(io(&e)),
    };
    let mut file = options.open(&path).map_err(|e| io(&e))?;
    file.write_all(data).map_err(|e| io(&e))
}

/// `path` (placeholders substituted) relative to `root`, "" for the root itself;
/// refused unless it is the root or a plain path under it.
pub fn under_root<'a>(path: &'a str, root: &Path, what: &str) -> &'a str {
    let root_text = root.to_string_lossy();
    if path == root_text {
        return "";
    }
    let Some(rel) = path
        .strip_prefix(root_text.as_ref())
        .and_then(|rest| rest.strip_prefix('/'))
    else {
        refuse(what, &format!("{path:?} is not under {PLACEHOLDER}"));
    };
    relative_parts(rel, what);
    rel
}
