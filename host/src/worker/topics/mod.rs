//! The data topics tasks read and write: what a source task produces to and a sink task
//! consumes from, behind two narrow traits with a Kafka backend (rdkafka) and an embedded
//! backend (the standalone SQLite file).
//!
//! It owns the client side of data topics: producing with acknowledgements, consuming in a
//! consumer group with assignment events, committing group offsets, creating topics. It
//! must not know about plugins, converters or error tolerance: the task loops in
//! `worker/source_task.rs` and `worker/sink_task.rs` hold those.
//!
//! Layout: this file (the traits and the record types), `kafka.rs` ([`KafkaTopics`]:
//! client settings, topic creation), `kafka_producer.rs` (with `producer_id.rs`, a new
//! producer's early producer id request), `kafka_consumer.rs` (with
//! `kafka_batch.rs`, its batch queue), `kafka_transactional.rs` (a source task's
//! transactions under exactly-once delivery), and
//! `embedded/` ([`EmbeddedTopics`]: both roles over SQLite, with an in-process group
//! coordinator).

mod embedded;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use bytes::Bytes;

pub use embedded::EmbeddedTopics;
pub use wasm_connect_batch::Header;

use crate::model::{TopicPartition, TopicPartitionOffset};

mod kafka;
mod kafka_batch;
mod kafka_consumer;
#[cfg(test)]
mod kafka_consumer_tests;
mod kafka_producer;
#[cfg(test)]
mod kafka_tests;
mod kafka_transactional;
mod producer_id;

pub use kafka::{KafkaClientSettings, KafkaTopics};

/// A record to write to a data topic, after conversion. Its topic and bytes are shared, not
/// owned: a source task's records slice the batch the plugin returned, and repeat one topic.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OutRecord {
    /// Topic.
    pub topic: Arc<str>,
    /// Partition; `None` lets the backend choose by key (murmur2, as Kafka's producer).
    pub partition: Option<i32>,
    /// Milliseconds since the epoch; `None` lets the backend stamp it.
    pub timestamp: Option<i64>,
    /// Serialized key.
    pub key: Option<Bytes>,
    /// Serialized value; `None` is a tombstone.
    pub value: Option<Bytes>,
    /// Headers, in order.
    pub headers: Vec<Header>,
}

/// Where a record was written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Delivered {
    /// Partition.
    pub partition: i32,
    /// Offset.
    pub offset: i64,
}

/// A record read from a data topic, before conversion. Its key and value may slice one
/// buffer shared by the records of a batch.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InRecord {
    /// Topic, shared by the records of a batch (a consumer reads one name per run).
    pub topic: Arc<str>,
    /// Partition.
    pub partition: i32,
    /// Offset.
    pub offset: i64,
    /// Milliseconds since the epoch, if the record has one.
    pub timestamp: Option<i64>,
    /// Serialized key.
    pub key: Option<Bytes>,
    /// Serialized value.
    pub value: Option<Bytes>,
    /// Headers, in order.
    pub headers: Vec<Header>,
}

impl InRecord {
    /// Its topic-partition.
    pub fn topic_partition(&self) -> TopicPartition {
        TopicPartition { topic: self.topic.to_string(), partition: self.partition }
    }
}

/// Why a data-topic operation failed.
#[derive(Debug, thiserror::Error)]
pub enum TopicError {
    /// Writing a record failed for good (the producer gave up, or a permanent error).
    #[error("cannot write to topic '{topic}': {reason}")]
    Produce {
        /// Topic.
        topic: String,
        /// The client's reason.
        reason: String,
    },
    /// Reading, joining the group or committing failed; a later attempt may succeed (a
    /// broker away, a lock held too long).
    #[error("cannot consume: {0}")]
    Consume(String),
    /// Reading failed in a way no retry mends (the embedded store's file is damaged or its
    /// disk failed): the task fails with it instead of trying again.
    #[error("cannot consume, and retrying cannot help: {0}")]
    Unreadable(String),
    /// Creating or describing a topic failed.
    #[error("cannot create topic '{topic}': {reason}")]
    Create {
        /// Topic.
        topic: String,
        /// The reason.
        reason: String,
    },
    /// The client configuration is invalid (names the key).
    #[error("invalid client configuration: {0}")]
    Config(String),
    /// A transaction could not be begun, committed or aborted; nothing of it is visible to
    /// `read_committed` readers. Includes a producer fenced by a newer one with its
    /// `transactional.id` (a zombie).
    #[error("{0}")]
    Transaction(String),
    /// The records were sent in a transaction that was aborted: they are not written.
    #[error("the transaction was aborted")]
    Aborted,
}

impl TopicError {
    /// Whether trying the same operation again may succeed.
    pub fn is_retriable(&self) -> bool {
        !matches!(self, Self::Unreadable(_))
    }
}

/// The future of one [`RecordProducer::send`] call.
pub type SendFuture = Pin<Box<dyn Future<Output = Result<Vec<Delivered>, TopicError>> + Send>>;

/// Writes records to data topics, idempotently and durably (Kafka: `acks=all`).
pub trait RecordProducer: Send + Sync + 'static {
    /// Queues `records`, in order after every earlier call's records, and returns a future
    /// that resolves once every one of them is durably written, with their positions in
    /// input order. The queueing happens before this returns, so calls made one after the
    /// other keep their order within a partition even if their futures are awaited later
    /// or concurrently. An `Err` means some of the records may not be written.
    fn send(&self, records: Vec<OutRecord>) -> SendFuture;
}

/// The producer of one source task under exactly-once delivery (KIP-618): the task's
/// records and the source offsets they carry become visible together, or not at all.
///
/// `send` adds records to the open transaction (opening one when none is); `commit`
/// writes the offsets records to the offsets topic in the same transaction and commits
/// it. A `send`'s future resolves with the records' positions once they are written
/// (Kafka: acknowledged, before the commit; embedded: at the commit); await it only after
/// `commit` (after `abort` its outcome means nothing: the records are not written). One
/// task uses it, from one place, never concurrently.
#[async_trait]
pub trait TransactionalProducer: Send + Sync + 'static {
    /// Adds `records` to the open transaction, opening one if none is open.
    fn send(&self, records: Vec<OutRecord>) -> SendFuture;

    /// Writes `offsets` (records of the offsets topic) in the open transaction, opening
    /// one if none is open, and commits it.
    async fn commit(&self, offsets: Vec<crate::store::LogRecord>) -> Result<(), TopicError>;

    /// Aborts the open transaction, if any: its records are not written.
    async fn abort(&self) -> Result<(), TopicError>;
}

/// A topic that sources may write to: created when missing, as `topic.creation.*` says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewTopic {
    /// Topic name.
    pub name: String,
    /// Partitions (`-1`: the broker default).
    pub partitions: i32,
    /// Replication factor (`-1`: the broker default).
    pub replication_factor: i16,
    /// Other topic configs, e.g. `cleanup.policy`.
    pub configs: Vec<(String, String)>,
}

/// What a sink task subscribes to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Subscription {
    /// These topics (`topics`).
    Topics(Vec<String>),
    /// Every topic matching this regular expression, now and later (`topics.regex`).
    Pattern(String),
}

/// What a consumer reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConsumerEvent {
    /// These partitions are now assigned to this member, consumption starts at the group's
    /// committed offsets (or the earliest offset when none is committed).
    Assigned(Vec<TopicPartition>),
    /// These partitions are being taken away. Until the caller's next call to
    /// [`RecordConsumer::next`], the revocation waits, and [`RecordConsumer::commit`] still
    /// commits offsets of these partitions: flush and commit them, then call `next`.
    Revoked(Vec<TopicPartition>),
    /// Records of assigned partitions, in offset order within each partition.
    Records(Vec<InRecord>),
}

/// One member of a consumer group (a sink task), reading its assigned partitions.
#[async_trait]
pub trait RecordConsumer: Send + 'static {
    /// Waits up to `timeout` for the next event; `None` when nothing happened. At most
    /// `max_records` records come in one `Records` event.
    async fn next(
        &mut self,
        timeout: Duration,
        max_records: usize,
    ) -> Result<Option<ConsumerEvent>, TopicError>;

    /// Commits `offsets` (the next offset to read, per partition) for the group. During a
    /// revocation it returns once they are durable; otherwise a backend may commit
    /// asynchronously (Kafka, as Kafka Connect's periodic commits do), a failure being
    /// logged and covered by the next commit.
    async fn commit(&mut self, offsets: Vec<TopicPartitionOffset>) -> Result<(), TopicError>;

    /// Stops fetching from every assigned partition (membership stays).
    async fn pause(&mut self) -> Result<(), TopicError>;

    /// Fetches again after [`pause`](Self::pause).
    async fn resume(&mut self) -> Result<(), TopicError>;

    /// Leaves the group. Its partitions go to the remaining members.
    async fn close(self: Box<Self>);
}

/// Where data topics live: opens producers and consumers, creates topics.
#[async_trait]
pub trait DataTopics: Send + Sync + 'static {
    /// A producer; `client_id` names it in logs (e.g. `connector-producer-name-0`), and
    /// `overrides` are extra client properties (`producer.override.*` without the prefix).
    fn producer(
        &self,
        client_id: &str,
        overrides: &[(String, String)],
    ) -> Result<std::sync::Arc<dyn RecordProducer>, TopicError>;

    /// A member of consumer group `group` subscribed to `subscription`.
    async fn consumer(
        &self,
        group: &str,
        client_id: &str,
        subscription: &Subscription,
        overrides: &[(String, String)],
    ) -> Result<Box<dyn RecordConsumer>, TopicError>;

    /// Creates `topic` if it does not exist; returns whether it created it.
    async fn create_topic(&self, topic: &NewTopic) -> Result<bool, TopicError>;

    /// Whether `topic` exists.
    async fn topic_exists(&self, topic: &str) -> Result<bool, TopicError>;

    /// The transactional producer of one source task under exactly-once delivery, whose
    /// transactions write offsets to `offsets_topic`. `transactional_id` is Kafka's
    /// `transactional.id` (`<group.id>-<connector>-<task>`; creating the producer fences any
    /// older one with the same id); `overrides` as for [`producer`](Self::producer).
    async fn transactional_producer(
        &self,
        transactional_id: &str,
        offsets_topic: &str,
        overrides: &[(String, String)],
    ) -> Result<std::sync::Arc<dyn TransactionalProducer>, TopicError>;
}
