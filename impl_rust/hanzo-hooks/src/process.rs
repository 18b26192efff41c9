//! Running one hook process: HOOK-4, HOOK-14 and HOOK-7..HOOK-11.

use std::collections::BTreeMap;
use std::ffi::{CString, OsString};
use std::fs::File;
use std::io::Read;
use std::os::fd::AsFd;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::ExitStatus;
use std::sync::mpsc;
use std::time::Duration;

use nix::errno::Errno;
use nix::fcntl::OFlag;
use nix::sys::signal::{killpg, Signal};
use nix::unistd::{pipe2, Pid};

use crate::spawn;

/// HOOK-7: the longest `NAME=value` entry (Linux `MAX_ARG_STRLEN` is 131072 with the NUL).
pub const MAX_ENV_ENTRY_BYTES: usize = 131_071;
/// HOOK-11: stderr bytes kept for the deny reason.
pub const REASON_LIMIT_BYTES: usize = 4096;

/// How one hook process ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ending {
    /// HOOK-7: the named variable cannot be passed; the hook was not started.
    Unpassable(String),
    /// It could not be started at all (no `/bin/sh`, bad cwd): reported as exit 127.
    SpawnFailed,
    /// HOOK-9.
    TimedOut,
    /// It exited with this code; the first [`REASON_LIMIT_BYTES`] of stderr.
    Exited(i32, Vec<u8>),
    /// It died by this signal.
    Signaled(i32),
}

/// HOOK-7: of the variables that cannot be passed, the least name (the map is in byte
/// order, which for UTF-8 names is code-point order), if any.
pub fn unpassable(env: &BTreeMap<OsString, OsString>) -> Option<String> {
    env.iter()
        .find(|(name, value)| {
            let (name, value) = (name.as_bytes(), value.as_bytes());
            name.is_empty()
                || name.contains(&b'=')
                || name.contains(&0)
                || value.contains(&0)
                || name.len() + 1 + value.len() > MAX_ENV_ENTRY_BYTES
        })
        .map(|(name, _)| name.to_string_lossy().into_owned())
}

fn kill_group(pid: Pid) {
    // ESRCH: the group is already empty.
    let _ = killpg(pid, Signal::SIGKILL);
}

/// `/bin/sh -c command`, the `NAME=value` entries and the working directory as C
/// strings; None when one holds a NUL (HOOK-7 has already refused NULs in names and values).
fn c_strings(
    command: &str,
    env: &BTreeMap<OsString, OsString>,
    cwd: Option<&Path>,
) -> Option<(Vec<CString>, Vec<CString>, Option<CString>)> {
    let argv = ["/bin/sh", "-c", command]
        .into_iter()
        .map(|arg| CString::new(arg).ok())
        .collect::<Option<Vec<CString>>>()?;
    let envp = env
        .iter()
        .map(|(name, value)| CString::new([name.as_bytes(), b"=", value.as_bytes()].concat()).ok())
        .collect::<Option<Vec<CString>>>()?;
    let cwd = cwd
        .map(|cwd| CString::new(cwd.as_os_str().as_bytes()))
        .transpose()
        .ok()?;
    Some((argv, envp, cwd))
}

/// Runs `/bin/sh -c command` in a new process group, with default signal dispositions
/// and an empty mask (HOOK-14), and waits for it (at most `timeout`).
pub fn run(
    command: &str,
    env: &BTreeMap<OsString, OsString>,
    cwd: Option<&Path>,
    timeout: Duration,
) -> Ending {
    if let Some(name) = unpassable(env) {
        return Ending::Unpassable(name);
    }
    let Some((argv, envp, cwd)) = c_strings(command, env, cwd) else {
        return Ending::SpawnFailed; // a NUL in the command, a name or the cwd
    };
    let Ok((stderr, stderr_write)) = pipe2(OFlag::O_CLOEXEC) else {
        return Ending::SpawnFailed;
    };
    let started = spawn::spawn(&argv, &envp, cwd.as_deref(), stderr_write.as_fd());
    drop(stderr_write); // the hook has its copy; the reader must see the end of it
    let Ok(pid) = started else {
        return Ending::SpawnFailed;
    };
    let mut stderr = File::from(stderr);
    let reader = std::thread::spawn(move || {
        let mut kept = Vec::new();
        let mut chunk = vec![0_u8; 65536];
        while let Ok(n) = stderr.read(&mut chunk) {
            if n == 0 {
                break;
            }
            let room = REASON_LIMIT_BYTES.saturating_sub(kept.len());
            kept.extend_from_slice(&chunk[..n.min(room)]);
        }
        kept
    });
    // waitpid in a thread, so the timeout is a channel timeout, not polling; a
    // grandchild holding stderr cannot hold the runner.
    let (done, exited) = mpsc::channel::<Result<ExitStatus, Errno>>();
    let waiter = std::thread::spawn(move || {
        let _ = done.send(spawn::wait(pid));
    });
    let status = if let Ok(status) = exited.recv_timeout(timeout) {
        Some(status)
    } else {
        kill_group(pid);
        let _ = exited.recv();
        None
    };
    let _ = waiter.join();
    kill_group(pid); // HOOK-10: nothing outlives the hook
    let kept = reader.join().unwrap_or_default();
    match status {
        None => Ending::TimedOut,
        Some(Err(_)) => Ending::SpawnFailed,
        Some(Ok(status)) => match (status.code(), status.signal()) {
            (Some(code), _) => Ending::Exited(code, kept),
            (None, Some(signal)) => Ending::Signaled(signal),
            (None, None) => Ending::SpawnFailed,
        },
    }
}

/// HOOK-11: drop a UTF-8 sequence cut at the end, decode, strip trailing ASCII whitespace.
pub fn reason_text(kept: &[u8]) -> String {
    let mut end = kept.len();
    for back in 1..=kept.len().min(4) {
        let lead = kept[kept.len() - back];
        if lead & 0xC0 != 0x80 {
            let length = match lead {
                0xC0..=0xDF => 2,
                0xE0..=0xEF => 3,
                0xF0..=0xF7 => 4,
                _ => 1,
            };
            if length > back {
                end = kept.len() - back;
            }
            break;
        }
    }
    String::from_utf8_lossy(&kept[..end])
        .trim_end_matches([' ', '\t', '\n', '\r'])
        .to_owned()
}

#[cfg(test)]
mod tests {
    use nix::sys::signal::SigSet;

    use super::*;

    #[test]
    fn cut_sequence_dropped() {
        assert_eq!(reason_text(b"ab\xe2\x82"), "ab");
        assert_eq!(reason_text("a€".as_bytes()), "a€");
        assert_eq!(reason_text(b"x \n\r\t"), "x");
        assert_eq!(reason_text(b"bad \xff byte"), "bad \u{fffd} byte");
    }

    #[test]
    fn a_hook_that_cannot_be_started_is_a_spawn_failure() {
        // HOOK-4: no working directory, or a NUL in the command: as exit 127.
        let env = BTreeMap::new();
        let missing = Path::new("/nonexistent/hooks/cwd");
        let second = Duration::from_secs(1);
        assert_eq!(
            run("exit 0", &env, Some(missing), second),
            Ending::SpawnFailed
        );
        assert_eq!(run("exit 0\0", &env, None, second), Ending::SpawnFailed);
    }

    #[test]
    fn a_signal_blocked_here_is_not_blocked_in_the_hook() {
        // HOOK-14. The mask is per thread, and a child starts with its spawner's.
        std::thread::spawn(|| {
            let mut term = SigSet::empty();
            term.add(Signal::SIGTERM);
            term.thread_block().unwrap();
            let ending = run(
                "kill -s TERM $$; exit 0",
                &BTreeMap::new(),
                None,
                Duration::from_secs(10),
            );
            assert_eq!(ending, Ending::Signaled(Signal::SIGTERM as i32));
        })
        .join()
        .unwrap();
    }
}
