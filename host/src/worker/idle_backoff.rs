//! How long a source task waits after a `poll` that returned nothing: [`IdleBackoff`].
//!
//! The first empty poll waits [`IdleBackoff::FIRST`] (50 ms), each further one twice as
//! long, up to [`IdleBackoff::CAP`] (1 s); the first poll that returns records resets it.
//! A busy source never waits; an idle one costs one guest call a second, as Kafka
//! Connect's `FileStreamSourceTask` sleeps 1 s inside `poll` on an empty read (a Kafka
//! Connect task whose `poll` returns nothing at once is polled again at once, in a busy
//! loop; here the worker waits instead, so a plugin never needs to sleep in `poll`). The
//! first record after a long idle period waits at most the cap. The wait is the task
//! loop's, so a command (stop, pause, restart) ends it at once.
//!
//! It must not decide anything else: the task loop owns when to poll.

use std::time::Duration;

/// The wait after an empty poll: doubles while polls stay empty.
#[derive(Debug, Clone)]
pub(super) struct IdleBackoff {
    next: Duration,
}

impl Default for IdleBackoff {
    fn default() -> Self {
        Self { next: Self::FIRST }
    }
}

impl IdleBackoff {
    /// The wait after the first empty poll.
    pub const FIRST: Duration = Duration::from_millis(50);
    /// The longest wait: an idle task is polled once a second.
    pub const CAP: Duration = Duration::from_secs(1);

    /// The wait after one more empty poll.
    pub fn next(&mut self) -> Duration {
        let wait = self.next;
        self.next = (wait * 2).min(Self::CAP);
        wait
    }

    /// A poll returned records: the next empty poll waits [`Self::FIRST`] again.
    pub fn reset(&mut self) {
        self.next = Self::FIRST;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doubles_up_to_the_cap_and_resets() {
        let mut b = IdleBackoff::default();
        let waits: Vec<u64> = (0..8).map(|_| b.next().as_millis() as u64).collect();
        assert_eq!(waits, [50, 100, 200, 400, 800, 1000, 1000, 1000]);
        b.reset();
        assert_eq!(b.next(), IdleBackoff::FIRST);
    }
}
