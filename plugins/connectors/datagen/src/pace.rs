//! [`Pace`]: how many records a rate-limited task may emit now.
//!
//! The budget grows by `rate` records per second of the monotonic clock, from the first
//! poll, and the first record may go at once. This module only does the arithmetic on
//! elapsed time handed in; the task reads the clock (which needs the clock grant:
//! without it the clock stands still and the task emits one record).

use std::time::Duration;

/// A records-per-second budget.
#[derive(Clone, Debug)]
pub struct Pace {
    rate: f64,
    emitted: u64,
}

impl Pace {
    /// A budget of `rate` records per second (`rate` > 0).
    pub fn new(rate: f64) -> Self {
        Self { rate, emitted: 0 }
    }

    /// How many more records may go, `elapsed` after the first poll.
    pub fn allowed(&self, elapsed: Duration) -> u64 {
        let total = (self.rate * elapsed.as_secs_f64()).floor() as u64 + 1;
        total.saturating_sub(self.emitted)
    }

    /// Records that `n` more records went.
    pub fn emitted(&mut self, n: u64) {
        self.emitted += n;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budget_follows_the_clock() {
        let mut p = Pace::new(10.0);
        assert_eq!(p.allowed(Duration::ZERO), 1);
        p.emitted(1);
        assert_eq!(p.allowed(Duration::from_millis(50)), 0);
        assert_eq!(p.allowed(Duration::from_millis(1000)), 10);
        p.emitted(10);
        assert_eq!(p.allowed(Duration::from_millis(1050)), 0);
    }
}
