//! [`EmbeddedTopics`]: [`DataTopics`] over the embedded SQLite store of standalone mode,
//! so `source → topic → sink` runs without Kafka, with Kafka's at-least-once semantics.
//!
//! Every producer of the process is one shared producer with one writer task (order kept
//! across calls, so each task's records stay in order; calls queued by many tasks at once
//! are batched into one transaction, so 10,000 tasks do not ask for 10,000 `fsync`s). A topic written to before it was created has one
//! partition and the worker's default retention (the embedded stand-in for a broker's
//! topic auto-creation) unless [`DataTopics::create_topic`] made it first, with the
//! retention its `topic.creation.*` configs set (`retention.ms`, `retention.bytes`,
//! `cleanup.policy`). Consumers
//! are members of consumer groups coordinated in this process (one worker process owns the
//! file in standalone mode): partitions are dealt round-robin and move cooperatively, a
//! member giving up a partition being told `Revoked` and keeping it until its next `next`
//! (at most [`REVOKE_TIMEOUT`]). Committed offsets live in the file, so they survive a
//! crash: a restarted sink resumes after its last commit, or at the log start when
//! retention deleted what it had not read (`auto.offset.reset`, `earliest` by default).
//!
//! It owns the client side of embedded data topics; it must not know plugins, converters
//! or the SQL, which is the store's (`store/embedded`).
//!
//! Layout: this file (the handle), `producer.rs`, `consumer.rs`, `coordinator.rs` (the
//! groups of the process and the topic listing), `group.rs` (one group's protocol),
//! `assignment.rs` (round-robin), `subscription.rs` (topic lists and anchored regexes),
//! `offset_reset.rs` (`auto.offset.reset`), `fetch_size.rs` (`fetch.max.bytes`,
//! `max.partition.fetch.bytes`), `transactional.rs` (a source task's transactions under
//! exactly-once delivery: one SQLite transaction each).

mod assignment;
mod consumer;
mod coordinator;
mod fetch_size;
mod group;
mod offset_reset;
mod producer;
mod subscription;
mod transactional;

#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use async_trait::async_trait;

use self::consumer::EmbeddedConsumer;
use self::coordinator::Coordinator;
use self::fetch_size::{FETCH_MAX_BYTES, FetchSize, MAX_PARTITION_FETCH_BYTES};
use self::offset_reset::{AUTO_OFFSET_RESET, OffsetReset};
use self::producer::EmbeddedProducer;
use self::subscription::Matcher;
use super::{
    DataTopics, NewTopic, RecordConsumer, RecordProducer, Subscription, TopicError,
    TransactionalProducer,
};
use crate::model::RetentionOverrides;
use crate::store::EmbeddedBackend;

/// How long a group member may keep partitions it was told are revoked before they move
/// anyway (Kafka's `max.poll.interval.ms` plays this part, 5 minutes by default; a sink
/// task calls `next` far more often than that, so a shorter wait bounds a stuck task's
/// hold without cutting off a slow flush).
pub const REVOKE_TIMEOUT: Duration = Duration::from_secs(30);

/// The name of the shared producer's writer in logs.
const SHARED_PRODUCER: &str = "wasm-connect-producer";

/// Data topics in an embedded store. Clones share the store and the consumer groups.
#[derive(Clone)]
pub struct EmbeddedTopics {
    backend: EmbeddedBackend,
    coordinator: Arc<Coordinator>,
    /// The one producer every task of the process shares (made at the first request), so
    /// records of many tasks queued at once go into one transaction and one `fsync`.
    producer: Arc<Mutex<Option<Arc<dyn RecordProducer>>>>,
}

impl std::fmt::Debug for EmbeddedTopics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EmbeddedTopics").field("backend", &self.backend).finish_non_exhaustive()
    }
}

impl EmbeddedTopics {
    /// Data topics in `backend`'s file, with consumer groups coordinated by this value
    /// and its clones (make one per process and clone it).
    pub fn new(backend: EmbeddedBackend) -> Self {
        Self::with_revoke_timeout(backend, REVOKE_TIMEOUT)
    }

    /// [`Self::new`], with members given `revoke_timeout` to release revoked partitions.
    pub fn with_revoke_timeout(backend: EmbeddedBackend, revoke_timeout: Duration) -> Self {
        Self {
            backend,
            coordinator: Arc::new(Coordinator::new(revoke_timeout)),
            producer: Arc::default(),
        }
    }

    /// The store.
    pub fn backend(&self) -> &EmbeddedBackend {
        &self.backend
    }

    /// Whether consumer group `group` has members (open consumers) in this process.
    pub fn group_has_members(&self, group: &str) -> bool {
        self.coordinator.has_members(group)
    }
}

#[async_trait]
impl DataTopics for EmbeddedTopics {
    fn producer(
        &self,
        client_id: &str,
        overrides: &[(String, String)],
    ) -> Result<Arc<dyn RecordProducer>, TopicError> {
        if !overrides.is_empty() {
            let keys: Vec<&str> = overrides.iter().map(|(k, _)| k.as_str()).collect();
            tracing::debug!(
                producer = client_id,
                ?keys,
                "Producer overrides do not apply to embedded topics"
            );
        }
        let mut shared = self.producer.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(producer) = shared.as_ref() {
            return Ok(producer.clone());
        }
        let producer: Arc<dyn RecordProducer> =
            Arc::new(EmbeddedProducer::start(self.backend.clone(), SHARED_PRODUCER)?);
        *shared = Some(producer.clone());
        Ok(producer)
    }

    async fn consumer(
        &self,
        group: &str,
        client_id: &str,
        subscription: &Subscription,
        overrides: &[(String, String)],
    ) -> Result<Box<dyn RecordConsumer>, TopicError> {
        let reset = OffsetReset::from_overrides(overrides)?;
        let fetch_size = FetchSize::from_overrides(overrides)?;
        let applied = [AUTO_OFFSET_RESET, FETCH_MAX_BYTES, MAX_PARTITION_FETCH_BYTES];
        let ignored: Vec<&str> =
            overrides.iter().map(|(k, _)| k.as_str()).filter(|k| !applied.contains(k)).collect();
        if !ignored.is_empty() {
            tracing::debug!(
                consumer = client_id,
                keys = ?ignored,
                applied = ?applied,
                "Only some consumer overrides apply to embedded topics"
            );
        }
        let matcher = Arc::new(Matcher::new(subscription)?);
        let consume = |e: crate::store::StoreError| TopicError::Consume(e.to_string());
        let reader = self.backend.data_reader().await.map_err(consume)?;
        let data_changes = self.backend.data_changes();
        let created = data_changes.borrow().topics_created();
        self.coordinator.refresh(&self.backend, created, true).await.map_err(consume)?;
        let (id, group_changes) = self.coordinator.join(group, matcher);
        tracing::info!(group, client = client_id, "Joined the consumer group");
        Ok(Box::new(EmbeddedConsumer {
            backend: self.backend.clone(),
            coordinator: self.coordinator.clone(),
            group: group.to_owned(),
            client_id: client_id.to_owned(),
            id,
            reader,
            group_changes,
            data_changes,
            positions: BTreeMap::new(),
            paused: false,
            turn: 0,
            reset,
            fetch_size,
        }))
    }

    async fn transactional_producer(
        &self,
        _transactional_id: &str,
        offsets_topic: &str,
        _overrides: &[(String, String)],
    ) -> Result<Arc<dyn TransactionalProducer>, TopicError> {
        // One process owns the file: there is no older producer to fence.
        Ok(Arc::new(transactional::EmbeddedTransactional {
            backend: self.backend.clone(),
            offsets_topic: offsets_topic.to_owned(),
            open: Default::default(),
        }))
    }

    async fn create_topic(&self, topic: &NewTopic) -> Result<bool, TopicError> {
        let failed = |reason: String| TopicError::Create { topic: topic.name.clone(), reason };
        let overrides = RetentionOverrides::from_configs(&topic.configs).map_err(failed)?;
        let created = self
            .backend
            .create_data_topic(&topic.name, topic.partitions, overrides)
            .await
            .map_err(|e| failed(e.to_string()))?;
        if created {
            tracing::info!(
                topic = %topic.name, partitions = topic.partitions,
                "Created an embedded data topic"
            );
        }
        Ok(created)
    }

    async fn topic_exists(&self, topic: &str) -> Result<bool, TopicError> {
        let topics = self
            .backend
            .list_topics()
            .await
            .map_err(|e| TopicError::Create { topic: topic.to_owned(), reason: e.to_string() })?;
        Ok(topics.iter().any(|t| t.name == topic))
    }
}
