//! The `transaction-context` interface: a source task's commit and abort requests,
//! recorded in the instance's [`TransactionRequestLog`] for the worker to take after
//! `poll` (`SourceTaskInstance::take_transaction_requests`). Recording never fails: the
//! checks run when the worker takes them, so a task cannot catch a conflict.
//!
//! [`TransactionRequestLog`]: crate::model::TransactionRequestLog

use crate::model::TransactionAction::{Abort, Commit};
use crate::runtime::bindings::transaction_context;
use crate::runtime::state::InstanceState;

impl transaction_context::Host for InstanceState {
    fn is_active(&mut self) -> bool {
        self.ident.task.is_some() && self.host.transaction_context_active(&self.ident)
    }

    fn commit_transaction(&mut self) {
        self.transactions.request(Commit, None);
    }

    fn commit_transaction_after(&mut self, index: u32) {
        self.transactions.request(Commit, Some(index));
    }

    fn abort_transaction(&mut self) {
        self.transactions.request(Abort, None);
    }

    fn abort_transaction_after(&mut self, index: u32) {
        self.transactions.request(Abort, Some(index));
    }
}
