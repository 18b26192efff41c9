//! When an HTTP client retries a failed request, and how long it waits first.
//!
//! HIP-301 sections 2 (`ApiClient`) and 16 (`hanzo-backoff`); the contract is
//! `docs/domains/http-retry.md`. The default backoff is [`hanzo_backoff`]'s.
//!
//! ```
//! use hanzo_retry::{decide, Context, DelaySource, Failure, Reason, Request, Response};
//!
//! let failure = Failure::Response(Response::new(429, [("Retry-After", "20")]));
//! let request = Request::new("POST", 2);
//! let decision = decide(&failure, &request, Context { attempt: 0, now_ms: 0, sample: 0.5 })?;
//! assert_eq!(decision.delay_ms, Some(20_000));
//! assert_eq!(decision.reason, Reason::RetryableStatus);
//! assert_eq!(decision.delay_source, Some(DelaySource::RetryAfter));
//! # Ok::<(), hanzo_backoff::BackoffError>(())
//! ```

mod date;

use hanzo_backoff::{cap_ms, Backoff, BackoffError, Jitter, SampleSequence};

pub use date::parse_http_date;

/// The default backoff's base: the Stainless SDKs' `INITIAL_RETRY_DELAY`.
pub const BASE_MS: u64 = 500;
/// The default backoff's ceiling: the Stainless SDKs' `MAX_RETRY_DELAY`.
pub const MAX_MS: u64 = 8000;
/// The longest server-directed delay honoured (RETRY-7).
pub const RETRY_AFTER_CAP_MS: u64 = 60_000;
/// The idempotent methods of RFC 9110 §9.2.2 (case-sensitive).
pub const IDEMPOTENT_METHODS: [&str; 6] = ["GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"];

/// A response: its status and its header fields as received, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Response {
    /// The status code.
    pub status: u16,
    /// `(name, value)` pairs in the order received.
    pub headers: Vec<(String, String)>,
}

impl Response {
    /// A response with these fields.
    pub fn new<N: Into<String>, V: Into<String>>(
        status: u16,
        headers: impl IntoIterator<Item = (N, V)>,
    ) -> Self {
        Self {
            status,
            headers: headers
                .into_iter()
                .map(|(n, v)| (n.into(), v.into()))
                .collect(),
        }
    }
}

/// A failure without a response (RETRY-4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TransportError {
    /// No connection could be made: the request was never sent.
    Connect,
    /// No response in time: the request may have been applied.
    Timeout,
}

/// What came back from one attempt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// A response (which may not be a failure at all: RETRY-1 step 0).
    Response(Response),
    /// A transport error.
    Error(TransportError),
}

/// The request being retried.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// The method, case-sensitive (RFC 9110 §9.1).
    pub method: String,
    /// How many retries the caller allows.
    pub max_retries: u64,
    /// Whether the request carries an idempotency key (RETRY-5).
    pub idempotency_key: bool,
}

impl Request {
    /// A request without an idempotency key.
    pub fn new(method: impl Into<String>, max_retries: u64) -> Self {
        Self {
            method: method.into(),
            max_retries,
            idempotency_key: false,
        }
    }
}

/// The injected state of one decision.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Context {
    /// Retries already made for this request.
    pub attempt: u64,
    /// Milliseconds since the Unix epoch.
    pub now_ms: i64,
    /// The jitter sample, drawn only by the default backoff (RETRY-6).
    pub sample: f64,
}

/// Why a decision came out as it did (RETRY-1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(missing_docs)] // each is the contract's reason of the same name
pub enum Reason {
    RetriesExhausted,
    ServerDeclined,
    ServerRequested,
    NotAnError,
    StatusNotRetryable,
    NotIdempotent,
    RetryableStatus,
    RetryableError,
    RetryAfterExceedsCap,
}

impl Reason {
    /// The contract's name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::RetriesExhausted => "retries_exhausted",
            Self::ServerDeclined => "server_declined",
            Self::ServerRequested => "server_requested",
            Self::NotAnError => "not_an_error",
            Self::StatusNotRetryable => "status_not_retryable",
            Self::NotIdempotent => "not_idempotent",
            Self::RetryableStatus => "retryable_status",
            Self::RetryableError => "retryable_error",
            Self::RetryAfterExceedsCap => "retry_after_exceeds_cap",
        }
    }
}

/// Where a retry's delay came from (RETRY-6).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DelaySource {
    /// The `retry-after-ms` field.
    RetryAfterMs,
    /// The `Retry-After` field.
    RetryAfter,
    /// The default backoff.
    Backoff,
}

impl DelaySource {
    /// The contract's name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::RetryAfterMs => "retry-after-ms",
            Self::RetryAfter => "retry-after",
            Self::Backoff => "backoff",
        }
    }
}

/// Retry or not, and after how long.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decision {
    /// Whether to retry.
    pub retry: bool,
    /// The delay in milliseconds, exactly when retrying.
    pub delay_ms: Option<u64>,
    /// Why.
    pub reason: Reason,
    /// Where the delay came from, exactly when retrying.
    pub delay_source: Option<DelaySource>,
}

impl Decision {
    fn no(reason: Reason) -> Self {
        Self {
            retry: false,
            delay_ms: None,
            reason,
            delay_source: None,
        }
    }
}

fn trim_ows(value: &str) -> &str {
    value.trim_matches([' ', '\t'])
}

/// RETRY-9: the trimmed value of a singleton field; `None` if absent or conflicting.
fn field<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    let mut found: Option<&str> = None;
    for (key, value) in headers {
        if key.eq_ignore_ascii_case(name) {
            let value = trim_ows(value);
            match found {
                Some(earlier) if earlier != value => return None,
                _ => found = Some(value),
            }
        }
    }
    found
}

pub(crate) fn is_digits(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit())
}

/// A digit string's value, saturating at `u64::MAX` (which is above every cap).
fn saturating_number(digits: &str) -> u64 {
    digits.bytes().fold(0u64, |n, b| {
        n.saturating_mul(10).saturating_add(u64::from(b - b'0'))
    })
}

/// RETRY-7: `1*DIGIT ["." 1*DIGIT]`, rounded up to a whole millisecond.
fn retry_after_ms(value: &str) -> Option<u64> {
    let (whole, fraction) = match value.split_once('.') {
        Some((whole, fraction)) => (whole, Some(fraction)),
        None => (value, None),
    };
    if !is_digits(whole) || fraction.is_some_and(|f| !is_digits(f)) {
        return None;
    }
    let round_up = fraction.is_some_and(|f| f.bytes().any(|b| b != b'0'));
    Some(saturating_number(whole).saturating_add(u64::from(round_up)))
}

/// RETRY-6/7: the delay the server directed, from the first valid field.
fn server_delay(headers: &[(String, String)], now_ms: i64) -> Option<(u64, DelaySource)> {
    if let Some(delay) = field(headers, "retry-after-ms").and_then(retry_after_ms) {
        return Some((delay, DelaySource::RetryAfterMs));
    }
    let value = field(headers, "retry-after")?;
    if is_digits(value) {
        return Some((
            saturating_number(value).saturating_mul(1000),
            DelaySource::RetryAfter,
        ));
    }
    let date_ms = parse_http_date(value, now_ms)?;
    // A date not after now: the wait is over.
    let delay = u64::try_from(date_ms.saturating_sub(now_ms)).unwrap_or(0);
    Some((delay, DelaySource::RetryAfter))
}

fn retryable_status(status: u16) -> bool {
    matches!(status, 408 | 409 | 429)
        || ((500..=599).contains(&status) && !matches!(status, 501 | 505))
}

/// RETRY-3, 4 and 5: why the failure is, or is not, eligible for a retry.
fn eligibility(failure: &Failure, request: &Request) -> Reason {
    let safe = request.idempotency_key || IDEMPOTENT_METHODS.contains(&request.method.as_str());
    match failure {
        Failure::Error(kind) => {
            if safe || *kind == TransportError::Connect {
                Reason::RetryableError
            } else {
                Reason::NotIdempotent
            }
        }
        Failure::Response(response) => {
            if field(&response.headers, "x-should-retry") == Some("true") {
                Reason::ServerRequested
            } else if !retryable_status(response.status) {
                Reason::StatusNotRetryable
            } else if safe || matches!(response.status, 408 | 429) {
                Reason::RetryableStatus
            } else {
                Reason::NotIdempotent
            }
        }
    }
}

/// Whether to retry after `failure`, and after how many milliseconds (RETRY-1).
///
/// # Errors
/// `invalid_sample` when the default backoff draws a sample outside `[0, 1)`.
pub fn decide(
    failure: &Failure,
    request: &Request,
    context: Context,
) -> Result<Decision, BackoffError> {
    let headers: &[(String, String)] = match failure {
        Failure::Response(response) if response.status < 400 => {
            return Ok(Decision::no(Reason::NotAnError))
        }
        Failure::Response(response) => &response.headers,
        Failure::Error(_) => &[],
    };
    if context.attempt >= request.max_retries {
        return Ok(Decision::no(Reason::RetriesExhausted));
    }
    if field(headers, "x-should-retry") == Some("false") {
        return Ok(Decision::no(Reason::ServerDeclined));
    }
    let reason = eligibility(failure, request);
    if !matches!(
        reason,
        Reason::ServerRequested | Reason::RetryableStatus | Reason::RetryableError
    ) {
        return Ok(Decision::no(reason));
    }
    if let Some((delay, source)) = server_delay(headers, context.now_ms) {
        if delay > RETRY_AFTER_CAP_MS {
            return Ok(Decision::no(Reason::RetryAfterExceedsCap));
        }
        return Ok(Decision {
            retry: true,
            delay_ms: Some(delay),
            reason,
            delay_source: Some(source),
        });
    }
    // backoff-timing at attempt k: a one-delay Backoff whose base and max are cap(k)
    // draws the sample, checks it (BACKOFF-4) and applies floor(s * cap) (BACKOFF-3).
    // cap(k) is constant from k = 53 on, so saturating the attempt changes nothing.
    let cap = cap_ms(
        BASE_MS,
        MAX_MS,
        u32::try_from(context.attempt).unwrap_or(u32::MAX),
    );
    let mut backoff = Backoff::with_random(
        cap,
        cap,
        Jitter::Full,
        SampleSequence::new(vec![context.sample]),
    )?;
    Ok(Decision {
        retry: true,
        delay_ms: Some(backoff.try_next_delay_ms()?),
        reason,
        delay_source: Some(DelaySource::Backoff),
    })
}

/// The retries of one request: each [`RetryPolicy::decide`] is the next attempt's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetryPolicy {
    request: Request,
    attempt: u64,
}

impl RetryPolicy {
    /// A policy at attempt 0.
    pub fn new(request: Request) -> Self {
        Self {
            request,
            attempt: 0,
        }
    }

    /// Retries made so far.
    pub fn attempt(&self) -> u64 {
        self.attempt
    }

    /// Decide on the latest failure; a retry advances the attempt.
    ///
    /// # Errors
    /// As [`decide`].
    pub fn decide(
        &mut self,
        failure: &Failure,
        now_ms: i64,
        sample: f64,
    ) -> Result<Decision, BackoffError> {
        let context = Context {
            attempt: self.attempt,
            now_ms,
            sample,
        };
        let decision = decide(failure, &self.request, context)?;
        if decision.retry {
            self.attempt = self.attempt.saturating_add(1);
        }
        Ok(decision)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn response(status: u16) -> Failure {
        Failure::Response(Response {
            status,
            headers: Vec::new(),
        })
    }

    // The JSON layer reports decisions only and a sequence stops at its first no-retry,
    // so no vector reads the attempt or decides after a no-retry.
    #[test]
    fn a_policys_attempt_advances_on_a_retry_only() {
        let mut policy = RetryPolicy::new(Request::new("GET", 3));
        assert_eq!(policy.attempt(), 0);
        assert!(!policy.decide(&response(400), 0, 0.5).unwrap().retry);
        assert_eq!(policy.attempt(), 0);
        for expected in [1, 2] {
            assert!(policy.decide(&response(503), 0, 0.5).unwrap().retry);
            assert_eq!(policy.attempt(), expected);
        }
    }
}
