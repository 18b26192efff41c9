//! One cell of `bench/sse_cells.py` in a fresh process: one parser on one workload
//! and chunking, counts checked, then one warm-up and `RUNS` timed runs; prints one
//! JSON line (bytes, the seconds of each timed run, frames, data code points).
//!
//! ```text
//! BINARY DATA_DIR [--clock wall|cpu] --cell PARSER WORKLOAD CHUNKING RUNS
//! ```
//!
//! Each parser has a binary of its own (`sse-cell-hanzo`, `sse-cell-eventsource-stream`,
//! `sse-cell-memchr`), each including this module: with `codegen-units = 1` and LTO,
//! one binary holding every parser lays each one's code out by the others' sizes, and a
//! change to `hanzo-sse` alone moved eventsource-stream's one-byte cells by 18%
//! (`bench/README.md`, session 20).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use cpu_time::ThreadTime;

const C1_PREFIX: usize = 262_144;

/// Frames and data size one parse produced: code points in the checked run,
/// bytes (`String::len`, free) in the timed runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Counts {
    pub frames: u64,
    pub data: u64,
}

/// How a run measures the data of each frame.
pub type DataSize = fn(&str) -> u64;

/// One parse of the chunks.
pub type Run = fn(&[&[u8]], DataSize) -> Result<Counts, String>;

pub fn code_points(data: &str) -> u64 {
    data.chars().count() as u64
}

pub fn utf8_bytes(data: &str) -> u64 {
    data.len() as u64
}

/// What a run is timed with.
#[derive(Debug, Clone, Copy)]
pub enum Clock {
    Wall,
    /// The thread's CPU time: excludes time spent waiting for a core.
    Cpu,
}

impl Clock {
    /// The clock a `--clock` value names (`wall` or `cpu`).
    pub fn named(name: Option<&str>) -> Option<Self> {
        match name? {
            "wall" => Some(Self::Wall),
            "cpu" => Some(Self::Cpu),
            _ => None,
        }
    }
}

/// Seconds one parse took by `clock`, and its counts.
pub fn seconds(
    clock: Clock,
    parse: impl Fn() -> Result<Counts, String>,
) -> Result<(f64, Counts), String> {
    let (elapsed, got): (Duration, Counts) = match clock {
        Clock::Wall => {
            let start = Instant::now();
            let got = parse()?;
            (start.elapsed(), got)
        }
        Clock::Cpu => {
            let start = ThreadTime::now();
            let got = parse()?;
            (start.elapsed(), got)
        }
    };
    Ok((elapsed.as_secs_f64(), got))
}

fn chunks<'a>(
    dir: &Path,
    data: &'a [u8],
    workload: &str,
    chunking: &str,
) -> Result<Vec<&'a [u8]>, String> {
    Ok(match chunking {
        "c64k" => data.chunks(65_536).collect(),
        "c1" => data.get(..C1_PREFIX).unwrap_or(data).chunks(1).collect(),
        "rand512" => {
            let plan = std::fs::read(dir.join(format!("{workload}.sse.rand512.u32")))
                .map_err(|e| e.to_string())?;
            let mut rest = data;
            let mut chunks = Vec::new();
            for b in plan.chunks_exact(4) {
                let size = u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize;
                if size > rest.len() {
                    return Err("chunk plan runs past the file".to_owned());
                }
                let (chunk, after) = rest.split_at(size);
                chunks.push(chunk);
                rest = after;
            }
            if !rest.is_empty() {
                return Err("chunk plan does not cover the file".to_owned());
            }
            chunks
        }
        other => return Err(format!("unknown chunking {other}")),
    })
}

fn cell(dir: &Path, args: &[String], clock: Clock, parsers: &[(&str, Run)]) -> Result<(), String> {
    let [parser, workload, chunking, runs] = args else {
        return Err("--cell needs PARSER WORKLOAD CHUNKING RUNS".to_owned());
    };
    let Some(&(_, run)) = parsers.iter().find(|(name, _)| name == parser) else {
        let known: Vec<&str> = parsers.iter().map(|(name, _)| *name).collect();
        return Err(format!(
            "unknown parser {parser} (this binary runs {})",
            known.join(", ")
        ));
    };
    let runs: usize = runs.parse().map_err(|_| "RUNS must be a number")?;
    let data = std::fs::read(dir.join(format!("{workload}.sse"))).map_err(|e| e.to_string())?;
    let chunks = chunks(dir, &data, workload, chunking)?;
    let bytes: usize = chunks.iter().map(|c| c.len()).sum();
    // The warm-up run, with code points counted for the driver's check.
    let checked = run(&chunks, code_points)?;
    let mut timed = Vec::with_capacity(runs);
    for _ in 0..runs {
        let (elapsed, got) = seconds(clock, || run(&chunks, utf8_bytes))?;
        if got.frames != checked.frames {
            return Err("frame counts differ between runs".to_owned());
        }
        timed.push(elapsed);
    }
    println!(
        "{}",
        serde_json::json!({
            "bytes": bytes,
            "seconds": timed,
            "frames": checked.frames,
            "data_chars": checked.data,
        })
    );
    Ok(())
}

/// The binary's `main`: `parsers` are the ones it runs, by name.
pub fn main(parsers: &[(&str, Run)]) -> ExitCode {
    let mut dir = PathBuf::from("/tmp/sse-bench-data");
    let mut clock = Clock::Wall;
    let mut cell_args = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--cell" => cell_args = Some(args.by_ref().take(4).collect::<Vec<_>>()),
            "--clock" => {
                let Some(named) = Clock::named(args.next().as_deref()) else {
                    eprintln!("--clock needs wall or cpu");
                    return ExitCode::FAILURE;
                };
                clock = named;
            }
            _ => dir = PathBuf::from(arg),
        }
    }
    let Some(cell_args) = cell_args else {
        eprintln!("usage: DATA_DIR [--clock wall|cpu] --cell PARSER WORKLOAD CHUNKING RUNS");
        return ExitCode::FAILURE;
    };
    match cell(&dir, &cell_args, clock, parsers) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}
