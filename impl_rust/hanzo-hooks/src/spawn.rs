//! Starting and reaping a hook process with `posix_spawn(3)` and `waitpid(2)`: HOOK-4, HOOK-14.
//!
//! `std::process::Command` resets only SIGPIPE and passes the spawning thread's signal
//! mask on (rust-lang/rust#101077), so a runner started under `nohup` (SIGHUP ignored)
//! or as a background job (SIGINT ignored) would hand that to every hook. Its only way
//! to change that, a `pre_exec` closure, makes it fork instead of `posix_spawn`, and a
//! fork costs the runner CPU in proportion to its resident memory (bench/README.md,
//! "Starting a hook"). The C library's `posix_spawn` sets the child's signal dispositions
//! (`POSIX_SPAWN_SETSIGDEF`), mask, process group and working directory itself, so this
//! module calls it directly: the crate's only unsafe code.
#![allow(unsafe_code)]

use std::ffi::{CStr, CString};
use std::mem::MaybeUninit;
use std::os::fd::{AsRawFd, BorrowedFd};
use std::os::raw::c_char;
use std::process::ExitStatus;
use std::ptr;

use nix::errno::Errno;
use nix::sys::signal::{SigSet, Signal};
use nix::unistd::Pid;

/// `posix_spawn*` return an error number, 0 for success.
fn check(code: libc::c_int) -> Result<(), Errno> {
    if code == 0 {
        Ok(())
    } else {
        Err(Errno::from_raw(code))
    }
}

/// A NULL-terminated `char *[]` over `strings` (which must outlive it).
fn pointers(strings: &[CString]) -> Vec<*mut c_char> {
    strings
        .iter()
        .map(|s| s.as_ptr().cast_mut())
        .chain(std::iter::once(ptr::null_mut()))
        .collect()
}

/// HOOK-14: the standard signals (1..31) but SIGKILL and SIGSTOP, which have no other
/// disposition.
fn standard_signals() -> SigSet {
    let mut set = SigSet::empty();
    for signal in Signal::iterator() {
        if !matches!(signal, Signal::SIGKILL | Signal::SIGSTOP) {
            set.add(signal);
        }
    }
    set
}

/// Starts `argv` (`argv[0]` an absolute path) with exactly `envp`, in `cwd`, stdin and
/// stdout on /dev/null, stderr on `stderr`, as the leader of a new process group, with
/// the standard signals at their default disposition and an empty signal mask. The
/// error is the child's errno when it could not be started (no such program or
/// working directory).
pub fn spawn(
    argv: &[CString],
    envp: &[CString],
    cwd: Option<&CStr>,
    stderr: BorrowedFd<'_>,
) -> Result<Pid, Errno> {
    let (argv, envp) = (pointers(argv), pointers(envp));
    let devnull = CString::new("/dev/null").unwrap_or_default();
    let (default, empty) = (standard_signals(), SigSet::empty());
    let flags = libc::c_short::try_from(
        libc::POSIX_SPAWN_SETPGROUP | libc::POSIX_SPAWN_SETSIGDEF | libc::POSIX_SPAWN_SETSIGMASK,
    )
    .expect("the flags fit a short");
    let mut actions = MaybeUninit::<libc::posix_spawn_file_actions_t>::uninit();
    let mut attributes = MaybeUninit::<libc::posix_spawnattr_t>::uninit();
    let mut pid: libc::pid_t = 0;
    // SAFETY: `actions` and `attributes` are initialised by their `_init` before any other
    // use and destroyed exactly once, after the last; every pointer passed (paths, the
    // argv and envp arrays with their NULL ends, the sigsets) points to memory owned by
    // this frame that outlives the calls; posix_spawn copies what it needs.
    unsafe {
        check(libc::posix_spawn_file_actions_init(actions.as_mut_ptr()))?;
        if let Err(error) = check(libc::posix_spawnattr_init(attributes.as_mut_ptr())) {
            libc::posix_spawn_file_actions_destroy(actions.as_mut_ptr());
            return Err(error);
        }
        let (fa, attr) = (actions.as_mut_ptr(), attributes.as_mut_ptr());
        let started = (|| {
            // stderr first: it may be 0 or 1 when this process has those closed.
            check(libc::posix_spawn_file_actions_adddup2(
                fa,
                stderr.as_raw_fd(),
                2,
            ))?;
            check(libc::posix_spawn_file_actions_addopen(
                fa,
                0,
                devnull.as_ptr(),
                libc::O_RDONLY,
                0,
            ))?;
            check(libc::posix_spawn_file_actions_addopen(
                fa,
                1,
                devnull.as_ptr(),
                libc::O_WRONLY,
                0,
            ))?;
            if let Some(cwd) = cwd {
                check(libc::posix_spawn_file_actions_addchdir_np(fa, cwd.as_ptr()))?;
            }
            check(libc::posix_spawnattr_setpgroup(attr, 0))?;
            check(libc::posix_spawnattr_setsigdefault(attr, default.as_ref()))?;
            check(libc::posix_spawnattr_setsigmask(attr, empty.as_ref()))?;
            check(libc::posix_spawnattr_setflags(attr, flags))?;
            check(libc::posix_spawn(
                &mut pid,
                argv[0].cast_const(),
                fa,
                attr,
                argv.as_ptr(),
                envp.as_ptr(),
            ))
        })();
        libc::posix_spawnattr_destroy(attr);
        libc::posix_spawn_file_actions_destroy(fa);
        started?;
    }
    Ok(Pid::from_raw(pid))
}

/// Waits for the child `pid` to end (reaping it). `Err` when it cannot be waited for:
/// already reaped, as when this process ignores SIGCHLD.
pub fn wait(pid: Pid) -> Result<ExitStatus, Errno> {
    use std::os::unix::process::ExitStatusExt;
    let mut status: libc::c_int = 0;
    loop {
        // SAFETY: waitpid writes only `status`, an int this frame owns.
        let reaped = unsafe { libc::waitpid(pid.as_raw(), &mut status, 0) };
        match Errno::result(reaped) {
            Ok(_) => return Ok(ExitStatus::from_raw(status)),
            Err(Errno::EINTR) => {}
            Err(error) => return Err(error),
        }
    }
}
