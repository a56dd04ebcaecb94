//! The budget of an instance's log calls (the contract's `host.log`): bytes that may reach
//! the worker's log, as much as stdout and stderr each have over the instance's life
//! (`stdio`), refilled at that size an hour so that a connector that logs steadily for
//! days is not silenced for good. Past it a call is accepted and dropped whole (a line is
//! never cut in two), and counted; the guest is never failed for it. Once a call was
//! dropped, nothing more is logged until the budget has refilled (the lines kept before a
//! gap are a prefix), and the first call logged after a gap says how much was dropped.
//!
//! A plain counter kept in the Store's data, given the time by its caller: the logging
//! import charges it, the trap trace reports what it dropped. It logs nothing itself.

use std::time::{Duration, Instant};

/// The time in which an empty budget refills to its size.
pub const REFILL: Duration = Duration::from_secs(3600);

/// What a log call may still write, and what was dropped.
#[derive(Debug)]
pub struct LogBudget {
    /// The budget, in bytes: what may be written at once, and again every [`REFILL`].
    budget: usize,
    /// Bytes still allowed, as of `at`.
    left: f64,
    /// When `left` was computed.
    at: Instant,
    /// Bytes of calls dropped over the instance's life.
    dropped: usize,
    /// Bytes of calls dropped since the last call that was logged.
    gap: usize,
}

/// The outcome of charging a call.
#[derive(Debug, PartialEq, Eq)]
pub enum Charge {
    /// The call fits: log it. `after_gap` is the bytes of calls dropped just before it
    /// (0 when none were).
    Log {
        /// Bytes of calls dropped since the last call logged.
        after_gap: usize,
    },
    /// The call is dropped; `first` when it opens a gap.
    Drop {
        /// Whether the call before it was logged.
        first: bool,
    },
}

impl LogBudget {
    /// A budget of `bytes`, full at `now`.
    pub fn new(bytes: usize, now: Instant) -> Self {
        Self { budget: bytes, left: bytes as f64, at: now, dropped: 0, gap: 0 }
    }

    /// Charges a call of `bytes` (its message and fields as logged) made at `now`.
    pub fn charge(&mut self, bytes: usize, now: Instant) -> Charge {
        let elapsed = now.saturating_duration_since(self.at).as_secs_f64();
        let refill = self.budget as f64 * elapsed / REFILL.as_secs_f64();
        self.left = (self.left + refill).min(self.budget as f64);
        self.at = now;
        if bytes as f64 <= self.left {
            self.left -= bytes as f64;
            return Charge::Log { after_gap: std::mem::take(&mut self.gap) };
        }
        let first = self.gap == 0;
        // Nothing more is logged until the budget refills, so the lines kept are a prefix.
        self.left = 0.0;
        self.dropped += bytes;
        self.gap += bytes;
        Charge::Drop { first }
    }

    /// The budget, in bytes.
    pub fn budget(&self) -> usize {
        self.budget
    }

    /// Bytes of calls dropped so far.
    pub fn dropped(&self) -> usize {
        self.dropped
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_past_the_budget_are_dropped_whole_and_counted() {
        let t0 = Instant::now();
        let mut b = LogBudget::new(10, t0);
        assert_eq!(b.charge(6, t0), Charge::Log { after_gap: 0 });
        assert_eq!(b.charge(5, t0), Charge::Drop { first: true });
        // A call that would still fit is dropped too: the log keeps a prefix of the lines.
        assert_eq!(b.charge(1, t0), Charge::Drop { first: false });
        assert_eq!(b.dropped(), 6);
        assert_eq!(b.budget(), 10);
    }

    #[test]
    fn the_budget_refills_over_an_hour_and_the_next_line_reports_the_gap() {
        let t0 = Instant::now();
        let mut b = LogBudget::new(3600, t0);
        assert_eq!(b.charge(3600, t0), Charge::Log { after_gap: 0 });
        assert_eq!(b.charge(100, t0 + Duration::from_secs(10)), Charge::Drop { first: true });
        // 50 s later only 50 bytes have refilled: each drop empties the budget.
        assert_eq!(b.charge(100, t0 + Duration::from_secs(60)), Charge::Drop { first: false });
        assert_eq!(b.charge(100, t0 + Duration::from_secs(160)), Charge::Log { after_gap: 200 });
        assert_eq!(b.charge(1, t0 + Duration::from_secs(161)), Charge::Log { after_gap: 0 });
        // Never more than the budget, however long the quiet.
        let later = t0 + Duration::from_secs(10 * 3600);
        assert_eq!(b.charge(3600, later), Charge::Log { after_gap: 0 });
        assert_eq!(b.charge(1, later), Charge::Drop { first: true });
        assert_eq!(b.dropped(), 201);
    }
}
