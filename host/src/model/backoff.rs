//! Capped exponential back-off with an optional retry limit: the schedule of task
//! reconfiguration retries (KAFKA-14732) and of automatic restarts.
//!
//! Pure values: no clock and no randomness. The caller passes a uniform number for the
//! jitter, so schedules are exact in tests. [`RetryKeys`](super::RetryKeys) names the
//! keys that set them.

use std::time::Duration;

/// KAFKA-14732's `RECONFIGURE_CONNECTOR_TASKS_BACKOFF_INITIAL_MS`.
pub const DEFAULT_BACKOFF_INITIAL: Duration = Duration::from_millis(250);
/// KAFKA-14732's `RECONFIGURE_CONNECTOR_TASKS_BACKOFF_MAX_MS`.
pub const DEFAULT_BACKOFF_MAX: Duration = Duration::from_millis(60_000);
/// KAFKA-14732 doubles the delay after each failure.
pub const DEFAULT_BACKOFF_MULTIPLIER: f64 = 2.0;
/// KAFKA-14732 uses no jitter.
pub const DEFAULT_BACKOFF_JITTER: f64 = 0.0;

/// Capped exponential back-off, Kafka's `ExponentialBackoff`: the delay after failed
/// attempt `n` (from 0) is `initial × multiplier^n`, times a uniform jitter factor in
/// `[1 - jitter, 1 + jitter]`, and never more than `max`. The default is exactly
/// KAFKA-14732's schedule: 250, 500, 1000, … 32000, 60000, 60000, … ms.
#[derive(Clone, Debug, PartialEq)]
pub struct Backoff {
    /// Delay after the first failure.
    pub initial: Duration,
    /// The cap: no delay is longer, jitter included.
    pub max: Duration,
    /// Growth per failure, at least 1.
    pub multiplier: f64,
    /// Fraction in `[0, 1]`: each delay is multiplied by a uniform factor in
    /// `[1 - jitter, 1 + jitter]`, so connectors that fail together do not retry in
    /// lockstep. 0 turns it off.
    pub jitter: f64,
}

/// Values are checked finite when read (see [`RetryKeys`](super::RetryKeys)), so equality
/// is reflexive.
impl Eq for Backoff {}

impl Default for Backoff {
    fn default() -> Self {
        Self::kafka_14732()
    }
}

impl Backoff {
    /// KAFKA-14732's schedule: 250 ms, doubling, capped at 60 s, no jitter.
    pub const fn kafka_14732() -> Self {
        Self {
            initial: DEFAULT_BACKOFF_INITIAL,
            max: DEFAULT_BACKOFF_MAX,
            multiplier: DEFAULT_BACKOFF_MULTIPLIER,
            jitter: DEFAULT_BACKOFF_JITTER,
        }
    }

    /// The delay after failed attempt number `attempt` (0 for the first failure).
    /// `unit` is a uniform random number in `[0, 1]` for the jitter (0.5 means none).
    /// As in Kafka, the cap applies after the jitter: `max` is a hard maximum.
    pub fn delay(&self, attempt: u32, unit: f64) -> Duration {
        // Past 2^64 growth every schedule is at its cap; the bound keeps powi finite.
        let exponent = attempt.min(64) as i32;
        let max = self.max.as_secs_f64();
        let base = (self.initial.as_secs_f64() * self.multiplier.powi(exponent)).min(max);
        let factor = 1.0 + self.jitter * (2.0 * unit.clamp(0.0, 1.0) - 1.0);
        Duration::from_secs_f64((base * factor).clamp(0.0, max))
    }
}

/// A uniform random number in `[0, 1)` for [`Backoff::delay`]'s jitter. The standard
/// library's randomly keyed hasher is enough here: jitter only has to spread retries.
pub fn random_unit() -> f64 {
    use std::hash::{BuildHasher, RandomState};
    let bits = RandomState::new().hash_one(std::time::SystemTime::now()) >> 11;
    bits as f64 / (1u64 << 53) as f64
}

/// A back-off and an optional limit on the number of retries.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RetryPolicy {
    /// The delays.
    pub backoff: Backoff,
    /// The most retries after the first failure; `None` retries forever (Kafka Connect's
    /// behaviour). `Some(0)` gives up at the first failure.
    pub max_retries: Option<u32>,
}

impl RetryPolicy {
    /// Whether a retry may follow `failures` failed attempts (1 for the first failure).
    pub fn allows_retry(&self, failures: u32) -> bool {
        self.max_retries.is_none_or(|max| failures <= max)
    }

    /// `"3 of 5"` or `"3"` for retry number `retry`, for logs and traces.
    pub fn describe(&self, retry: u32) -> String {
        match self.max_retries {
            Some(max) => format!("{retry} of {max}"),
            None => retry.to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(d: Duration) -> u128 {
        d.as_millis()
    }

    #[test]
    fn the_default_schedule_is_kafka_14732() {
        let b = Backoff::default();
        let delays: Vec<u128> = (0..12).map(|a| ms(b.delay(a, 0.5))).collect();
        assert_eq!(
            delays,
            [250, 500, 1000, 2000, 4000, 8000, 16000, 32000, 60000, 60000, 60000, 60000]
        );
        assert_eq!(ms(b.delay(u32::MAX, 0.5)), 60000, "huge attempt numbers stay at the cap");
    }

    #[test]
    fn jitter_stays_within_its_fraction_and_under_the_cap() {
        let b = Backoff { jitter: 0.2, ..Backoff::default() };
        assert_eq!(ms(b.delay(2, 0.0)), 800);
        assert_eq!(ms(b.delay(2, 1.0)), 1200);
        assert_eq!(ms(b.delay(20, 0.0)), 48000);
        assert_eq!(ms(b.delay(20, 1.0)), 60000, "the cap is a hard maximum");
        for i in 0..=100 {
            let unit = f64::from(i) / 100.0;
            for attempt in 0..12 {
                let plain = b.delay(attempt, 0.5).as_secs_f64();
                let d = b.delay(attempt, unit).as_secs_f64();
                assert!(d >= plain * 0.8 - 1e-9 && d <= (plain * 1.2).min(60.0) + 1e-9, "{d}");
            }
        }
    }

    #[test]
    fn other_shapes() {
        let b = Backoff {
            initial: Duration::from_millis(100),
            max: Duration::from_millis(1000),
            multiplier: 3.0,
            jitter: 0.0,
        };
        let delays: Vec<u128> = (0..5).map(|a| ms(b.delay(a, 0.0))).collect();
        assert_eq!(delays, [100, 300, 900, 1000, 1000]);
        let flat = Backoff { multiplier: 1.0, ..b };
        assert_eq!(ms(flat.delay(7, 0.3)), 100);
    }

    #[test]
    fn random_units_are_units() {
        let units: Vec<f64> = (0..1000).map(|_| random_unit()).collect();
        assert!(units.iter().all(|u| (0.0..1.0).contains(u)));
        assert!(units.iter().any(|u| *u < 0.5) && units.iter().any(|u| *u >= 0.5));
    }

    #[test]
    fn limits() {
        let unlimited = RetryPolicy::default();
        assert!(unlimited.allows_retry(1_000_000));
        assert_eq!(unlimited.describe(3), "3");
        let two = RetryPolicy { max_retries: Some(2), ..RetryPolicy::default() };
        assert!(two.allows_retry(1) && two.allows_retry(2) && !two.allows_retry(3));
        assert_eq!(two.describe(2), "2 of 2");
        let none = RetryPolicy { max_retries: Some(0), ..RetryPolicy::default() };
        assert!(!none.allows_retry(1));
    }
}
