//! A source task's transaction requests (Kafka Connect's `TransactionContext`, KIP-618):
//! the [`TransactionRequestLog`] a task instance fills while it polls, and the
//! [`TransactionRequests`] of one batch taken from it.
//!
//! Records are named by their index in the batch the `poll` returned. The checks are
//! Kafka Connect's `WorkerTransactionContext`: asking to commit and to abort the same
//! batch, or after the same record, is a [`TransactionConflict`] that fails the task. A
//! request naming a record past the end of the batch is one too (Kafka Connect, which
//! names records by identity, would keep it forever). This module only records and
//! checks; the worker decides what a request does to a transaction.

use std::collections::BTreeSet;

/// What a request asks of the transaction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TransactionAction {
    /// Commit the transaction.
    Commit,
    /// Abort the transaction: its records are discarded, their offsets still committed.
    Abort,
}

/// The requests a task made for one polled batch.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TransactionRequests {
    /// A request for the transaction to end after the whole batch.
    pub batch: Option<TransactionAction>,
    /// Requests for the transaction to end right after record `index` of the batch, in
    /// index order, at most one per record. They win over `batch`.
    pub records: Vec<(u32, TransactionAction)>,
}

impl TransactionRequests {
    /// Whether the task asked for nothing.
    pub fn is_empty(&self) -> bool {
        self.batch.is_none() && self.records.is_empty()
    }
}

/// A contradictory or impossible request; the task fails with its message.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TransactionConflict {
    /// Commit and abort of the whole batch.
    #[error("Connector requested both commit and abort of same transaction")]
    Batch,
    /// Commit and abort after the same record.
    #[error("Connector requested both commit and abort of same record (record {0} of the batch)")]
    Record(u32),
    /// A request after a record the batch does not have.
    #[error(
        "Connector requested a transaction boundary after record {index} of a batch of {len} \
         records"
    )]
    OutOfBatch {
        /// The index asked for.
        index: u32,
        /// The batch's length.
        len: usize,
    },
    /// More record requests than any batch has records.
    #[error("Connector requested transaction boundaries after more than {0} records of one batch")]
    TooMany(usize),
}

/// At most this many record requests are kept between two takes; a task asking for more
/// fails ([`TransactionConflict::TooMany`]) rather than grow the worker's memory.
pub const MAX_RECORD_REQUESTS: usize = 1 << 20;

/// The requests made since the last batch was taken.
#[derive(Clone, Debug, Default)]
pub struct TransactionRequestLog {
    commit_batch: bool,
    abort_batch: bool,
    commit: BTreeSet<u32>,
    abort: BTreeSet<u32>,
    overflow: bool,
}

impl TransactionRequestLog {
    /// Records a request: after record `index`, or after the whole batch when `None`.
    /// The log is bounded by [`MAX_RECORD_REQUESTS`], not by the calls.
    pub fn request(&mut self, action: TransactionAction, index: Option<u32>) {
        if index.is_some() && self.commit.len() + self.abort.len() >= MAX_RECORD_REQUESTS {
            self.overflow = true;
            return;
        }
        match (action, index) {
            (TransactionAction::Commit, None) => self.commit_batch = true,
            (TransactionAction::Abort, None) => self.abort_batch = true,
            (TransactionAction::Commit, Some(i)) => {
                self.commit.insert(i);
            }
            (TransactionAction::Abort, Some(i)) => {
                self.abort.insert(i);
            }
        }
    }

    /// The requests for a batch of `len` records, checked; the log is empty afterwards,
    /// whatever the answer.
    pub fn take(&mut self, len: usize) -> Result<TransactionRequests, TransactionConflict> {
        let log = std::mem::take(self);
        if log.overflow {
            return Err(TransactionConflict::TooMany(MAX_RECORD_REQUESTS));
        }
        if log.commit_batch && log.abort_batch {
            return Err(TransactionConflict::Batch);
        }
        if let Some(&i) = log.commit.intersection(&log.abort).next() {
            return Err(TransactionConflict::Record(i));
        }
        let beyond = |i: &&u32| **i as usize >= len;
        if let Some(&index) = log.commit.iter().chain(&log.abort).find(beyond) {
            return Err(TransactionConflict::OutOfBatch { index, len });
        }
        let batch = match (log.commit_batch, log.abort_batch) {
            (true, _) => Some(TransactionAction::Commit),
            (_, true) => Some(TransactionAction::Abort),
            _ => None,
        };
        let mut records: Vec<(u32, TransactionAction)> = log
            .commit
            .into_iter()
            .map(|i| (i, TransactionAction::Commit))
            .chain(log.abort.into_iter().map(|i| (i, TransactionAction::Abort)))
            .collect();
        records.sort_by_key(|(i, _)| *i);
        Ok(TransactionRequests { batch, records })
    }
}

#[cfg(test)]
mod tests {
    use super::TransactionAction::{Abort, Commit};
    use super::*;

    #[test]
    fn requests_come_back_once_in_index_order() {
        let mut log = TransactionRequestLog::default();
        log.request(Abort, Some(4));
        log.request(Commit, Some(1));
        log.request(Commit, Some(1));
        log.request(Commit, None);
        let taken = log.take(5).unwrap();
        assert_eq!(taken.batch, Some(Commit));
        assert_eq!(taken.records, vec![(1, Commit), (4, Abort)]);
        assert!(log.take(5).unwrap().is_empty(), "taking clears the log");
    }

    #[test]
    fn commit_and_abort_of_one_batch_or_record_conflict() {
        let mut log = TransactionRequestLog::default();
        log.request(Commit, None);
        log.request(Abort, None);
        let e = log.take(3).unwrap_err();
        assert_eq!(e.to_string(), "Connector requested both commit and abort of same transaction");

        log.request(Commit, Some(2));
        log.request(Abort, Some(2));
        log.request(Abort, Some(1));
        assert_eq!(log.take(3), Err(TransactionConflict::Record(2)));
        assert!(log.take(3).unwrap().is_empty(), "a conflict clears the log too");
    }

    #[test]
    fn a_record_past_the_batch_is_refused() {
        let mut log = TransactionRequestLog::default();
        log.request(Abort, Some(3));
        assert_eq!(log.take(3), Err(TransactionConflict::OutOfBatch { index: 3, len: 3 }));
        log.request(Abort, Some(2));
        assert_eq!(log.take(3).unwrap().records, vec![(2, Abort)]);
    }
}
