//! Retry policies: the back-off (the `wasm-connect-backoff` crate's [`Backoff`], the one
//! schedule of every retry) with an optional retry limit, for task reconfiguration retries
//! (KAFKA-14732) and automatic restarts; KAFKA-14732's defaults.
//!
//! Pure values: no clock and no randomness. [`RetryKeys`](super::RetryKeys) names the keys
//! that set them.

use std::time::Duration;

pub use wasm_connect_backoff::{Attempts, Backoff, random_unit};

/// KAFKA-14732's `RECONFIGURE_CONNECTOR_TASKS_BACKOFF_INITIAL_MS`.
pub const DEFAULT_BACKOFF_INITIAL: Duration = Duration::from_millis(250);
/// KAFKA-14732's `RECONFIGURE_CONNECTOR_TASKS_BACKOFF_MAX_MS`.
pub const DEFAULT_BACKOFF_MAX: Duration = Duration::from_millis(60_000);
/// KAFKA-14732 doubles the delay after each failure.
pub const DEFAULT_BACKOFF_MULTIPLIER: f64 = 2.0;
/// KAFKA-14732 uses no jitter.
pub const DEFAULT_BACKOFF_JITTER: f64 = 0.0;

/// KAFKA-14732's schedule: 250 ms, doubling, capped at 60 s, no jitter (the default of
/// every retry policy).
pub const KAFKA_14732: Backoff = Backoff::doubling(DEFAULT_BACKOFF_INITIAL, DEFAULT_BACKOFF_MAX);

/// A back-off and an optional limit on the number of retries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RetryPolicy {
    /// The delays.
    pub backoff: Backoff,
    /// The most retries after the first failure; `None` retries forever (Kafka Connect's
    /// behaviour). `Some(0)` gives up at the first failure.
    pub max_retries: Option<u32>,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self { backoff: KAFKA_14732, max_retries: None }
    }
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

    #[test]
    fn the_default_schedule_is_kafka_14732() {
        let delays: Vec<u128> = (0..10).map(|a| KAFKA_14732.delay(a, 0.5).as_millis()).collect();
        assert_eq!(delays, [250, 500, 1000, 2000, 4000, 8000, 16000, 32000, 60000, 60000]);
        assert_eq!(RetryPolicy::default().backoff, KAFKA_14732);
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
