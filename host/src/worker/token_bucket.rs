//! [`TokenBucket`]: a rate in units per second (bytes, records) with one second of burst,
//! charged after the fact. A source task does not know how much a `poll` will return
//! before it returns, so the whole batch is charged once it is there and the bucket may
//! go into debt; the task then waits until the debt is paid before it polls again. Over
//! any stretch of time the units charged stay within `rate × seconds + rate` (the burst)
//! plus one batch.
//!
//! A pure value: the caller passes the time, so tests need no clock. It must not sleep.

use std::time::Duration;

use tokio::time::Instant;

/// Units allowed per second, with one second's worth as burst.
#[derive(Clone, Debug)]
pub(super) struct TokenBucket {
    /// Units per second; never 0.
    rate: f64,
    /// Units available now; negative is debt.
    tokens: f64,
    /// When `tokens` was last brought up to date.
    at: Instant,
}

impl TokenBucket {
    /// A full bucket of `rate` units per second (`rate` 0 is taken as 1).
    pub(super) fn new(rate: u64, now: Instant) -> Self {
        let rate = rate.max(1) as f64;
        Self { rate, tokens: rate, at: now }
    }

    /// Takes `units` (it may leave the bucket in debt).
    pub(super) fn charge(&mut self, units: u64, now: Instant) {
        self.refill(now);
        self.tokens -= units as f64;
    }

    /// How long until the debt is paid; zero when there is none.
    pub(super) fn wait(&self, now: Instant) -> Duration {
        let tokens = self.tokens_at(now);
        if tokens >= 0.0 { Duration::ZERO } else { Duration::from_secs_f64(-tokens / self.rate) }
    }

    fn tokens_at(&self, now: Instant) -> f64 {
        let elapsed = now.saturating_duration_since(self.at).as_secs_f64();
        (self.tokens + elapsed * self.rate).min(self.rate)
    }

    fn refill(&mut self, now: Instant) {
        self.tokens = self.tokens_at(now);
        self.at = now.max(self.at);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_bucket_lets_one_second_through_then_makes_debt_wait() {
        let t0 = Instant::now();
        let mut b = TokenBucket::new(1000, t0);
        b.charge(1000, t0);
        assert_eq!(b.wait(t0), Duration::ZERO, "a second's burst is free");
        b.charge(500, t0);
        assert_eq!(b.wait(t0), Duration::from_millis(500));
        assert_eq!(b.wait(t0 + Duration::from_millis(200)), Duration::from_millis(300));
        assert_eq!(b.wait(t0 + Duration::from_millis(500)), Duration::ZERO);
    }

    #[test]
    fn an_idle_bucket_saves_no_more_than_one_second() {
        let t0 = Instant::now();
        let mut b = TokenBucket::new(10, t0);
        let later = t0 + Duration::from_secs(3600);
        b.charge(25, later);
        // 10 saved (not 36,000), 25 taken: 15 of debt at 10 a second.
        assert_eq!(b.wait(later), Duration::from_millis(1500));
    }

    #[test]
    fn a_huge_batch_is_paid_off_at_the_rate() {
        let t0 = Instant::now();
        let mut b = TokenBucket::new(1 << 20, t0);
        b.charge(15 << 20, t0);
        assert_eq!(b.wait(t0), Duration::from_secs(14));
    }
}
