//! [`SinkHarness`]: drives a [`SinkTask`] through the SDK's `sink-task` glue, playing the
//! worker: records are encoded as a `record-batch` before `put`, and consumer offsets are
//! committed through `pre_commit`. It also builds [`SinkRecord`]s with increasing Kafka
//! offsets per topic-partition.

use std::collections::BTreeMap;
use std::marker::PhantomData;

use serde_json::Value;

use super::records::RecordFactory;
use super::{Kind as SlotKind, SlotGuard};
use crate::bindings::sink::exports::wasm_connect::connector::sink_task::Guest;
use crate::glue::Glue;
use crate::glue::convert::{
    config_to_wit, error_from_wit, failure_from_wit, offset_from_wit, offset_to_wit,
    partition_to_wit,
};
use crate::{
    Config, RecordFailure, Result, SinkRecord, SinkTask, TopicPartition, TopicPartitionOffset,
};

/// Drives sink task `T` as the worker does.
///
/// Build records with [`string_records`](Self::string_records),
/// [`json_records`](Self::json_records) or [`next_record`](Self::next_record): each
/// topic-partition's Kafka offsets count up from 0. [`put`](Self::put) encodes them as a
/// `record-batch` (the glue decodes it, as in a component) and remembers, per
/// topic-partition, the offset after the last record delivered;
/// [`commit`](Self::commit) hands those to `pre_commit` and keeps what the task says is
/// safe as the committed consumer offsets.
pub struct SinkHarness<T: SinkTask> {
    /// The next Kafka offset of each topic-partition, for new records.
    records: RecordFactory,
    /// The offset after the last record `put` took, per topic-partition.
    delivered: BTreeMap<TopicPartition, i64>,
    /// The consumer offsets committed so far.
    committed: BTreeMap<TopicPartition, i64>,
    _slot: SlotGuard,
    _task: PhantomData<fn() -> T>,
}

impl<T: SinkTask> Default for SinkHarness<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: SinkTask> SinkHarness<T> {
    /// A harness with no task yet. Panics if another `SinkHarness` is alive on this
    /// thread.
    pub fn new() -> Self {
        Self {
            records: RecordFactory::default(),
            delivered: BTreeMap::new(),
            committed: BTreeMap::new(),
            _slot: SlotGuard::take(SlotKind::Sink),
            _task: PhantomData,
        }
    }

    /// Starts a task instance with `config`.
    pub fn start(&mut self, config: Config) -> Result<()> {
        <Glue<(), T> as Guest>::start(config_to_wit(config)).map_err(error_from_wit)
    }

    /// Assigns `partitions` to the task.
    pub fn open(&mut self, partitions: &[TopicPartition]) -> Result<()> {
        let partitions = partitions.iter().map(partition_to_wit).collect();
        <Glue<(), T> as Guest>::open(partitions).map_err(error_from_wit)
    }

    /// Takes `partitions` away from the task.
    pub fn close(&mut self, partitions: &[TopicPartition]) -> Result<()> {
        let partitions = partitions.iter().map(partition_to_wit).collect();
        <Glue<(), T> as Guest>::close(partitions).map_err(error_from_wit)
    }

    /// A record of `topic`/`partition` at the partition's next Kafka offset, with a null
    /// key and value; set the rest with struct update syntax.
    pub fn next_record(&mut self, topic: &str, partition: i32) -> SinkRecord {
        self.records.next_record(topic, partition)
    }

    /// Records of `topic`/`partition` with text values ([`Kind::String`], as Kafka
    /// Connect's `StringConverter` reads them), at increasing offsets.
    ///
    /// [`Kind::String`]: crate::Kind::String
    pub fn string_records<S: Into<String>>(
        &mut self,
        topic: &str,
        partition: i32,
        values: impl IntoIterator<Item = S>,
    ) -> Vec<SinkRecord> {
        self.records.string_records(topic, partition, values)
    }

    /// Records of `topic`/`partition` with schemaless JSON values ([`Kind::Json`], as
    /// `JsonConverter` with `schemas.enable=false` reads them), at increasing offsets.
    ///
    /// [`Kind::Json`]: crate::Kind::Json
    pub fn json_records(
        &mut self,
        topic: &str,
        partition: i32,
        values: impl IntoIterator<Item = Value>,
    ) -> Vec<SinkRecord> {
        self.records.json_records(topic, partition, values)
    }

    /// Delivers `records` in one `put` and returns the records the task failed. On
    /// success, every record counts as delivered (failed ones too: the worker routes them
    /// by `errors.tolerance` and moves on).
    pub fn put(&mut self, records: &[SinkRecord]) -> Result<Vec<RecordFailure>> {
        let batch = wasm_connect_batch::encode(records);
        let failures = <Glue<(), T> as Guest>::put(batch).map_err(error_from_wit)?;
        for r in records {
            if let (Some(partition), Some(offset)) = (r.partition, r.offset) {
                let tp = TopicPartition { topic: r.topic.clone(), partition };
                self.delivered.insert(tp, offset + 1);
            }
        }
        Ok(failures.into_iter().map(failure_from_wit).collect())
    }

    /// Calls `pre_commit` with `offsets` and returns its answer, committing nothing.
    pub fn pre_commit(
        &mut self,
        offsets: Vec<TopicPartitionOffset>,
    ) -> Result<Vec<TopicPartitionOffset>> {
        let offsets = offsets.into_iter().map(offset_to_wit).collect();
        let safe = <Glue<(), T> as Guest>::pre_commit(offsets).map_err(error_from_wit)?;
        Ok(safe.into_iter().map(offset_from_wit).collect())
    }

    /// Commits as the worker does on its offset-flush interval: `pre_commit` with the
    /// offsets after the last delivered record of each topic-partition, then keeps the
    /// answer as the committed consumer offsets, and returns it.
    pub fn commit(&mut self) -> Result<Vec<TopicPartitionOffset>> {
        let offsets = self
            .delivered
            .iter()
            .map(|(tp, &offset)| TopicPartitionOffset {
                topic: tp.topic.clone(),
                partition: tp.partition,
                offset,
            })
            .collect();
        let safe = self.pre_commit(offsets)?;
        for o in &safe {
            let tp = TopicPartition { topic: o.topic.clone(), partition: o.partition };
            self.committed.insert(tp, o.offset);
        }
        Ok(safe)
    }

    /// The committed consumer offset of `partition`: the offset of the next record to
    /// read.
    pub fn committed_offset(&self, partition: &TopicPartition) -> Option<i64> {
        self.committed.get(partition).copied()
    }

    /// Stops the task and drops the instance.
    pub fn stop(&mut self) {
        <Glue<(), T> as Guest>::stop();
    }
}
