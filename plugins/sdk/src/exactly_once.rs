//! Exactly-once delivery for source plugins (KIP-618): the [`ExactlyOnceSupport`] a
//! [`Connector`](crate::Connector) answers, and the [`TransactionContext`] through which a
//! source task defines its own transaction boundaries.
//!
//! This module owns the guest side of the `transaction-context` import. Natively (unit
//! tests) requests are recorded in the thread's mock host, which
//! [`testing`](crate::testing) reads and can switch on. It decides nothing about
//! transactions: the worker does.

/// Whether a connector can deliver exactly once with a config (Kafka Connect's
/// `ExactlyOnceSupport`). `None` where one is expected means "cannot say".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExactlyOnceSupport {
    /// Its source offsets let a task resume without repeating a record.
    Supported,
    /// It cannot promise that for this config.
    Unsupported,
}

/// A source task's control of its transactions (Kafka Connect's `TransactionContext`),
/// returned by [`transaction_context`] when the worker honours it.
///
/// Requests apply to the batch the current [`poll`](crate::SourceTask::poll) returns; a
/// record is named by its index in that batch, from 0. The `_after` forms end the
/// transaction right after that record and win over a whole-batch request. An aborted
/// transaction's records are discarded, their source offsets still committed. Asking to
/// commit and to abort the same batch or record, or naming an index past the end of the
/// batch, fails the task.
#[derive(Clone, Copy, Debug)]
pub struct TransactionContext(());

impl TransactionContext {
    /// Commits the transaction after the current batch.
    pub fn commit_transaction(&self) {
        imp::request(Action::Commit, None);
    }

    /// Commits the transaction right after record `index` of the current batch.
    pub fn commit_transaction_after(&self, index: usize) {
        imp::request(Action::Commit, Some(to_u32(index)));
    }

    /// Aborts the transaction after the current batch.
    pub fn abort_transaction(&self) {
        imp::request(Action::Abort, None);
    }

    /// Aborts the transaction right after record `index` of the current batch.
    pub fn abort_transaction_after(&self, index: usize) {
        imp::request(Action::Abort, Some(to_u32(index)));
    }
}

/// The transaction context of this source task: `Some` when the worker runs exactly-once
/// source and the connector's `transaction.boundary` is `connector` (Kafka Connect's
/// `SourceTaskContext.transactionContext()`), else `None`.
///
/// Only source plugins may call this: the `sink-connector` world does not offer the
/// import, so the worker could not load a sink plugin that does.
pub fn transaction_context() -> Option<TransactionContext> {
    imp::is_active().then_some(TransactionContext(()))
}

/// What a request asks; also what the native mock host records.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Commit the transaction.
    Commit,
    /// Abort it.
    Abort,
}

/// An index past `u32::MAX` is past any batch: the worker refuses it like any other.
fn to_u32(index: usize) -> u32 {
    u32::try_from(index).unwrap_or(u32::MAX)
}

#[cfg(target_arch = "wasm32")]
mod imp {
    use super::Action;
    use crate::bindings::source::wasm_connect::connector::transaction_context as tx;

    pub(super) fn is_active() -> bool {
        tx::is_active()
    }

    pub(super) fn request(action: Action, index: Option<u32>) {
        match (action, index) {
            (Action::Commit, None) => tx::commit_transaction(),
            (Action::Commit, Some(i)) => tx::commit_transaction_after(i),
            (Action::Abort, None) => tx::abort_transaction(),
            (Action::Abort, Some(i)) => tx::abort_transaction_after(i),
        }
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod imp {
    use super::Action;
    use crate::mock_host;

    pub(super) fn is_active() -> bool {
        mock_host::with(|h| h.transactions_active)
    }

    pub(super) fn request(action: Action, index: Option<u32>) {
        mock_host::with(|h| h.transaction_requests.push((action, index)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{set_transactions_active, take_transaction_requests};

    #[test]
    fn the_context_exists_only_when_the_worker_honours_it_and_records_requests() {
        assert!(transaction_context().is_none(), "inactive by default");
        set_transactions_active(true);
        let tx = transaction_context().expect("active");
        tx.commit_transaction();
        tx.abort_transaction_after(3);
        tx.commit_transaction_after(usize::MAX);
        assert_eq!(
            take_transaction_requests(),
            [(Action::Commit, None), (Action::Abort, Some(3)), (Action::Commit, Some(u32::MAX))]
        );
        assert!(take_transaction_requests().is_empty());
    }
}
