//! Runs every case of every `vectors/**/*.json` through this crate, natively.
//!
//! A Rust maintainer needs no Python: `cargo test -p hanzo-conformance`. The
//! `comparison` rules and `variants` of each file are applied as
//! `docs/architecture.md` defines them. Every mismatch is collected and the test
//! fails once, listing file, case id, chunking variant, JSON pointer, expected and
//! actual. A vector file for a domain this crate does not implement is skipped
//! (listed as such in the output), so a domain can land one platform at a time.
//! `HANZO_CONFORMANCE_VECTORS=<folder>` runs another folder's vectors instead.
//! Like the harness, the loader checks every input (and every variant of it)
//! against the domain's `$defs.input` first: the JSON layers trust their input.
//! Each case runs under a time limit (`CASE_TIME_LIMIT`, or `HANZO_CASE_TIMEOUT_S`
//! seconds): a case that never returns is reported by name, and the run goes on.
//! `HANZO_CONFORMANCE_FAIL_FAST=1` stops at the first failing case: a mutation run
//! only needs to know that some case fails.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use hanzo_conformance::batch::catch_crash;
use hanzo_conformance::time_limit::{run_with_time_limit, Limited};
use hanzo_conformance::vectors::{check_case, Mismatch, RunResult, VectorFile};
use serde_json::Value;

/// How long one case (with all its variants) may take before it is reported as hanging.
const CASE_TIME_LIMIT: Duration = Duration::from_secs(10);

fn case_time_limit() -> Duration {
    std::env::var("HANZO_CASE_TIMEOUT_S")
        .ok()
        .and_then(|s| s.parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s > 0.0)
        .map_or(CASE_TIME_LIMIT, Duration::from_secs_f64)
}

fn fail_fast() -> bool {
    std::env::var_os("HANZO_CONFORMANCE_FAIL_FAST").is_some_and(|v| v == "1")
}

fn vectors_dir() -> PathBuf {
    std::env::var_os("HANZO_CONFORMANCE_VECTORS").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../vectors"),
        PathBuf::from,
    )
}

/// Every `*.json` under `dir`, recursively, sorted.
fn vector_paths(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(next) = pending.pop() {
        let entries = std::fs::read_dir(&next)
            .unwrap_or_else(|e| panic!("cannot list {}: {e}", next.display()));
        for entry in entries {
            let path = entry.expect("directory entry").path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|ext| ext == "json") {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

/// A validator for `schemas/<domain>.schema.json`'s `$defs.input`.
fn input_validator(domain: &str) -> Result<jsonschema::Validator, String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../schemas")
        .join(format!("{domain}.schema.json"));
    let text = std::fs::read_to_string(&path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let schema: Value =
        serde_json::from_str(&text).map_err(|e| format!("{}: bad JSON: {e}", path.display()))?;
    let input = serde_json::json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$defs": schema["$defs"],
        "$ref": "#/$defs/input",
    });
    jsonschema::validator_for(&input).map_err(|e| format!("{}: {e}", path.display()))
}

/// Run one input, turning a panic into a crash message with its location (the run
/// goes on); the same capture the binding uses for the harness.
fn run_guarded(domain: &str, input: &Value) -> RunResult {
    catch_crash(|| hanzo_conformance::run_case(domain, input)).map_err(|crash| {
        // "panicked at <location>: <message>"; the backtrace after it is left out.
        crash.detail.lines().next().unwrap_or_default().to_owned()
    })
}

struct Report {
    /// (file, problem) for files that could not be checked at all.
    file_problems: Vec<(String, String)>,
    /// (file, mismatch).
    mismatches: Vec<(String, Mismatch)>,
    /// (file, why) for files of a domain this platform does not implement.
    skipped: Vec<(String, String)>,
    cases: usize,
}

impl Report {
    fn failed(&self) -> bool {
        !self.file_problems.is_empty() || !self.mismatches.is_empty()
    }
}

fn check_file(path: &Path, report: &mut Report, limit: Duration) {
    let name = path.strip_prefix(vectors_dir()).map_or_else(
        |_| path.display().to_string(),
        |p| format!("vectors/{}", p.display()),
    );
    let parsed = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read: {e}"))
        .and_then(|text| serde_json::from_str::<Value>(&text).map_err(|e| format!("bad JSON: {e}")))
        .and_then(|document| VectorFile::from_json(&document));
    let file = match parsed {
        Ok(file) => file,
        Err(problem) => {
            report.file_problems.push((name, problem));
            return;
        }
    };
    if !hanzo_conformance::domains().any(|d| d == file.domain) {
        report.skipped.push((
            name,
            format!(
                "skipped: domain {:?} ({} cases) is not implemented by the rust platform",
                file.domain,
                file.cases.len()
            ),
        ));
        return;
    }
    let validator = match input_validator(&file.domain) {
        Ok(validator) => Arc::new(validator),
        Err(problem) => {
            report.file_problems.push((name, problem));
            return;
        }
    };
    let file = Arc::new(file);
    for index in 0..file.cases.len() {
        report.cases += 1;
        let (shared, validator) = (Arc::clone(&file), Arc::clone(&validator));
        let checked = run_with_time_limit(limit, move || {
            let case = &shared.cases[index];
            check_case(&shared, case, |input| match validator.validate(input) {
                Ok(()) => run_guarded(&shared.domain, input),
                Err(e) => Err(format!(
                    "not run: the input does not match $defs.input at {}: {e}",
                    e.instance_path
                )),
            })
        });
        let case = &file.cases[index].id;
        match checked {
            Limited::Done(found) => report
                .mismatches
                .extend(found.into_iter().map(|m| (name.clone(), m))),
            Limited::Panicked(message) => report.file_problems.push((
                name.clone(),
                format!("case {case}: the checker panicked: {message}"),
            )),
            Limited::TimedOut => report.file_problems.push((
                name.clone(),
                format!("case {case}: no result within {limit:?} (it hangs?); the run went on"),
            )),
        }
        if fail_fast() && report.failed() {
            return;
        }
    }
}

#[test]
fn every_vector_passes() {
    let paths = vector_paths(&vectors_dir());
    assert!(
        !paths.is_empty(),
        "no vector files under {}",
        vectors_dir().display()
    );

    // Panics are reported per case: catch_crash records them instead of printing.
    let mut report = Report {
        file_problems: Vec::new(),
        mismatches: Vec::new(),
        skipped: Vec::new(),
        cases: 0,
    };
    for path in &paths {
        check_file(path, &mut report, case_time_limit());
        if fail_fast() && report.failed() {
            break;
        }
    }

    println!(
        "{} vector files, {} cases checked, {} files skipped",
        paths.len(),
        report.cases,
        report.skipped.len()
    );
    for (file, why) in &report.skipped {
        println!("{file}: {why}");
    }
    if !report.failed() {
        return;
    }
    let mut text = String::new();
    for (file, problem) in &report.file_problems {
        let _ = writeln!(text, "{file}: {problem}");
    }
    for (file, m) in &report.mismatches {
        let pointer = if m.pointer.is_empty() {
            "(whole result)"
        } else {
            &m.pointer
        };
        let _ = writeln!(
            text,
            "{file} :: {} [{}] at {pointer}\n    expected: {}\n    actual:   {}",
            m.case, m.variant, m.expected, m.actual
        );
    }
    panic!(
        "{} file problem(s), {} mismatch(es) in {} cases:\n{text}",
        report.file_problems.len(),
        report.mismatches.len(),
        report.cases
    );
}

/// With the `test-doubles` feature, an input can make the crate hang: the runner
/// names that case and still checks the others.
#[cfg(feature = "test-doubles")]
#[test]
fn a_hanging_case_is_reported_by_name() {
    let case = |id: &str, server: &str| {
        serde_json::json!({"id": id, "input": {"op": "normalize", "server": server, "tool": "b"},
                           "expected": {"name": format!("mcp__{server}__b")}})
    };
    let document = serde_json::json!({"domain": "mcp-normalization", "cases": [
        case("before", "a"), case("loops", "hanzo-test-loop"), case("after", "z"),
    ]});
    let path = std::env::temp_dir().join(format!("hanging-{}.json", std::process::id()));
    std::fs::write(&path, document.to_string()).expect("write a temporary vector file");
    let mut report = Report {
        file_problems: Vec::new(),
        mismatches: Vec::new(),
        skipped: Vec::new(),
        cases: 0,
    };
    check_file(&path, &mut report, Duration::from_millis(200));
    let _ = std::fs::remove_file(&path);
    assert_eq!(report.cases, 3);
    assert!(report.mismatches.is_empty(), "{:?}", report.mismatches);
    assert_eq!(report.file_problems.len(), 1, "{:?}", report.file_problems);
    assert!(
        report.file_problems[0]
            .1
            .starts_with("case loops: no result within 200ms"),
        "{:?}",
        report.file_problems
    );
}
