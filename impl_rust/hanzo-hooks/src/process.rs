//! Running one hook process: HOOK-4, HOOK-14 and HOOK-7..HOOK-11.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::io::Read;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use nix::sys::signal::{
    killpg, sigaction, sigprocmask, SaFlags, SigAction, SigHandler, SigSet, SigmaskHow, Signal,
};
use nix::unistd::Pid;

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
            let value = value.as_bytes();
            value.contains(&0) || name.len() + 1 + value.len() > MAX_ENV_ENTRY_BYTES
        })
        .map(|(name, _)| name.to_string_lossy().into_owned())
}

fn kill_group(pid: u32) {
    if let Ok(pid) = i32::try_from(pid) {
        // ESRCH: the group is already empty.
        let _ = killpg(Pid::from_raw(pid), Signal::SIGKILL);
    }
}

/// HOOK-14: the hook starts with every standard signal (1..31) at its default
/// disposition and an empty signal mask, whatever this process inherited (`nohup`
/// ignores SIGHUP, a shell's background job SIGINT). `std` resets only SIGPIPE and
/// passes the spawning thread's signal mask on (rust-lang/rust#101077). The cost: with
/// a `pre_exec` closure `std` forks instead of using `posix_spawn`, so starting a hook
/// takes CPU in proportion to this process's resident memory (bench/README.md).
#[allow(unsafe_code)]
fn start_with_default_signals(cmd: &mut Command) {
    // SAFETY: the closure runs in the forked child before exec, where only
    // async-signal-safe calls are allowed. It calls sigaction(2) and sigprocmask(2)
    // (both async-signal-safe), builds its arguments on the stack and allocates
    // nothing: `Signal::iterator` walks a static table, `SigAction`/`SigSet` are
    // plain C structs, and the error is a raw errno, not a boxed one. sigaction is
    // unsafe only because a handler could be an arbitrary function; SIG_DFL is none.
    unsafe {
        cmd.pre_exec(|| {
            let default = SigAction::new(SigHandler::SigDfl, SaFlags::empty(), SigSet::empty());
            for signal in Signal::iterator() {
                if !matches!(signal, Signal::SIGKILL | Signal::SIGSTOP) {
                    let _ = sigaction(signal, &default);
                }
            }
            sigprocmask(SigmaskHow::SIG_SETMASK, Some(&SigSet::empty()), None)
                .map_err(std::io::Error::from)
        });
    }
}

/// Runs `/bin/sh -c command` in a new process group and waits for it (at most `timeout`).
pub fn run(
    command: &str,
    env: &BTreeMap<OsString, OsString>,
    cwd: Option<&Path>,
    timeout: Duration,
) -> Ending {
    if let Some(name) = unpassable(env) {
        return Ending::Unpassable(name);
    }
    let mut cmd = Command::new("/bin/sh");
    cmd.arg("-c")
        .arg(command)
        .env_clear()
        .envs(env)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .process_group(0);
    start_with_default_signals(&mut cmd);
    if let Some(cwd) = cwd {
        cmd.current_dir(cwd);
    }
    let Ok(mut child) = cmd.spawn() else {
        return Ending::SpawnFailed;
    };
    let pid = child.id();
    let stderr = child.stderr.take();
    let reader = std::thread::spawn(move || {
        let mut kept = Vec::new();
        if let Some(mut stderr) = stderr {
            let mut chunk = vec![0_u8; 65536];
            while let Ok(n) = stderr.read(&mut chunk) {
                if n == 0 {
                    break;
                }
                let room = REASON_LIMIT_BYTES.saturating_sub(kept.len());
                kept.extend_from_slice(&chunk[..n.min(room)]);
            }
        }
        kept
    });
    // waitpid in a thread, so the timeout is a channel timeout, not polling; a
    // grandchild holding stderr cannot hold the runner.
    let (done, exited) = mpsc::channel::<std::io::Result<ExitStatus>>();
    let waiter = std::thread::spawn(move || {
        let _ = done.send(child.wait());
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
    use super::*;

    #[test]
    fn cut_sequence_dropped() {
        assert_eq!(reason_text(b"ab\xe2\x82"), "ab");
        assert_eq!(reason_text("a€".as_bytes()), "a€");
        assert_eq!(reason_text(b"x \n\r\t"), "x");
        assert_eq!(reason_text(b"bad \xff byte"), "bad \u{fffd} byte");
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
