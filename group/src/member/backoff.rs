//! The capped exponential back-off between failed group requests. Pure: it computes
//! delays and does not sleep.

use std::time::Duration;

/// The first retry's delay: long enough not to hammer a broker that refuses connections,
/// short enough that a moved coordinator is found again at once.
const INITIAL: Duration = Duration::from_millis(100);

/// The longest delay: an outage is retried at least this often, so membership comes back
/// within seconds of the broker.
const MAX: Duration = Duration::from_secs(5);

/// Doubles from [`INITIAL`] up to [`MAX`] with each failure; reset on success.
#[derive(Debug)]
pub(super) struct Backoff {
    next: Duration,
}

impl Backoff {
    /// A back-off at its first step.
    pub(super) fn new() -> Self {
        Self { next: INITIAL }
    }

    /// The delay before the next retry; the one after is twice as long, up to the cap.
    pub(super) fn next_delay(&mut self) -> Duration {
        let delay = self.next;
        self.next = (delay * 2).min(MAX);
        delay
    }

    /// Back to the first step, after a success.
    pub(super) fn reset(&mut self) {
        self.next = INITIAL;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doubles_up_to_the_cap_and_resets() {
        let mut backoff = Backoff::new();
        let delays: Vec<_> = (0..8).map(|_| backoff.next_delay().as_millis()).collect();
        assert_eq!(delays, [100, 200, 400, 800, 1600, 3200, 5000, 5000]);
        backoff.reset();
        assert_eq!(backoff.next_delay(), INITIAL);
    }
}
