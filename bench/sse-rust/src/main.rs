//! Throughput of `hanzo_sse::SseFrameBuffer` against the `eventsource-stream` crate
//! on the shared SSE workloads (`/work/shared/bench/README.md`).
//!
//! ```text
//! python3 /work/shared/bench/gen_sse.py --out /tmp/sse-bench-data
//! cargo run --release -p hanzo-sse-bench -- /tmp/sse-bench-data [--reps 7] [--clock cpu] [--workload NAME]...
//! ```
//!
//! The children of `bench/sse_cells.py`, one parser on one cell in a fresh process,
//! are the package's other binaries (`src/bin/`, `src/cell.rs`): one per parser.
//!
//! The three runs of one repetition (hanzo-sse, eventsource-stream, line scan) are
//! back to back, so they share the machine's state at that moment: the speedup and
//! the share of the line scan are taken per repetition (time ratios) and their
//! median is reported (the "paired" columns), beside the median MB/s of each.
//! `--clock cpu` times the thread's CPU time (`CLOCK_THREAD_CPUTIME_ID`), which
//! leaves out the time the thread waits for a core on a shared machine.
//!
//! `hanzo-sse` is driven through `SseFrameBuffer::feed_into` with one reused `Vec`.
//! Both parsers take bytes and decode UTF-8 themselves (`hanzo-sse` since issue 11,
//! `SSE-11`; a lone ASCII byte with no split character pending skips its
//! validator); `eventsource-stream` is driven synchronously with
//! `futures::executor::block_on` over `futures::stream::iter` of byte chunks.
//!
//! Frame counts are checked on every run. `eventsource-stream` follows the WHATWG
//! dispatch rule (a block dispatches iff it had a `data` line), so it must match the
//! manifest's `spec_events` and `spec_data_chars`. `hanzo-sse` follows the HIP-301
//! contract (`SSE-8a`: a block dispatches iff an `event`, `data`, `id` or accepted
//! `retry` line was in it), which no manifest count states exactly (`any_field_events`
//! keeps the last id across blocks), so its frame count is checked against
//! [`contract_counts`], a whole-buffer reference whose `spec_events` is itself
//! checked against the manifest; its data characters must equal `spec_data_chars`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde_json::Value;

// Shared with the cell binaries (src/bin/), each of which includes only its own parser;
// this binary does not use their entry point, nor `hanzo::feed`.
#[allow(dead_code)]
mod cell;
#[allow(dead_code)]
mod run {
    pub mod eventsource_stream;
    pub mod hanzo;
}

use cell::{code_points, seconds, utf8_bytes, Clock, Counts};
use run::{eventsource_stream, hanzo};

const WORKLOADS: [&str; 3] = ["llm-tokens", "big-multiline", "mixed-endings"];
const C1_PREFIX: usize = 262_144;

fn run_memchr_scan(chunks: &[&[u8]]) -> Counts {
    let mut endings = 0;
    for chunk in chunks {
        endings += memchr::memchr2_iter(b'\n', b'\r', chunk).count() as u64;
    }
    Counts {
        frames: endings,
        data: 0,
    }
}

/// Whole-buffer reference counts: `(contract frames, spec events)` for the complete
/// (CR/LF-terminated) lines of `text`, a leading BOM dropped.
fn contract_counts(text: &str) -> (u64, u64) {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let (mut frames, mut spec) = (0, 0);
    let (mut touched, mut has_data) = (false, false);
    let mut rest = text;
    while let Some(end) = rest.find(['\r', '\n']) {
        let (line, after) = rest.split_at(end);
        rest = after
            .strip_prefix("\r\n")
            .unwrap_or_else(|| after.get(1..).unwrap_or(""));
        if line.is_empty() {
            frames += u64::from(touched);
            spec += u64::from(has_data);
            (touched, has_data) = (false, false);
            continue;
        }
        let (name, value) = line
            .split_once(':')
            .map_or((line, ""), |(n, v)| (n, v.strip_prefix(' ').unwrap_or(v)));
        match name {
            "data" => (touched, has_data) = (true, true),
            "event" => touched = true,
            "id" if !value.contains('\0') => touched = true,
            "retry" if hanzo_sse::parse_retry(value).is_some() => touched = true,
            _ => {}
        }
    }
    (frames, spec)
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values.get(values.len() / 2).copied().unwrap_or(f64::NAN)
}

fn manifest_count(manifest: &Value, workload: &str, reference: &str, key: &str) -> Option<u64> {
    manifest
        .pointer(&format!("/workloads/{workload}/{reference}/{key}"))?
        .as_u64()
}

/// `(name, bytes parsed, chunks, manifest reference)`.
type Chunking<'a> = (&'static str, &'a [u8], Vec<&'a [u8]>, &'static str);

struct Row {
    workload: &'static str,
    chunking: &'static str,
    /// Median MB/s of each.
    hanzo: f64,
    other: f64,
    limit: f64,
    /// Medians over repetitions of eventsource-stream's time / hanzo-sse's time and
    /// of the line scan's time / hanzo-sse's time in the same repetition.
    speedup: f64,
    share: f64,
    /// The lowest share in one repetition.
    share_min: f64,
    frames: String,
}

/// The three parsers timed `reps` times, interleaved repetition by repetition so
/// that load from other processes hits all three alike; `workload`, `chunking` and
/// `frames` are left empty.
fn time_cell(chunks: &[&[u8]], bytes: usize, reps: usize, clock: Clock) -> Result<Row, String> {
    let (mut hanzo, mut other, mut limit) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..reps {
        hanzo.push(seconds(clock, || hanzo::feed_into(chunks, utf8_bytes))?);
        other.push(seconds(clock, || {
            eventsource_stream::parse(chunks, utf8_bytes)
        })?);
        limit.push(seconds(clock, || Ok(run_memchr_scan(chunks)))?);
    }
    for runs in [&hanzo, &other, &limit] {
        if runs.iter().any(|(_, c)| *c != runs[0].1) {
            return Err("counts differ between repetitions".to_owned());
        }
    }
    #[allow(clippy::cast_precision_loss)] // sizes are far below 2^52
    let megabytes = bytes as f64 / 1e6;
    let speed = |runs: &[(f64, Counts)]| median(runs.iter().map(|(s, _)| megabytes / s).collect());
    let per_rep = |runs: &[(f64, Counts)]| -> Vec<f64> {
        runs.iter()
            .zip(&hanzo)
            .map(|((t, _), (h, _))| t / h)
            .collect()
    };
    let shares = per_rep(&limit);
    Ok(Row {
        workload: "",
        chunking: "",
        hanzo: speed(&hanzo),
        other: speed(&other),
        limit: speed(&limit),
        speedup: median(per_rep(&other)),
        share_min: shares.iter().copied().fold(f64::INFINITY, f64::min),
        share: median(shares),
        frames: String::new(),
    })
}

fn bench_workload(
    dir: &Path,
    manifest: &Value,
    workload: &'static str,
    reps: usize,
    clock: Clock,
) -> Result<Vec<Row>, String> {
    let data = std::fs::read(dir.join(format!("{workload}.sse"))).map_err(|e| e.to_string())?;
    let plan = std::fs::read(dir.join(format!("{workload}.sse.rand512.u32")))
        .map_err(|e| e.to_string())?;
    let sizes: Vec<usize> = plan
        .chunks_exact(4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
        .collect();
    if sizes.iter().sum::<usize>() != data.len() {
        return Err(format!("{workload}: chunk plan does not cover the file"));
    }
    let mut rand512 = Vec::with_capacity(sizes.len());
    let mut rest = data.as_slice();
    for size in sizes {
        let (chunk, after) = rest.split_at(size);
        rand512.push(chunk);
        rest = after;
    }
    let prefix = data.get(..C1_PREFIX).unwrap_or(&data);
    let chunkings: [Chunking<'_>; 3] = [
        (
            "c64k",
            &data,
            data.chunks(65_536).collect(),
            "reference_full",
        ),
        ("rand512", &data, rand512, "reference_full"),
        (
            "c1",
            prefix,
            prefix.chunks(1).collect(),
            "reference_c1_prefix",
        ),
    ];
    let mut rows = Vec::new();
    for (chunking, whole, chunks, reference) in chunkings {
        let want = |key| {
            manifest_count(manifest, workload, reference, key)
                .ok_or_else(|| format!("manifest has no {workload}/{reference}/{key}"))
        };
        let (spec_events, spec_chars) = (want("spec_events")?, want("spec_data_chars")?);
        let text = String::from_utf8_lossy(whole);
        let (contract_frames, reference_spec) = contract_counts(&text);
        if reference_spec != spec_events {
            return Err(format!(
                "{workload}/{chunking}: whole-buffer reference finds {reference_spec} spec \
                 events, manifest says {spec_events}"
            ));
        }
        let hanzo_want = Counts {
            frames: contract_frames,
            data: spec_chars,
        };
        let other_want = Counts {
            frames: spec_events,
            data: spec_chars,
        };
        // Checked once with code points; the timed runs below count bytes and must agree
        // with each other.
        let hanzo_counts = hanzo::feed_into(&chunks, code_points)?;
        let other_counts = eventsource_stream::parse(&chunks, code_points)?;
        if hanzo_counts != hanzo_want {
            return Err(format!(
                "{workload}/{chunking}: hanzo-sse {hanzo_counts:?}, expected {hanzo_want:?}"
            ));
        }
        if other_counts != other_want {
            return Err(format!(
                "{workload}/{chunking}: eventsource-stream {other_counts:?}, expected {other_want:?}"
            ));
        }
        let timed = time_cell(&chunks, whole.len(), reps, clock)
            .map_err(|e| format!("{workload}/{chunking}: {e}"))?;
        rows.push(Row {
            workload,
            chunking,
            frames: format!("{contract_frames} / {spec_events}"),
            ..timed
        });
    }
    Ok(rows)
}

/// Print one table row (and, after `c1`, the per-byte comparison with `c64k`) and
/// note every goal the row misses in `slow`.
fn report(row: &Row, c64k: &mut HashMap<&'static str, f64>, slow: &mut Vec<String>) {
    println!(
        "| {} | {} | {:.1} | {:.1} | {:.2}x | {:.1} | {:.1}% (lowest {:.1}%) | {} |",
        row.workload,
        row.chunking,
        row.hanzo,
        row.other,
        row.speedup,
        row.limit,
        100.0 * row.share,
        100.0 * row.share_min,
        row.frames
    );
    if row.share < 0.25 {
        slow.push(format!(
            "{}/{}: below 25% of the memchr line scan",
            row.workload, row.chunking
        ));
    }
    if row.chunking == "c64k" && row.speedup < 5.0 {
        slow.push(format!(
            "{}/c64k: less than 5x eventsource-stream",
            row.workload
        ));
    }
    if row.speedup <= 1.0 {
        slow.push(format!(
            "{}/{}: not faster than eventsource-stream",
            row.workload, row.chunking
        ));
    }
    match row.chunking {
        "c64k" => {
            c64k.insert(row.workload, row.hanzo);
        }
        "c1" => {
            let ratio = c64k
                .get(row.workload)
                .map_or(f64::NAN, |full| full / row.hanzo);
            println!("|  | c64k/c1 per byte | {ratio:.2}x slower at c1 | | | | | |");
            if ratio.is_nan() || ratio > 10.0 {
                slow.push(format!(
                    "{}: c1 is {ratio:.1}x slower per byte than c64k",
                    row.workload
                ));
            }
        }
        _ => {}
    }
}

fn main() -> ExitCode {
    let mut dir = PathBuf::from("/tmp/sse-bench-data");
    let mut reps = 7;
    let mut clock = Clock::Wall;
    let mut only = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--workload" => only.extend(args.next()),
            "--clock" => {
                let Some(named) = Clock::named(args.next().as_deref()) else {
                    eprintln!("--clock needs wall or cpu");
                    return ExitCode::FAILURE;
                };
                clock = named;
            }
            "--reps" => match args.next().and_then(|n| n.parse().ok()) {
                Some(n) if n > 0 => reps = n,
                _ => {
                    eprintln!("--reps needs a positive number");
                    return ExitCode::FAILURE;
                }
            },
            _ => dir = PathBuf::from(arg),
        }
    }
    let manifest: Value = match std::fs::read_to_string(dir.join("manifest.json"))
        .map_err(|e| e.to_string())
        .and_then(|t| serde_json::from_str(&t).map_err(|e| e.to_string()))
    {
        Ok(m) => m,
        Err(e) => {
            eprintln!(
                "cannot read {}/manifest.json ({e}); generate the data with gen_sse.py",
                dir.display()
            );
            return ExitCode::FAILURE;
        }
    };
    println!(
        "median MB/s (10^6 bytes/s) of {reps} runs, {clock:?} clock; speedup and share of the scan: \
         median over repetitions of the time ratio in one repetition; \
         frames = hanzo-sse (contract) / eventsource-stream (spec)\n"
    );
    println!("| workload | chunking | hanzo-sse | eventsource-stream | speedup (paired) | memchr scan | hanzo-sse / scan (paired) | frames |");
    println!("|---|---|---|---|---|---|---|---|");
    let mut c64k = HashMap::new();
    let mut slow = Vec::new();
    for workload in WORKLOADS {
        if !only.is_empty() && !only.iter().any(|w| w == workload) {
            continue;
        }
        let rows = match bench_workload(&dir, &manifest, workload, reps, clock) {
            Ok(rows) => rows,
            Err(e) => {
                eprintln!("{e}");
                return ExitCode::FAILURE;
            }
        };
        for row in rows {
            report(&row, &mut c64k, &mut slow);
        }
    }
    if slow.is_empty() {
        println!(
            "\ngoals met: faster than eventsource-stream everywhere, at least 5x at c64k; \
             at least 25% of the memchr line scan everywhere; c1 within 10x of c64k per byte"
        );
    } else {
        println!("\ngoals missed:\n  {}", slow.join("\n  "));
    }
    ExitCode::SUCCESS
}
