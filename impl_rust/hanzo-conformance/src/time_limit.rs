//! A time limit per case for the native vector runner (`tests/vectors.rs`): a case
//! that never returns is reported by name instead of hanging `cargo test`.
//!
//! A thread cannot be killed, so a case that runs past its limit is left running on
//! its own thread; the runner reports it and goes on, and the test process ends
//! (taking that thread with it) once every case was checked.

use std::panic::{self, AssertUnwindSafe};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::thread;
use std::time::Duration;

/// How a run under a time limit ended.
#[derive(Debug, PartialEq, Eq)]
pub enum Limited<T> {
    /// It returned this value.
    Done(T),
    /// It panicked with this message.
    Panicked(String),
    /// It had not returned when the limit passed.
    TimedOut,
}

fn payload_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(ToString::to_string)
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "panic with a non-string payload".to_owned())
}

/// Run `f` on a thread of its own and wait at most `limit` for it.
pub fn run_with_time_limit<T: Send + 'static>(
    limit: Duration,
    f: impl FnOnce() -> T + Send + 'static,
) -> Limited<T> {
    let (sender, receiver) = mpsc::channel();
    let spawned = thread::Builder::new()
        .name("vector-case".to_owned())
        .spawn(move || {
            // The receiver is gone only if the case timed out: nobody to tell then.
            let _ = sender.send(panic::catch_unwind(AssertUnwindSafe(f)));
        });
    if let Err(error) = spawned {
        return Limited::Panicked(format!("cannot start a thread for the case: {error}"));
    }
    match receiver.recv_timeout(limit) {
        Ok(Ok(value)) => Limited::Done(value),
        Ok(Err(payload)) => Limited::Panicked(payload_message(payload.as_ref())),
        Err(RecvTimeoutError::Timeout) => Limited::TimedOut,
        Err(RecvTimeoutError::Disconnected) => {
            Limited::Panicked("the case's thread ended without a result".to_owned())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_comes_back() {
        assert_eq!(
            run_with_time_limit(Duration::from_secs(10), || 41 + 1),
            Limited::Done(42)
        );
    }

    #[test]
    fn a_panic_comes_back_as_its_message() {
        let limited = run_with_time_limit(Duration::from_secs(10), || -> u8 {
            panic!("case {} broke", 7)
        });
        assert_eq!(limited, Limited::Panicked("case 7 broke".to_owned()));
    }

    #[test]
    fn a_run_past_the_limit_times_out_without_waiting_for_it() {
        let started = std::time::Instant::now();
        let limited = run_with_time_limit(Duration::from_millis(50), || {
            thread::sleep(Duration::from_secs(3600));
        });
        assert_eq!(limited, Limited::TimedOut);
        assert!(started.elapsed() < Duration::from_secs(60));
    }
}
