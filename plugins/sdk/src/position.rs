//! Where records are in Kafka, and what the worker reports back about them:
//! [`TopicPartition`], [`TopicPartitionOffset`], [`RecordAck`] and [`RecordFailure`].
//!
//! This module owns these plain values only; it does no I/O and no conversion (that is
//! `glue`'s job).

/// A Kafka topic-partition.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TopicPartition {
    /// The topic.
    pub topic: String,
    /// The partition number.
    pub partition: i32,
}

/// A topic-partition and a consumer offset: the offset of the next record to read.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TopicPartitionOffset {
    /// The topic.
    pub topic: String,
    /// The partition number.
    pub partition: i32,
    /// The offset of the next record to read.
    pub offset: i64,
}

/// The acknowledgement of one source record, once it is durably written.
///
/// `sequence` numbers the records the task's `poll` calls returned, from 0, in order,
/// across all polls of this task instance: the first record of a poll has the sequence
/// of the number of records all earlier polls returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RecordAck {
    /// The record's position among all records this task instance returned.
    pub sequence: u64,
    /// The Kafka partition it was written to.
    pub partition: i32,
    /// The Kafka offset it was written at.
    pub offset: i64,
}

/// A sink record `put` could not handle. The worker routes it by the connector's
/// `errors.tolerance` and dead-letter-queue settings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordFailure {
    /// The record's index in the slice `put` received.
    pub index: u32,
    /// Why, for the log or the dead-letter queue.
    pub reason: String,
}

impl RecordFailure {
    /// A failure of the record at `index`.
    pub fn new(index: usize, reason: impl Into<String>) -> Self {
        Self { index: u32::try_from(index).unwrap_or(u32::MAX), reason: reason.into() }
    }
}
