//! `backoff-timing`: run `steps` (or `attempts` times `"next"`) on one
//! [`hanzo_backoff::Backoff`] and report the delays (BACKOFF-6).

use hanzo_backoff::{
    check_bounds, Backoff, BackoffError, Jitter, RandomSource, SampleSequence, MAX_SAFE_MS,
};
use serde_json::{json, Value};

use crate::{schema_invalid, CaseError};

enum Step {
    Next,
    Reset,
}

fn contract(err: &BackoffError) -> CaseError {
    CaseError::new(err.code(), err.to_string())
}

/// A whole JSON number in `[0, 2^53 - 1]` (written `100` or `100.0`), else the
/// domain error `invalid` makes from the value's text (BACKOFF-1, BACKOFF-6).
fn millis(
    input: &Value,
    field: &str,
    invalid: fn(String) -> BackoffError,
) -> Result<u64, CaseError> {
    let value = input.get(field).unwrap_or_else(|| schema_invalid(field));
    if let Some(whole) = value.as_u64() {
        // Values above 2^53 - 1 are rejected by hanzo_backoff::check_bounds.
        return Ok(whole);
    }
    let number = value.as_f64().unwrap_or_else(|| schema_invalid(field));
    #[allow(clippy::cast_precision_loss)] // 2^53 - 1 converts exactly
    let in_range = number >= 0.0 && number <= MAX_SAFE_MS as f64 && number.fract() == 0.0;
    if in_range {
        // Whole and within [0, 2^53 - 1]: the conversion is exact.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        return Ok(number as u64);
    }
    Err(contract(&invalid(value.to_string())))
}

fn steps(input: &Value) -> Result<Vec<Step>, CaseError> {
    match (input.get("attempts"), input.get("steps")) {
        (Some(attempts), None) => {
            let n = attempts
                .as_u64()
                .and_then(|n| usize::try_from(n).ok())
                .unwrap_or_else(|| schema_invalid("input.attempts must be a non-negative integer"));
            Ok((0..n).map(|_| Step::Next).collect())
        }
        (None, Some(steps)) => steps
            .as_array()
            .unwrap_or_else(|| schema_invalid("input.steps must be a list"))
            .iter()
            .map(|step| match step.as_str() {
                Some("next") => Ok(Step::Next),
                Some("reset") => Ok(Step::Reset),
                _ => schema_invalid("input.steps items must be \"next\" or \"reset\""),
            })
            .collect(),
        _ => schema_invalid("exactly one of input.attempts and input.steps"),
    }
}

fn samples(input: &Value) -> Option<Vec<f64>> {
    let samples = input
        .get("samples")?
        .as_array()
        .unwrap_or_else(|| schema_invalid("input.samples must be a list"))
        .iter()
        .map(|s| {
            s.as_f64()
                .unwrap_or_else(|| schema_invalid("input.samples must hold numbers"))
        })
        .collect();
    Some(samples)
}

fn play<R: RandomSource>(mut backoff: Backoff<R>, steps: &[Step]) -> Result<Vec<u64>, CaseError> {
    let mut delays = Vec::new();
    for step in steps {
        match step {
            Step::Next => delays.push(backoff.try_next_delay_ms().map_err(|e| contract(&e))?),
            Step::Reset => backoff.reset(),
        }
    }
    Ok(delays)
}

/// `{base_ms, max_ms, jitter, samples?, attempts | steps}` to `{"delays_ms": [...]}`.
///
/// # Errors
/// The BACKOFF-1 / BACKOFF-4 contract errors in the contract's order.
pub fn run(input: &Value) -> Result<Value, CaseError> {
    let base_ms = millis(input, "base_ms", BackoffError::InvalidBaseMs)?;
    let max_ms = millis(input, "max_ms", BackoffError::InvalidMaxMs)?;
    check_bounds(base_ms, max_ms).map_err(|e| contract(&e))?;
    let jitter: Jitter = input
        .get("jitter")
        .and_then(Value::as_str)
        .unwrap_or_else(|| schema_invalid("input.jitter must be a string"))
        .parse()
        .map_err(|e| contract(&e))?;
    let steps = steps(input)?;
    let delays = match samples(input) {
        Some(samples) => play(
            Backoff::with_random(base_ms, max_ms, jitter, SampleSequence::new(samples))
                .map_err(|e| contract(&e))?,
            &steps,
        )?,
        None => play(
            Backoff::new(base_ms, max_ms, jitter).map_err(|e| contract(&e))?,
            &steps,
        )?,
    };
    Ok(json!({ "delays_ms": delays }))
}
