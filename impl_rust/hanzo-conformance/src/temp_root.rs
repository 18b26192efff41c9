//! A fresh temporary directory per case, removed (links not followed) when dropped.

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
