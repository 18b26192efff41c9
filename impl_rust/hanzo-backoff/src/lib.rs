//! Overflow-safe exponential retry backoff with injectable full jitter.
//!
//! HIP-301 ("Rust utility crates", `hanzo-backoff`); the contract is
//! `docs/domains/backoff-timing.md`. Attempt `k` may wait up to
//! `cap(k) = min(max_ms, base_ms * 2^k)` milliseconds, computed with saturating
//! arithmetic so that no attempt count overflows (BACKOFF-2). With
//! [`Jitter::Full`] the delay is `floor(sample * cap(k))` for a sample in
//! `[0, 1)` drawn from a [`RandomSource`] (BACKOFF-3).
//!
//! ```
//! use hanzo_backoff::{Backoff, Jitter, SampleSequence};
//! use std::time::Duration;
//!
//! let mut plain = Backoff::new(100, 1000, Jitter::None)?;
//! let delays: Vec<_> = (0..5).map(|_| plain.next_delay().as_millis()).collect();
//! assert_eq!(delays, [100, 200, 400, 800, 1000]);
//! plain.reset();
//! assert_eq!(plain.next_delay(), Duration::from_millis(100));
//!
//! let mut jittered = Backoff::with_random(100, 1000, Jitter::Full, SampleSequence::new(vec![0.5]))?;
//! assert_eq!(jittered.try_next_delay()?, Duration::from_millis(50));
//! assert_eq!(jittered.try_next_delay().unwrap_err().code(), "samples_exhausted");
//! # Ok::<(), hanzo_backoff::BackoffError>(())
//! ```

use std::collections::hash_map::RandomState;
use std::fmt;
use std::hash::{BuildHasher, Hasher};
use std::str::FromStr;
use std::time::Duration;

/// The largest millisecond count, `2^53 - 1`: exact on every platform (I-JSON).
pub const MAX_SAFE_MS: u64 = (1 << 53) - 1;

/// A contract error of this crate; [`BackoffError::code`] is the stable code.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum BackoffError {
    /// BACKOFF-1: `base_ms` is not an integer in `[0, 2^53 - 1]` (the offending value, as text).
    InvalidBaseMs(String),
    /// BACKOFF-1: `max_ms` is not an integer in `[0, 2^53 - 1]` (the offending value, as text).
    InvalidMaxMs(String),
    /// BACKOFF-1: a jitter name other than `"none"` or `"full"`.
    InvalidJitter(String),
    /// BACKOFF-4: the random source returned a value outside `[0, 1)`.
    InvalidSample(f64),
    /// BACKOFF-4: a [`SampleSequence`] of this many samples was asked for one more.
    SamplesExhausted(usize),
}

impl BackoffError {
    /// The contract's stable error code.
    pub fn code(&self) -> &'static str {
        match self {
            Self::InvalidBaseMs(_) => "invalid_base_ms",
            Self::InvalidMaxMs(_) => "invalid_max_ms",
            Self::InvalidJitter(_) => "invalid_jitter",
            Self::InvalidSample(_) => "invalid_sample",
            Self::SamplesExhausted(_) => "samples_exhausted",
        }
    }
}

impl fmt::Display for BackoffError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::InvalidBaseMs(v) => {
                write!(f, "base_ms must be an integer in [0, 2^53-1], got {v}")
            }
            Self::InvalidMaxMs(v) => write!(f, "max_ms must be an integer in [0, 2^53-1], got {v}"),
            Self::InvalidJitter(name) => {
                write!(f, "jitter must be \"none\" or \"full\", got {name:?}")
            }
            Self::InvalidSample(s) => {
                write!(f, "random source returned {s}, not a value in [0, 1)")
            }
            Self::SamplesExhausted(n) => write!(f, "all {n} recorded samples have been used"),
        }
    }
}

impl std::error::Error for BackoffError {}

/// How a delay is derived from the attempt's cap (BACKOFF-3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Jitter {
    /// The delay is the cap.
    None,
    /// The delay is `floor(sample * cap)`, `sample` in `[0, 1)`.
    #[default]
    Full,
}

impl Jitter {
    /// The contract's name: `"none"` or `"full"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::None => "none",
            Self::Full => "full",
        }
    }
}

impl FromStr for Jitter {
    type Err = BackoffError;

    /// Exactly `"none"` or `"full"` (case-sensitive); anything else is `invalid_jitter`.
    fn from_str(name: &str) -> Result<Self, Self::Err> {
        match name {
            "none" => Ok(Self::None),
            "full" => Ok(Self::Full),
            other => Err(BackoffError::InvalidJitter(other.to_owned())),
        }
    }
}

/// Where full jitter gets its samples (BACKOFF-4).
pub trait RandomSource {
    /// The next sample, which should be in `[0, 1)` (the backoff checks it).
    ///
    /// # Errors
    /// A source that cannot supply a sample, e.g. [`BackoffError::SamplesExhausted`].
    fn sample(&mut self) -> Result<f64, BackoffError>;
}

impl<F: FnMut() -> f64> RandomSource for F {
    fn sample(&mut self) -> Result<f64, BackoffError> {
        Ok(self())
    }
}

/// The default random source: `SplitMix64` seeded from the standard library's
/// per-process random hasher keys. Not cryptographic; jitter does not need it to be.
#[derive(Debug, Clone)]
pub struct SystemRandom {
    state: u64,
}

impl SystemRandom {
    /// A generator with a fresh random seed.
    pub fn new() -> Self {
        let mut hasher = RandomState::new().build_hasher();
        hasher.write_u64(0x5eed);
        Self {
            state: hasher.finish(),
        }
    }

    fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

impl Default for SystemRandom {
    fn default() -> Self {
        Self::new()
    }
}

impl RandomSource for SystemRandom {
    /// A uniform multiple of 2^-53 in `[0, 1)`.
    fn sample(&mut self) -> Result<f64, BackoffError> {
        // 53 random bits, exactly representable; scaled by 2^-53 (exact).
        #[allow(clippy::cast_precision_loss)] // < 2^53: exact
        let bits = (self.next_u64() >> 11) as f64;
        Ok(bits / 9_007_199_254_740_992.0)
    }
}

/// A random source that replays recorded samples in order (BACKOFF-4).
///
/// Values are not checked here; the backoff checks every sample it draws.
#[derive(Debug, Clone, PartialEq)]
pub struct SampleSequence {
    samples: Vec<f64>,
    next: usize,
}

impl SampleSequence {
    /// Replay `samples`, first to last.
    pub fn new(samples: Vec<f64>) -> Self {
        Self { samples, next: 0 }
    }
}

impl RandomSource for SampleSequence {
    fn sample(&mut self) -> Result<f64, BackoffError> {
        let sample = self
            .samples
            .get(self.next)
            .copied()
            .ok_or(BackoffError::SamplesExhausted(self.samples.len()))?;
        self.next += 1;
        Ok(sample)
    }
}

/// BACKOFF-1: check `base_ms` and `max_ms`, in the contract's order. Any
/// `base_ms` may exceed `max_ms`: the cap clamps it (BACKOFF-2).
///
/// # Errors
/// `invalid_base_ms` or `invalid_max_ms` (above `2^53 - 1`).
pub fn check_bounds(base_ms: u64, max_ms: u64) -> Result<(), BackoffError> {
    if base_ms > MAX_SAFE_MS {
        return Err(BackoffError::InvalidBaseMs(base_ms.to_string()));
    }
    if max_ms > MAX_SAFE_MS {
        return Err(BackoffError::InvalidMaxMs(max_ms.to_string()));
    }
    Ok(())
}

/// BACKOFF-2: `min(max_ms, base_ms * 2^attempt)`, exact for every attempt.
///
/// A saturated product is `u64::MAX >= max_ms`, so saturation never changes the
/// minimum; `0 * anything` stays 0.
pub fn cap_ms(base_ms: u64, max_ms: u64, attempt: u32) -> u64 {
    base_ms
        .saturating_mul(2u64.saturating_pow(attempt))
        .min(max_ms)
}

/// BACKOFF-3: `floor(sample * cap)` in binary64, for a checked sample in `[0, 1)`.
fn jittered(sample: f64, cap: u64) -> u64 {
    // cap <= 2^53 - 1, so the conversion is exact.
    #[allow(clippy::cast_precision_loss)]
    let product = sample * cap as f64;
    // product is in [-0.0, cap), so the floor fits in u64 and is non-negative.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let delay = product.floor() as u64;
    delay
}

/// Exponential backoff with optional full jitter (HIP-301 `Backoff`).
#[derive(Debug, Clone)]
pub struct Backoff<R = SystemRandom> {
    base_ms: u64,
    max_ms: u64,
    jitter: Jitter,
    attempt: u32,
    random: R,
}

impl Backoff<SystemRandom> {
    /// A backoff using [`SystemRandom`] for full jitter.
    ///
    /// # Errors
    /// BACKOFF-1, see [`check_bounds`].
    pub fn new(base_ms: u64, max_ms: u64, jitter: Jitter) -> Result<Self, BackoffError> {
        Self::with_random(base_ms, max_ms, jitter, SystemRandom::new())
    }
}

impl<R: RandomSource> Backoff<R> {
    /// A backoff drawing full-jitter samples from `random`.
    ///
    /// # Errors
    /// BACKOFF-1, see [`check_bounds`].
    pub fn with_random(
        base_ms: u64,
        max_ms: u64,
        jitter: Jitter,
        random: R,
    ) -> Result<Self, BackoffError> {
        check_bounds(base_ms, max_ms)?;
        Ok(Self {
            base_ms,
            max_ms,
            jitter,
            attempt: 0,
            random,
        })
    }

    /// The first attempt's cap.
    pub fn base_ms(&self) -> u64 {
        self.base_ms
    }

    /// The ceiling of every cap.
    pub fn max_ms(&self) -> u64 {
        self.max_ms
    }

    /// The jitter mode.
    pub fn jitter(&self) -> Jitter {
        self.jitter
    }

    /// The current attempt `k` (BACKOFF-5): 0 when new or reset.
    pub fn attempt(&self) -> u32 {
        self.attempt
    }

    /// The cap of the current attempt, in milliseconds (BACKOFF-2).
    pub fn cap_ms(&self) -> u64 {
        cap_ms(self.base_ms, self.max_ms, self.attempt)
    }

    /// The current attempt's delay in milliseconds; then advance the attempt.
    ///
    /// # Errors
    /// `invalid_sample` or the random source's error (BACKOFF-4); the attempt is
    /// then not advanced.
    pub fn try_next_delay_ms(&mut self) -> Result<u64, BackoffError> {
        let cap = self.cap_ms();
        let delay = match self.jitter {
            Jitter::None => cap,
            Jitter::Full => {
                let sample = self.random.sample()?;
                if !(0.0..1.0).contains(&sample) {
                    return Err(BackoffError::InvalidSample(sample));
                }
                jittered(sample, cap)
            }
        };
        self.attempt = self.attempt.saturating_add(1);
        Ok(delay)
    }

    /// [`Self::try_next_delay_ms`] as a [`Duration`].
    ///
    /// # Errors
    /// As [`Self::try_next_delay_ms`].
    pub fn try_next_delay(&mut self) -> Result<Duration, BackoffError> {
        self.try_next_delay_ms().map(Duration::from_millis)
    }

    /// The current attempt's delay; then advance the attempt.
    ///
    /// Never fails: if the random source errs or returns a value outside
    /// `[0, 1)`, the delay is the cap (the longest one allowed) and the attempt
    /// still advances. Use [`Self::try_next_delay`] to see such errors.
    pub fn next_delay(&mut self) -> Duration {
        if let Ok(delay) = self.try_next_delay() {
            return delay;
        }
        let cap = self.cap_ms();
        self.attempt = self.attempt.saturating_add(1);
        Duration::from_millis(cap)
    }

    /// Start over at attempt 0 (BACKOFF-5); the random source is left as it is.
    pub fn reset(&mut self) {
        self.attempt = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn delays<R: RandomSource>(backoff: &mut Backoff<R>, n: usize) -> Vec<u64> {
        (0..n)
            .map(|_| backoff.try_next_delay_ms().unwrap())
            .collect()
    }

    #[test]
    fn caps_double_then_clamp() {
        let mut b = Backoff::new(100, 1000, Jitter::None).unwrap();
        assert_eq!(delays(&mut b, 6), [100, 200, 400, 800, 1000, 1000]);
        assert_eq!(b.attempt(), 6);
        b.reset();
        assert_eq!(b.attempt(), 0);
        assert_eq!(b.next_delay(), Duration::from_millis(100));
    }

    #[test]
    fn base_above_max_is_clamped_not_rejected() {
        let mut b = Backoff::new(2000, 1000, Jitter::None).unwrap();
        assert_eq!(delays(&mut b, 3), [1000, 1000, 1000]);
        let mut zero =
            Backoff::with_random(5, 0, Jitter::Full, SampleSequence::new(vec![0.5, 0.99])).unwrap();
        assert_eq!(delays(&mut zero, 2), [0, 0]);
    }

    #[test]
    fn cap_never_overflows() {
        assert_eq!(cap_ms(1, MAX_SAFE_MS, 52), 1 << 52);
        assert_eq!(cap_ms(1, MAX_SAFE_MS, 53), MAX_SAFE_MS);
        for attempt in [60, 63, 64, 65, 2000, u32::MAX] {
            assert_eq!(cap_ms(1000, MAX_SAFE_MS, attempt), MAX_SAFE_MS);
            assert_eq!(cap_ms(MAX_SAFE_MS, MAX_SAFE_MS, attempt), MAX_SAFE_MS);
            assert_eq!(cap_ms(0, MAX_SAFE_MS, attempt), 0);
        }
        // 1000 << 63 would wrap to 0 in unchecked arithmetic.
        assert_eq!(cap_ms(1000, 5000, 63), 5000);
    }

    #[test]
    fn attempt_counter_saturates() {
        let mut b = Backoff::new(1, 10, Jitter::None).unwrap();
        b.attempt = u32::MAX;
        assert_eq!(b.next_delay(), Duration::from_millis(10));
        assert_eq!(b.attempt(), u32::MAX);
    }

    #[test]
    fn full_jitter_is_floor_of_binary64_product() {
        let samples = vec![0.0, 0.5, 0.999_999_999_999_999_9, -0.0];
        let mut b =
            Backoff::with_random(3, 1000, Jitter::Full, SampleSequence::new(samples)).unwrap();
        assert_eq!(delays(&mut b, 4), [0, 3, 11, 0]);
        let mut top = Backoff::with_random(MAX_SAFE_MS, MAX_SAFE_MS, Jitter::Full, || {
            1.0 - f64::EPSILON / 2.0
        })
        .unwrap();
        assert_eq!(top.try_next_delay_ms().unwrap(), MAX_SAFE_MS - 1);
        let mut tricky = Backoff::with_random(100, 100, Jitter::Full, || 0.29).unwrap();
        assert_eq!(tricky.try_next_delay_ms().unwrap(), 28);
        let mut up = Backoff::with_random(10, 10, Jitter::Full, || 0.7).unwrap();
        assert_eq!(up.try_next_delay_ms().unwrap(), 7);
    }

    #[test]
    fn invalid_samples_do_not_advance_try_but_fall_back_to_cap() {
        for bad in [1.0, -0.1, f64::NAN, f64::INFINITY] {
            let mut b = Backoff::with_random(100, 1000, Jitter::Full, move || bad).unwrap();
            assert_eq!(b.try_next_delay().unwrap_err().code(), "invalid_sample");
            assert_eq!(b.attempt(), 0);
            assert_eq!(b.next_delay(), Duration::from_millis(100));
            assert_eq!(b.attempt(), 1);
        }
    }

    #[test]
    fn samples_run_out_and_reset_does_not_rewind() {
        let mut b =
            Backoff::with_random(100, 1000, Jitter::Full, SampleSequence::new(vec![0.5])).unwrap();
        assert_eq!(b.try_next_delay_ms().unwrap(), 50);
        b.reset();
        assert_eq!(b.try_next_delay().unwrap_err().code(), "samples_exhausted");
        assert_eq!(b.next_delay(), Duration::from_millis(100));
    }

    #[test]
    fn parameters_are_checked_in_order() {
        let code = |base, max| Backoff::new(base, max, Jitter::None).unwrap_err().code();
        assert_eq!(code(MAX_SAFE_MS + 1, MAX_SAFE_MS + 1), "invalid_base_ms");
        assert_eq!(code(0, MAX_SAFE_MS + 1), "invalid_max_ms");
        // 2^53 itself is out of range (the schema keeps it out of the vectors).
        assert_eq!(code(1 << 53, 0), "invalid_base_ms");
        assert_eq!(code(0, 1 << 53), "invalid_max_ms");
        assert!(Backoff::new(MAX_SAFE_MS, MAX_SAFE_MS, Jitter::None).is_ok());
        assert!(Backoff::new(0, 0, Jitter::Full).is_ok());
        assert_eq!(
            "Full".parse::<Jitter>().unwrap_err().code(),
            "invalid_jitter"
        );
        assert_eq!("full".parse::<Jitter>(), Ok(Jitter::Full));
        assert_eq!("none".parse::<Jitter>().map(Jitter::as_str), Ok("none"));
    }

    #[test]
    fn getters_return_the_parameters() {
        let b = Backoff::new(3, 70, Jitter::None).unwrap();
        assert_eq!((b.base_ms(), b.max_ms(), b.jitter()), (3, 70, Jitter::None));
    }

    #[test]
    fn system_random_is_splitmix64() {
        // SplitMix64's published outputs for the seed 1234567 (Rosetta Code).
        let mut source = SystemRandom { state: 1_234_567 };
        let outputs: Vec<u64> = (0..5).map(|_| source.next_u64()).collect();
        assert_eq!(
            outputs,
            [
                6_457_827_717_110_365_317,
                3_203_168_211_198_807_973,
                9_817_491_932_198_370_423,
                4_593_380_528_125_082_431,
                16_408_922_859_458_223_821,
            ]
        );
    }

    #[test]
    fn system_random_stays_within_caps() {
        let mut b = Backoff::new(1, MAX_SAFE_MS, Jitter::Full).unwrap();
        for _ in 0..200 {
            let cap = b.cap_ms();
            let delay = b.try_next_delay_ms().unwrap();
            assert!(delay < cap.max(1), "{delay} >= {cap}");
        }
        let mut source = SystemRandom::new();
        let samples: Vec<f64> = (0..1000).map(|_| source.sample().unwrap()).collect();
        assert!(samples.iter().all(|s| (0.0..1.0).contains(s)));
        assert!(samples.iter().any(|&s| s < 0.1) && samples.iter().any(|&s| s > 0.9));
    }
}
