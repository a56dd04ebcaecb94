//! The one abstraction every backing store is built on: a keyed, compacted log topic
//! (Kafka Connect's `KafkaBasedLog`), with a Kafka backend, an embedded SQLite backend and
//! an in-memory backend for unit tests.
//!
//! The config records and state (`config_record.rs`, `config_state.rs`), the status store
//! (`status.rs`) and the offsets store (`offsets.rs`) hold all the Kafka Connect semantics; a backend only moves bytes: it appends records durably and
//! reads them back in order. That is what lets one conformance suite cover every backend.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;

use super::StoreError;

/// A record to append. A `None` value is a tombstone.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogRecord {
    /// Record key (every internal topic has keys).
    pub key: Vec<u8>,
    /// Record value, or `None` for a tombstone.
    pub value: Option<Vec<u8>>,
}

impl LogRecord {
    /// A record with a value.
    pub fn new(key: impl Into<Vec<u8>>, value: impl Into<Vec<u8>>) -> Self {
        Self { key: key.into(), value: Some(value.into()) }
    }

    /// A tombstone for `key`.
    pub fn tombstone(key: impl Into<Vec<u8>>) -> Self {
        Self { key: key.into(), value: None }
    }
}

/// A record read back, with its position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogEntry {
    /// Partition it was read from.
    pub partition: i32,
    /// Its offset within the partition.
    pub offset: i64,
    /// Record key; `None` only for keyless records written by someone else.
    pub key: Option<Vec<u8>>,
    /// Record value, or `None` for a tombstone.
    pub value: Option<Vec<u8>>,
}

/// What a topic must look like; backends create it when missing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TopicSpec {
    /// Topic name.
    pub name: String,
    /// Partition count (`-1`: the broker default).
    pub partitions: i32,
    /// Replication factor (`-1`: the broker default).
    pub replication_factor: i16,
    /// Whether the topic must be `cleanup.policy=compact`.
    pub compacted: bool,
    /// Whether the topic must have exactly one partition (the config topic): an existing
    /// topic with more is refused with Kafka Connect's message.
    pub single_partition: bool,
    /// The worker property that named the topic and what the topic holds, quoted in the
    /// messages that refuse an unsuitable existing topic. `None` gives generic messages.
    pub origin: Option<TopicOrigin>,
}

impl TopicSpec {
    /// A topic of `partitions` partitions (`-1`: the broker default) with the broker's
    /// default replication, compacted or not, any partition count accepted when it exists.
    pub fn new(name: impl Into<String>, partitions: i32, compacted: bool) -> Self {
        Self {
            name: name.into(),
            partitions,
            replication_factor: -1,
            compacted,
            single_partition: false,
            origin: None,
        }
    }
}

/// Where a topic name came from, for refusal messages worded as Kafka Connect words them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TopicOrigin {
    /// The worker property that named the topic, e.g. `config.storage.topic`.
    pub property: String,
    /// What the topic holds, e.g. `connector configurations`.
    pub purpose: String,
}

impl TopicOrigin {
    /// The origin of a topic named by `property` and holding `purpose`.
    pub fn new(property: impl Into<String>, purpose: impl Into<String>) -> Self {
        Self { property: property.into(), purpose: purpose.into() }
    }
}

/// Opens (creating when missing) the topics of one backend.
#[async_trait]
pub trait LogBackend: Send + Sync + 'static {
    /// The topic for `spec`, created if missing and checked if present.
    async fn topic(&self, spec: &TopicSpec) -> Result<Arc<dyn LogTopic>, StoreError>;

    /// The id of the cluster the topics live in (`GET /`'s `kafka_cluster_id`): a Kafka
    /// cluster's own id, or an id kept with the embedded file. `None` when the backend has
    /// none (in memory).
    async fn cluster_id(&self) -> Result<Option<String>, StoreError> {
        Ok(None)
    }
}

/// One keyed log topic.
#[async_trait]
pub trait LogTopic: Send + Sync + 'static {
    /// Topic name.
    fn name(&self) -> &str;

    /// Appends `records`, in order, and returns once every one of them is durable (Kafka:
    /// acknowledged with `acks=all` by an idempotent producer; SQLite: committed). Records
    /// with the same key land in the same partition, so their order is kept. An `Err`
    /// means some may not be durable; a success is never reported for a record that is not.
    async fn send(&self, records: Vec<LogRecord>) -> Result<(), StoreError>;

    /// A new reader, positioned at the start of every partition.
    async fn reader(&self) -> Result<Box<dyn LogReader>, StoreError>;

    /// A writer of this topic in transactions of a producer of its own, with
    /// `transactional_id` and `client_id`, registered before this returns: an older
    /// producer with the id is fenced, and what it left open is aborted. `None`: the
    /// backend has no transactions (embedded, in memory), and [`send`](Self::send) is
    /// already atomic.
    async fn transactional(
        &self,
        _transactional_id: &str,
        _client_id: &str,
    ) -> Result<Option<Arc<dyn TransactionalLog>>, StoreError> {
        Ok(None)
    }
}

/// Writes one topic in transactions (Kafka Connect's fencible config-topic producer).
#[async_trait]
pub trait TransactionalLog: Send + Sync + 'static {
    /// Appends `records` in one transaction and returns once it is committed. An `Err`
    /// (fenced by a newer producer with the id, the cluster away) leaves the writer
    /// unusable: the caller drops it and registers a new one.
    async fn send(&self, records: Vec<LogRecord>) -> Result<(), StoreError>;
}

/// Reads a topic in order, from where it last stopped.
#[async_trait]
pub trait LogReader: Send + 'static {
    /// Every record from the reader's position up to the end of the topic as it was when
    /// the call began (so a record whose `send` returned before this call is included),
    /// in offset order within each partition. Advances the position.
    async fn read_to_end(&mut self) -> Result<Vec<LogEntry>, StoreError>;

    /// Waits up to `timeout` for records past the position, and returns those that arrived
    /// (possibly none). Advances the position. Cancel-safe: a poll dropped before it
    /// returns advances the position past nothing it did not return.
    async fn poll(&mut self, timeout: Duration) -> Result<Vec<LogEntry>, StoreError>;
}
