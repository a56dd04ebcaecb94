//! Why a task must fail after a failure was reported: not tolerated, or the dead letter
//! queue could not take it. The `Display` is the task's trace. It decides nothing.

use crate::worker::topics::TopicError;

/// Why [`ErrorReporter::report`](super::ErrorReporter::report) says the task must fail; the `Display` is its trace.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// A failure under `errors.tolerance=none`.
    #[error("{trace}")]
    NotTolerated {
        /// Stage, record position and error.
        trace: String,
    },
    /// Writing to the dead letter queue failed (under any tolerance, as in Kafka Connect).
    #[error("Could not produce message to dead letter queue '{topic}': {source}")]
    DeadLetterQueue {
        /// The DLQ topic.
        topic: String,
        /// The producer's error.
        source: TopicError,
    },
    /// A dead letter queue is configured but the task was given no producer for it.
    #[error("Dead letter queue '{topic}' is configured but the task has no producer for it")]
    NoDeadLetterProducer {
        /// The DLQ topic.
        topic: String,
    },
}
