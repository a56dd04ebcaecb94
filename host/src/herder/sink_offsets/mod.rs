//! Where sink connectors' offsets live: the committed offsets of their consumer group
//! (`connect-<name>`), behind [`SinkOffsets`] so the herder's offsets API does not depend
//! on the sink data path or on Kafka.
//!
//! Implementations: [`KafkaSinkOffsets`] (data topics in a Kafka cluster: the consumer group
//! there), [`EmbeddedSinkOffsets`] (standalone mode's embedded topics: the groups in the
//! SQLite file).
//!
//! Layout: this file (the trait and its error), `kafka`
//! ([`KafkaSinkOffsets`]), `embedded` ([`EmbeddedSinkOffsets`]).

mod embedded;
mod kafka;

use async_trait::async_trait;

use crate::model::TopicPartition;

pub use embedded::EmbeddedSinkOffsets;
pub use kafka::KafkaSinkOffsets;

/// Why a sink-offsets operation failed.
#[derive(Clone, Debug, thiserror::Error)]
pub enum SinkOffsetsError {
    /// This backend cannot modify sink offsets; the message says why (HTTP 400).
    #[error("{0}")]
    Unsupported(String),
    /// The group still has members: the connector's tasks have not stopped, or it was
    /// resumed meanwhile (HTTP 500, safe to retry once the tasks are gone).
    #[error("the consumer group {group} still has active members")]
    GroupActive {
        /// The group.
        group: String,
    },
    /// The cluster refused or did not answer in time.
    #[error("{0}")]
    Kafka(String),
}

/// Reads and modifies the committed offsets of a sink connector's consumer group.
///
/// Contract: the herder calls `alter` and `reset` only for a connector that is STOPPED with
/// no tasks, and every method only off its loop (they may wait on the cluster). Each call
/// returns once the change is durable in the backend, or fails without claiming it is.
#[async_trait]
pub trait SinkOffsets: Send + Sync {
    /// Every committed offset of `group`, sorted by topic-partition; empty when the group
    /// does not exist.
    async fn get(&self, group: &str) -> Result<Vec<(TopicPartition, i64)>, SinkOffsetsError>;

    /// Commits the `Some` offsets and deletes the committed offsets of the `None`
    /// partitions. Fails with [`SinkOffsetsError::GroupActive`] while the group has members.
    async fn alter(
        &self,
        group: &str,
        offsets: &[(TopicPartition, Option<i64>)],
    ) -> Result<(), SinkOffsetsError>;

    /// Deletes every committed offset of `group` (the group itself). Succeeds when the
    /// group does not exist; fails with [`SinkOffsetsError::GroupActive`] while it has
    /// members.
    async fn reset(&self, group: &str) -> Result<(), SinkOffsetsError>;
}
