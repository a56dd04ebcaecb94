//! The retry schedule of one retriable operation (a plugin's `poll` or `put` that returned
//! a retriable error): the shared back-off ([`Backoff`], 300 ms doubling up to
//! `errors.retry.delay.max.ms`) and `errors.retry.timeout`'s bound on when to give up.
//! [`RetryBackoff`] is pure (the caller measures time); [`Retries`] adds the one clock
//! reading it needs, the instant of the first failure, for the task loops. Neither sleeps.

use std::time::{Duration, Instant};

use super::policy::ErrorPolicy;
use crate::model::{Attempts, Backoff};

/// The first retry delay (Kafka Connect's `RETRIES_DELAY_MIN_MS`).
pub const RETRY_DELAY_MIN: Duration = Duration::from_millis(300);

/// The back-off state of one retriable operation. Delays start at 300 ms and double,
/// capped at `errors.retry.delay.max.ms`; a positive `errors.retry.timeout` bounds the
/// time since the first failure.
///
/// A loop, with `start` the instant of the first failure:
///
/// ```text
/// let mut backoff = RetryBackoff::new(&policy);
/// loop {
///     match call().await {
///         Err(e) if e.retriable => match backoff.delay_before_retry(start.elapsed()) {
///             Some(delay) => sleep(delay).await,
///             None => break report(failures of the batch),
///         },
///         other => break other,
///     }
/// }
/// ```
#[derive(Clone, Debug)]
pub struct RetryBackoff {
    delays: Attempts,
    timeout: Option<Duration>,
}

impl RetryBackoff {
    /// A fresh schedule for `policy`.
    pub fn new(policy: &ErrorPolicy) -> Self {
        let delays = Backoff::doubling(RETRY_DELAY_MIN, policy.retry_delay_max).attempts();
        Self { delays, timeout: policy.retry_timeout }
    }

    /// The delay before the next retry (300 ms, 600 ms, … up to the cap); counts a retry.
    pub fn next_delay(&mut self) -> Duration {
        self.delays.next_delay()
    }

    /// Whether to stop retrying, `elapsed` after the first failure: only a positive
    /// timeout ends retries, once `elapsed` reaches it.
    pub fn gave_up(&self, elapsed: Duration) -> bool {
        self.timeout.is_some_and(|timeout| elapsed >= timeout)
    }

    /// `None` when [`gave_up`](Self::gave_up); otherwise the [`next_delay`](Self::next_delay),
    /// shortened so the last retry happens at the timeout, as in Kafka Connect.
    pub fn delay_before_retry(&mut self, elapsed: Duration) -> Option<Duration> {
        if self.gave_up(elapsed) {
            return None;
        }
        let delay = self.next_delay();
        Some(self.timeout.map_or(delay, |timeout| delay.min(timeout - elapsed)))
    }
}

/// The retries of one retriable call (a source's `poll`, a sink's `put`): empty until it
/// fails, then the time of the first failure and the back-off, until it succeeds or the
/// caller gives up.
///
/// ```text
/// match call().await {
///     Ok(v) => { retries.succeeded(); v }
///     Err(e) if e.retriable => match retries.failed(policy) {
///         Some(delay) => sleep(delay).await, // then call again
///         None => report(failures of the batch),
///     },
/// }
/// ```
#[derive(Clone, Debug, Default)]
pub struct Retries(Option<(Instant, RetryBackoff)>);

impl Retries {
    /// Counts a retriable failure: the delay before calling again, or `None` when
    /// `errors.retry.timeout` has passed since the first failure (the count then starts
    /// over, as after a success).
    pub fn failed(&mut self, policy: &ErrorPolicy) -> Option<Duration> {
        let (since, backoff) =
            self.0.get_or_insert_with(|| (Instant::now(), RetryBackoff::new(policy)));
        let delay = backoff.delay_before_retry(since.elapsed());
        if delay.is_none() {
            self.0 = None;
        }
        delay
    }

    /// The call succeeded: the next failure starts a new schedule.
    pub fn succeeded(&mut self) {
        self.0 = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(timeout_ms: Option<u64>, max_ms: u64) -> ErrorPolicy {
        ErrorPolicy {
            retry_timeout: timeout_ms.map(Duration::from_millis),
            retry_delay_max: Duration::from_millis(max_ms),
            ..ErrorPolicy::default()
        }
    }

    #[test]
    fn delays_start_at_300_ms_and_double_to_the_cap() {
        let mut b = RetryBackoff::new(&policy(None, 60_000));
        let delays: Vec<u128> = (0..11).map(|_| b.next_delay().as_millis()).collect();
        assert_eq!(delays, [300, 600, 1200, 2400, 4800, 9600, 19200, 38400, 60000, 60000, 60000]);
        let mut b = RetryBackoff::new(&policy(None, 1000));
        let delays: Vec<u128> = (0..4).map(|_| b.next_delay().as_millis()).collect();
        assert_eq!(delays, [300, 600, 1000, 1000]);
    }

    #[test]
    fn without_a_timeout_retries_never_end() {
        // errors.retry.timeout = 0 (the default) and -1 both read as no bound.
        for timeout in ["0", "-1"] {
            let config = [("errors.retry.timeout".to_string(), timeout.to_string())];
            let p = ErrorPolicy::from_config(&config, false).unwrap();
            let mut b = RetryBackoff::new(&p);
            assert!(!b.gave_up(Duration::from_secs(86_400 * 365)));
            assert!(b.delay_before_retry(Duration::from_secs(86_400 * 365)).is_some());
        }
    }

    #[test]
    fn a_positive_timeout_bounds_the_retries() {
        let mut b = RetryBackoff::new(&policy(Some(1000), 60_000));
        let ms = Duration::from_millis;
        assert!(!b.gave_up(ms(999)));
        assert!(b.gave_up(ms(1000)));
        // Failures at 0, 300 and 900 ms; the third delay is cut to reach 1000 ms exactly.
        assert_eq!(b.delay_before_retry(ms(0)), Some(ms(300)));
        assert_eq!(b.delay_before_retry(ms(300)), Some(ms(600)));
        assert_eq!(b.delay_before_retry(ms(900)), Some(ms(100)));
        assert_eq!(b.delay_before_retry(ms(1000)), None);
    }

    #[test]
    fn retries_start_over_after_a_success_or_giving_up() {
        let ms = Duration::from_millis;
        let mut r = Retries::default();
        let unbounded = policy(None, 60_000);
        assert_eq!(r.failed(&unbounded), Some(ms(300)));
        assert_eq!(r.failed(&unbounded), Some(ms(600)));
        r.succeeded();
        assert_eq!(r.failed(&unbounded), Some(ms(300)));
        // Past the timeout: give up once, then a fresh schedule.
        let mut r = Retries::default();
        let bounded = policy(Some(50), 60_000);
        assert!(r.failed(&bounded).is_some_and(|d| d <= ms(50)));
        std::thread::sleep(ms(60));
        assert_eq!(r.failed(&bounded), None);
        assert!(r.failed(&bounded).is_some());
    }
}
