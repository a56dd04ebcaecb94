//! The budget of an instance's log calls (the contract's `host.log`): bytes that may reach
//! the worker's log over the instance's life, as stdout and stderr each have (`stdio`).
//! Past it a call is accepted and dropped whole (a line is never cut in two), and counted;
//! the guest is never failed for it.
//!
//! A plain counter kept in the Store's data: the logging import charges it, the trap trace
//! reports what it dropped. It logs nothing itself.

/// What a log call may still write, and what was dropped.
#[derive(Debug)]
pub struct LogBudget {
    /// The budget, in bytes.
    budget: usize,
    /// Bytes still allowed.
    left: usize,
    /// Bytes of calls dropped.
    dropped: usize,
}

/// The outcome of charging a call.
#[derive(Debug, PartialEq, Eq)]
pub enum Charge {
    /// The call fits: log it.
    Log,
    /// The call is dropped; `first` when it is the first dropped.
    Drop {
        /// Whether no call was dropped before.
        first: bool,
    },
}

impl LogBudget {
    /// A budget of `bytes` over the instance's life.
    pub fn new(bytes: usize) -> Self {
        Self { budget: bytes, left: bytes, dropped: 0 }
    }

    /// Charges a call of `bytes` (its message and fields as logged).
    pub fn charge(&mut self, bytes: usize) -> Charge {
        if bytes <= self.left {
            self.left -= bytes;
            return Charge::Log;
        }
        let first = self.dropped == 0;
        // Nothing more is logged once a call was dropped, so the lines kept are a prefix.
        self.left = 0;
        self.dropped += bytes;
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
        let mut b = LogBudget::new(10);
        assert_eq!(b.charge(6), Charge::Log);
        assert_eq!(b.charge(5), Charge::Drop { first: true });
        // A call that would still fit is dropped too: the log keeps a prefix of the lines.
        assert_eq!(b.charge(1), Charge::Drop { first: false });
        assert_eq!(b.dropped(), 6);
        assert_eq!(b.budget(), 10);
    }
}
