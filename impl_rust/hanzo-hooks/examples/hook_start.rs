//! What starting one hook costs the Rust runner, with MB of resident memory beside it.
//!
//!     cargo run --release -p hanzo-hooks --example hook_start -- MB N
//!
//! Runs N pre-hooks `exit 0` after touching MB mebibytes (a process that forks copies
//! its page tables, so a hook's start can grow with the runner's memory) and prints
//! milliseconds per hook: wall, and this process's CPU (utime + stime from
//! /proc/self/stat, every thread; the hooks' own CPU is not in it). bench/README.md
//! ("Starting a hook") has the figures and how old and new were paired.

use std::time::Instant;

use hanzo_hooks::{HookConfig, HookRunner};

/// This process's user + system CPU in clock ticks (fields 14 and 15 of /proc/self/stat).
fn cpu_ticks() -> u64 {
    let stat = std::fs::read_to_string("/proc/self/stat").expect("/proc/self/stat");
    let after_name = stat.rsplit(')').next().unwrap_or_default();
    after_name
        .split_whitespace()
        .skip(11)
        .take(2)
        .map(|ticks| ticks.parse::<u64>().unwrap_or(0))
        .sum()
}

fn main() {
    let mut args = std::env::args()
        .skip(1)
        .map(|a| a.parse::<usize>().expect("MB N"));
    let (mebibytes, hooks) = (args.next().unwrap_or(30), args.next().unwrap_or(300));
    let ballast = vec![1_u8; mebibytes << 20]; // touched, so resident
    let runner = HookRunner::new(vec![HookConfig::new("pre_tool_use", "exit 0", "*")])
        .expect("a valid hook");
    let (ticks, started) = (cpu_ticks(), Instant::now());
    for _ in 0..hooks {
        let result = runner.run_pre("t", &serde_json::json!({}));
        assert!(result.reason.is_none(), "a hook did not allow");
    }
    #[allow(clippy::cast_precision_loss)] // small counts
    let (wall, cpu) = (
        started.elapsed().as_secs_f64() * 1e3 / hooks as f64,
        (cpu_ticks() - ticks) as f64 * 10.0 / hooks as f64, // 100 ticks a second on Linux
    );
    println!(
        "{wall:.3} ms/hook wall, {cpu:.3} ms/hook runner CPU ({hooks} hooks, {} MiB beside)",
        ballast.len() >> 20
    );
}
