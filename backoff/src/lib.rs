//! Capped exponential back-off, Kafka's `ExponentialBackoff`: the one schedule behind every
//! retry in wasm-connect (task reconfiguration and automatic restarts, retriable plugin
//! calls, group requests, the assignor's revocation delays).
//!
//! Pure values: no clock, no sleeping and no hidden randomness. The caller passes a uniform
//! number for the jitter ([`random_unit`] gives one), so schedules are exact in tests.

use std::time::Duration;

/// The delay after failed attempt `n` (from 0) is `initial × multiplier^n`, times a uniform
/// jitter factor in `[1 - jitter, 1 + jitter]`, and never more than `max`.
#[derive(Clone, Debug, PartialEq)]
pub struct Backoff {
    /// Delay after the first failure.
    pub initial: Duration,
    /// The cap: no delay is longer, jitter included.
    pub max: Duration,
    /// Growth per failure, at least 1.
    pub multiplier: f64,
    /// Fraction in `[0, 1]`: each delay is multiplied by a uniform factor in
    /// `[1 - jitter, 1 + jitter]`, so clients that fail together do not retry in lockstep.
    /// 0 turns it off.
    pub jitter: f64,
}

/// Values are checked finite by whoever reads them from configuration, so equality is
/// reflexive.
impl Eq for Backoff {}

impl Backoff {
    /// Doubling from `initial` up to `max`, without jitter.
    pub const fn doubling(initial: Duration, max: Duration) -> Self {
        Self { initial, max, multiplier: 2.0, jitter: 0.0 }
    }

    /// The delay after failed attempt number `attempt` (0 for the first failure).
    /// `unit` is a uniform random number in `[0, 1]` for the jitter (0.5 means none).
    /// As in Kafka, the cap applies after the jitter: `max` is a hard maximum.
    pub fn delay(&self, attempt: u32, unit: f64) -> Duration {
        // Past 2^64 growth every schedule is at its cap; the bound keeps powi finite.
        let exponent = attempt.min(64) as i32;
        // Nanoseconds as f64 keep millisecond schedules exact (300 ms × 2^n has no
        // rounding error); the result is rounded to the nearest nanosecond.
        let max = self.max.as_nanos() as f64;
        let base = (self.initial.as_nanos() as f64 * self.multiplier.powi(exponent)).min(max);
        let factor = 1.0 + self.jitter * (2.0 * unit.clamp(0.0, 1.0) - 1.0);
        Duration::from_nanos((base * factor).clamp(0.0, max).round() as u64)
    }

    /// This schedule with a count of failures, for a caller that retries one operation.
    pub fn attempts(self) -> Attempts {
        Attempts { backoff: self, failures: 0 }
    }
}

/// A [`Backoff`] and the failures counted so far: the delay before each retry of one
/// operation, reset when it succeeds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attempts {
    backoff: Backoff,
    failures: u32,
}

impl Attempts {
    /// Counts a failure and returns the delay before the retry it calls for (no jitter).
    pub fn next_delay(&mut self) -> Duration {
        let delay = self.backoff.delay(self.failures, 0.5);
        self.failures = self.failures.saturating_add(1);
        delay
    }

    /// Back to the first step, after a success.
    pub fn reset(&mut self) {
        self.failures = 0;
    }

    /// Failures counted since the last reset.
    pub fn failures(&self) -> u32 {
        self.failures
    }
}

/// A uniform random number in `[0, 1)` for [`Backoff::delay`]'s jitter. The standard
/// library's randomly keyed hasher is enough here: jitter only has to spread retries.
pub fn random_unit() -> f64 {
    use std::hash::{BuildHasher, RandomState};
    let bits = RandomState::new().hash_one(std::time::SystemTime::now()) >> 11;
    bits as f64 / (1u64 << 53) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(d: Duration) -> u128 {
        d.as_millis()
    }

    #[test]
    fn doubling_schedules_are_exact_to_the_cap() {
        let b = Backoff::doubling(Duration::from_millis(250), Duration::from_secs(60));
        let delays: Vec<u128> = (0..12).map(|a| ms(b.delay(a, 0.5))).collect();
        assert_eq!(
            delays,
            [250, 500, 1000, 2000, 4000, 8000, 16000, 32000, 60000, 60000, 60000, 60000]
        );
        assert_eq!(ms(b.delay(u32::MAX, 0.5)), 60000, "huge attempt numbers stay at the cap");
        let b = Backoff::doubling(Duration::from_millis(300), Duration::from_secs(60));
        assert_eq!(b.delay(1, 0.5), Duration::from_millis(600));
        assert_eq!(b.delay(7, 0.5), Duration::from_millis(38_400));
    }

    #[test]
    fn jitter_stays_within_its_fraction_and_under_the_cap() {
        let b = Backoff {
            jitter: 0.2,
            ..Backoff::doubling(Duration::from_millis(250), Duration::from_secs(60))
        };
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
        // Kafka Connect's revocation delays: 1 ms × 40^n.
        let revocations = Backoff {
            initial: Duration::from_millis(1),
            max: Duration::from_secs(300),
            multiplier: 40.0,
            jitter: 0.0,
        };
        let delays: Vec<u128> = (1..5).map(|a| ms(revocations.delay(a, 0.5))).collect();
        assert_eq!(delays, [40, 1600, 64000, 300000]);
    }

    #[test]
    fn attempts_count_and_reset() {
        let mut a =
            Backoff::doubling(Duration::from_millis(100), Duration::from_secs(5)).attempts();
        let delays: Vec<u128> = (0..8).map(|_| ms(a.next_delay())).collect();
        assert_eq!(delays, [100, 200, 400, 800, 1600, 3200, 5000, 5000]);
        assert_eq!(a.failures(), 8);
        a.reset();
        assert_eq!(ms(a.next_delay()), 100);
    }

    #[test]
    fn random_units_are_units() {
        let units: Vec<f64> = (0..1000).map(|_| random_unit()).collect();
        assert!(units.iter().all(|u| (0.0..1.0).contains(u)));
        assert!(units.iter().any(|u| *u < 0.5) && units.iter().any(|u| *u >= 0.5));
    }
}
