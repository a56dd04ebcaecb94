//! [`Position`]: what the slot may be told. It remembers, for each batch of records handed
//! to the worker, the WAL position that becomes safe to confirm once those records are
//! durable (the `lsn_commit` of the batch's last record: every transaction committed up to
//! there was handed out before it), and gives the position to confirm to the slot when the
//! worker says it committed offsets.
//!
//! It owns no connection and builds no record: the task feeds it sequence numbers and
//! positions, and sends what it returns in a standby status update. Which replayed events
//! were delivered already is the stream's business (`stream::Resume`).

use std::collections::VecDeque;

/// Acknowledgements and the resume point.
#[derive(Debug, Default)]
pub struct Position {
    /// Records returned but not yet acknowledged: (sequence, position confirmable once
    /// it is durable).
    pending: VecDeque<(u64, u64)>,
    /// The next sequence number the worker will give a returned record.
    next_sequence: u64,
    /// The highest position whose records are all durable.
    acknowledged: u64,
    /// The last position confirmed to the slot.
    confirmed: u64,
}

impl Position {
    /// A position confirming nothing below `confirmed`.
    pub fn new(confirmed: u64) -> Self {
        Self { confirmed, acknowledged: confirmed, ..Self::default() }
    }

    /// Records `count` records just returned by `poll`, all safe to confirm up to
    /// `confirmable` once durable (the start of the last complete transaction among them,
    /// or less).
    pub fn returned(&mut self, count: usize, confirmable: u64) {
        if count == 0 {
            return;
        }
        self.next_sequence += count as u64;
        self.pending.push_back((self.next_sequence - 1, confirmable));
    }

    /// The worker says the record with `sequence` is durable.
    pub fn acknowledged(&mut self, sequence: u64) {
        while let Some(&(last, confirmable)) = self.pending.front() {
            if last > sequence {
                break;
            }
            self.acknowledged = self.acknowledged.max(confirmable);
            self.pending.pop_front();
        }
    }

    /// The position to confirm now, if it moved since the last confirmation.
    pub fn take_confirmable(&mut self) -> Option<u64> {
        (self.acknowledged > self.confirmed).then(|| {
            self.confirmed = self.acknowledged;
            self.confirmed
        })
    }

    /// The last confirmed position.
    pub fn confirmed(&self) -> u64 {
        self.confirmed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_durable_records_move_the_confirmed_position() {
        let mut p = Position::new(100);
        p.returned(3, 200); // sequences 0..=2
        p.returned(0, 999); // nothing returned: nothing to confirm
        p.returned(2, 300); // 3..=4
        assert_eq!(p.take_confirmable(), None);
        p.acknowledged(1);
        assert_eq!(p.take_confirmable(), None, "the first batch is not all durable yet");
        p.acknowledged(2);
        assert_eq!(p.take_confirmable(), Some(200));
        assert_eq!(p.take_confirmable(), None, "confirmed once");
        p.acknowledged(4);
        assert_eq!(p.take_confirmable(), Some(300));
        assert_eq!(p.confirmed(), 300);
    }

    #[test]
    fn a_lower_position_never_moves_the_confirmation_back() {
        let mut p = Position::new(500);
        p.returned(1, 0); // a snapshot record: nothing to confirm
        p.acknowledged(0);
        assert_eq!(p.take_confirmable(), None);
        assert_eq!(p.confirmed(), 500);
    }
}
