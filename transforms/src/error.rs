//! [`TransformError`]: why a transform or predicate could not handle one record.
//!
//! The message is what Kafka Connect's `DataException` would carry; the worker puts it in
//! the record's error context (`errors.log.enable`, the dead-letter queue's headers) or in
//! the task's trace.

use std::fmt;

/// A record a transform or predicate could not handle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TransformError {
    /// Kafka Connect's message for it, e.g. `Unknown field: foo`.
    pub message: String,
}

impl TransformError {
    /// An error with `message`.
    pub fn new(message: impl Into<String>) -> Self {
        Self { message: message.into() }
    }
}

impl fmt::Display for TransformError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for TransformError {}
