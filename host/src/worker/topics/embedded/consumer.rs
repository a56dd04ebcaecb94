//! [`EmbeddedConsumer`]: one member of a consumer group reading embedded data topics.
//!
//! `next` first releases what the member was told is revoked (the caller had its chance
//! to commit), then reports, in this order, partitions to give up (`Revoked`), partitions
//! gained (`Assigned`, positioned at the group's committed offsets), and records. A
//! partition without a committed offset, or whose position is below its log start offset
//! (retention deleted those records), is reset as `auto.offset.reset` says (see
//! `offset_reset.rs`), with a log line naming the partition and the new position. A fetch
//! takes at most `max.poll.records` records and the bytes `fetch_size.rs` allows.
//! With nothing to report it waits, without polling, on the group's change channel and on
//! the backend's change channel for its topics, and wakes at least every
//! [`TOPIC_REFRESH`] to list topics again (and to see another process's writes).
//! It must not decide the assignment: the coordinator does.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use tokio::sync::watch;
use tokio::time::Instant;

use super::coordinator::{Coordinator, TOPIC_REFRESH};
use super::fetch_size::FetchSize;
use super::group::Step;
use super::offset_reset::OffsetReset;
use crate::model::{TopicPartition, TopicPartitionOffset};
use crate::store::{
    DataChanges, DataEntry, DataReader, EmbeddedBackend, OutOfRange, ReadLimits, StoreError,
};
use crate::worker::topics::{ConsumerEvent, InRecord, RecordConsumer, TopicError};

/// A member of a consumer group over the embedded store.
pub(super) struct EmbeddedConsumer {
    pub(super) backend: EmbeddedBackend,
    pub(super) coordinator: Arc<Coordinator>,
    pub(super) group: String,
    pub(super) client_id: String,
    /// Member id within the coordinator.
    pub(super) id: u64,
    pub(super) reader: DataReader,
    /// Changes of the group (joins, leaves, releases).
    pub(super) group_changes: watch::Receiver<u64>,
    /// This process's data writes.
    pub(super) data_changes: watch::Receiver<DataChanges>,
    /// Next offset to read, per held partition (revoked ones are gone from here).
    pub(super) positions: BTreeMap<TopicPartition, i64>,
    /// Whether fetching is paused.
    pub(super) paused: bool,
    /// Rotates the partition read first, so none starves.
    pub(super) turn: usize,
    /// `auto.offset.reset`.
    pub(super) reset: OffsetReset,
    /// `fetch.max.bytes` and `max.partition.fetch.bytes`.
    pub(super) fetch_size: FetchSize,
}

/// The position of a partition without a committed offset: below any log start, so the
/// first fetch resets it as `auto.offset.reset` says.
const UNDEFINED: i64 = -1;

impl EmbeddedConsumer {
    /// A counter that moves when this process writes to a read topic or creates a topic.
    fn data_version(&self, changes: &DataChanges) -> u64 {
        let mut topics: Vec<&str> = self.positions.keys().map(|tp| tp.topic.as_str()).collect();
        topics.dedup();
        topics.iter().map(|t| changes.appended(t)).sum::<u64>() + changes.topics_created()
    }

    /// Positions gained partitions at the group's committed offsets ([`UNDEFINED`] when
    /// none).
    async fn position(&mut self, gained: &[TopicPartition]) -> Result<(), TopicError> {
        let committed = self.backend.group_offsets(&self.group).await.map_err(consume)?;
        for tp in gained {
            let offset = committed
                .iter()
                .find(|c| c.topic == tp.topic && c.partition == tp.partition)
                .map_or(UNDEFINED, |c| c.offset);
            self.positions.insert(tp.clone(), offset);
        }
        Ok(())
    }

    /// Reads up to `max` records (and [`FetchSize`]'s bytes) of the held partitions, from a
    /// rotating first partition.
    async fn fetch(&mut self, max: usize) -> Result<Vec<InRecord>, TopicError> {
        if self.paused || self.positions.is_empty() {
            return Ok(Vec::new());
        }
        let mut from: Vec<TopicPartitionOffset> = self
            .positions
            .iter()
            .map(|(tp, offset)| TopicPartitionOffset {
                topic: tp.topic.clone(),
                partition: tp.partition,
                offset: *offset,
            })
            .collect();
        self.turn = self.turn.wrapping_add(1);
        let len = from.len();
        from.rotate_left(self.turn % len);
        let partition_bytes = self.fetch_size.partition_bytes;
        let limits = |records: usize, bytes: usize| ReadLimits { records, bytes, partition_bytes };
        let mut read = self
            .reader
            .read_checked(from, limits(max, self.fetch_size.bytes))
            .await
            .map_err(consume)?;
        if !read.out_of_range.is_empty() {
            let retry = read.out_of_range.iter().map(|o| o.position.clone()).collect::<Vec<_>>();
            self.reset(&read.out_of_range)?;
            let from = retry
                .into_iter()
                .filter_map(|p| {
                    let tp = TopicPartition { topic: p.topic, partition: p.partition };
                    let offset = *self.positions.get(&tp)?;
                    Some(TopicPartitionOffset { topic: tp.topic, partition: tp.partition, offset })
                })
                .collect();
            let left = max - read.entries.len();
            let bytes_left = self.fetch_size.bytes.saturating_sub(read.bytes);
            let more = match (left, bytes_left) {
                (0, _) | (_, 0) => Default::default(),
                _ => self
                    .reader
                    .read_checked(from, limits(left, bytes_left))
                    .await
                    .map_err(consume)?,
            };
            read.entries.extend(more.entries);
        }
        Ok(read.entries.into_iter().map(|entry| self.advance(entry)).collect())
    }

    /// Moves positions below their log start as `auto.offset.reset` says, or fails (`none`)
    /// in Kafka's words.
    fn reset(&mut self, out_of_range: &[OutOfRange]) -> Result<(), TopicError> {
        if self.reset == OffsetReset::None {
            let partitions: Vec<String> = out_of_range
                .iter()
                .map(|o| {
                    format!("{}-{}={}", o.position.topic, o.position.partition, o.position.offset)
                })
                .collect();
            let what = if out_of_range.iter().all(|o| o.position.offset == UNDEFINED) {
                "Undefined offset"
            } else {
                "Offsets out of range"
            };
            return Err(TopicError::Consume(format!(
                "{what} with no configured reset policy for partitions: {{{}}}",
                partitions.join(", ")
            )));
        }
        for o in out_of_range {
            let to = match self.reset {
                OffsetReset::Latest => o.log_end,
                _ => o.log_start,
            };
            let tp =
                TopicPartition { topic: o.position.topic.clone(), partition: o.position.partition };
            if o.position.offset == UNDEFINED {
                tracing::info!(
                    group = %self.group, client = %self.client_id,
                    partition = %format!("{}-{}", tp.topic, tp.partition), offset = to,
                    reset = ?self.reset, "Resetting offset for partition (no committed offset)"
                );
            } else {
                tracing::info!(
                    group = %self.group, client = %self.client_id,
                    partition = %format!("{}-{}", tp.topic, tp.partition),
                    position = o.position.offset, log_start = o.log_start, offset = to,
                    reset = ?self.reset,
                    "Fetch position is out of range for partition (below the log start offset), resetting offset"
                );
            }
            self.positions.insert(tp, to);
        }
        Ok(())
    }

    /// Moves past `entry` and converts it.
    fn advance(&mut self, entry: DataEntry) -> InRecord {
        let tp = TopicPartition { topic: entry.topic, partition: entry.partition };
        self.positions.insert(tp.clone(), entry.offset + 1);
        InRecord {
            topic: tp.topic.into(),
            partition: tp.partition,
            offset: entry.offset,
            timestamp: Some(entry.timestamp_ms),
            key: entry.key.map(Into::into),
            value: entry.value.map(Into::into),
            headers: entry.headers,
        }
    }

    /// Waits until `until`, or until the group changes, or this process writes to a read
    /// topic or creates a topic (anything after `data_version`).
    async fn wait(&self, until: Instant, data_version: u64) {
        let mut data = self.data_changes.clone();
        let wanted = |changes: &DataChanges| self.data_version(changes) != data_version;
        let data_moved = async {
            loop {
                if data.changed().await.is_err() {
                    std::future::pending::<()>().await;
                }
                if wanted(&data.borrow_and_update()) {
                    return;
                }
            }
        };
        let mut group = self.group_changes.clone();
        let group_moved = async {
            if group.changed().await.is_err() {
                std::future::pending::<()>().await;
            }
        };
        tokio::select! {
            () = data_moved => {}
            () = group_moved => {}
            () = tokio::time::sleep_until(until) => {}
        }
    }
}

#[async_trait]
impl RecordConsumer for EmbeddedConsumer {
    async fn next(
        &mut self,
        timeout: Duration,
        max_records: usize,
    ) -> Result<Option<ConsumerEvent>, TopicError> {
        let deadline = Instant::now() + timeout;
        self.coordinator.release(&self.group, self.id);
        loop {
            // Mark what was seen before looking, so a change meanwhile ends the wait.
            self.group_changes.borrow_and_update();
            let changes = self.data_changes.borrow_and_update().clone();
            let data_version = self.data_version(&changes);
            self.coordinator
                .refresh(&self.backend, changes.topics_created(), false)
                .await
                .map_err(consume)?;
            let retry_at = match self.coordinator.step(&self.group, self.id) {
                Step::Revoke(revoked) => {
                    for tp in &revoked {
                        self.positions.remove(tp);
                    }
                    tracing::info!(
                        group = %self.group, client = %self.client_id, partitions = ?revoked,
                        "Partitions revoked"
                    );
                    return Ok(Some(ConsumerEvent::Revoked(revoked)));
                }
                Step::Assign(gained) => {
                    self.position(&gained).await?;
                    tracing::info!(
                        group = %self.group, client = %self.client_id, partitions = ?gained,
                        "Partitions assigned"
                    );
                    return Ok(Some(ConsumerEvent::Assigned(gained)));
                }
                Step::Idle { retry_at } => retry_at,
            };
            let records = self.fetch(max_records).await?;
            if !records.is_empty() {
                return Ok(Some(ConsumerEvent::Records(records)));
            }
            let now = Instant::now();
            if now >= deadline {
                return Ok(None);
            }
            let mut until = deadline.min(now + TOPIC_REFRESH);
            if let Some(at) = retry_at {
                until = until.min(at);
            }
            self.wait(until, data_version).await;
        }
    }

    async fn commit(&mut self, offsets: Vec<TopicPartitionOffset>) -> Result<(), TopicError> {
        let partitions: Vec<TopicPartition> = offsets
            .iter()
            .map(|o| TopicPartition { topic: o.topic.clone(), partition: o.partition })
            .collect();
        let not_held = self.coordinator.not_held(&self.group, self.id, &partitions);
        if let Some(tp) = not_held.first() {
            return Err(TopicError::Consume(format!(
                "cannot commit offsets of group '{}': partition {}-{} is not assigned to member \
                 '{}'",
                self.group, tp.topic, tp.partition, self.client_id
            )));
        }
        self.backend.commit_group_offsets(&self.group, offsets).await.map_err(consume)
    }

    async fn pause(&mut self) -> Result<(), TopicError> {
        self.paused = true;
        Ok(())
    }

    async fn resume(&mut self) -> Result<(), TopicError> {
        self.paused = false;
        Ok(())
    }

    async fn close(self: Box<Self>) {
        // Dropping leaves the group.
    }
}

impl Drop for EmbeddedConsumer {
    fn drop(&mut self) {
        self.coordinator.leave(&self.group, self.id);
        tracing::debug!(group = %self.group, client = %self.client_id, "Left the consumer group");
    }
}

/// A store error as the task sees it: an unreadable store is not retried.
fn consume(e: StoreError) -> TopicError {
    match e {
        StoreError::Unreadable(_) => TopicError::Unreadable(e.to_string()),
        e => TopicError::Consume(e.to_string()),
    }
}
