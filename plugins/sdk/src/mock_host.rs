//! The worker's side of the host imports when the SDK is compiled natively (outside
//! wasm, for unit tests): thread-local state that records what a plugin asked of the
//! worker and answers offset lookups from seeded values.
//!
//! This module owns that state; `host` and `log` write to it natively, and
//! [`testing`](crate::testing) seeds, reads and resets it. It exists only off wasm: a
//! component always talks to the real worker. Each thread has its own state, so tests
//! running in parallel never see each other's calls.

use std::cell::RefCell;
use std::collections::HashMap;

use crate::exactly_once::Action;
use crate::{Error, Level};

/// One line a plugin logged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogLine {
    /// Its level.
    pub level: Level,
    /// The message.
    pub message: String,
    /// The extra key/value pairs, in order.
    pub fields: Vec<(String, String)>,
}

/// Everything the plugin asked of the worker on this thread.
#[derive(Debug, Default)]
pub(crate) struct MockHost {
    pub logs: Vec<LogLine>,
    pub reconfiguration_requests: usize,
    pub raised_errors: Vec<Error>,
    /// Committed source offsets, by the JSON text of the source partition (serde_json
    /// writes object keys sorted, so equal partitions have equal text).
    pub offsets: HashMap<String, String>,
    /// Whether [`transaction_context`](crate::transaction_context) answers `Some`.
    pub transactions_active: bool,
    /// The transaction requests made, oldest first: after record `index`, or after the
    /// batch when `None`.
    pub transaction_requests: Vec<(Action, Option<u32>)>,
}

thread_local! {
    static STATE: RefCell<MockHost> = RefCell::new(MockHost::default());
}

/// Runs `f` on this thread's state.
pub(crate) fn with<R>(f: impl FnOnce(&mut MockHost) -> R) -> R {
    STATE.with(|s| f(&mut s.borrow_mut()))
}
