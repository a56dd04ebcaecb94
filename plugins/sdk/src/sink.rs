//! [`SinkTask`]: the half of a sink plugin that writes records to an outside system.
//!
//! This module owns the trait and its contract only; `glue` decodes the batches that
//! reach [`SinkTask::put`].

use crate::{
    Config, RecordFailure, Result, SinkRecord, SinkRecordRef, TopicPartition, TopicPartitionOffset,
};

/// A sink task (Kafka Connect's `SinkTask`).
///
/// The worker creates one instance per task with [`Default`], in a sandbox of its own
/// with the grants its task config asks for. It calls [`start`](Self::start) once; then
/// [`open`](Self::open) for newly assigned partitions, [`put`](Self::put) with records of
/// open partitions, [`pre_commit`](Self::pre_commit) before consumer offsets are
/// committed and [`close`](Self::close) for revoked partitions, in any interleaving; then
/// [`stop`](Self::stop) at most once, after a final `close`. Calls never overlap.
pub trait SinkTask: Default + 'static {
    /// Starts the task with one of the configs its connector's `task_configs` returned.
    fn start(&mut self, config: Config) -> Result<()>;

    /// Partitions newly assigned to this task. The default does nothing.
    fn open(&mut self, partitions: &[TopicPartition]) -> Result<()> {
        let _ = partitions;
        Ok(())
    }

    /// Partitions taken away from this task; flush what is held for them. The default
    /// does nothing.
    fn close(&mut self, partitions: &[TopicPartition]) -> Result<()> {
        let _ = partitions;
        Ok(())
    }

    /// Writes a batch of records. Returns the records it could not handle (by index in
    /// `records`), which the worker routes by the connector's `errors.*` settings; an
    /// empty `Vec` means all were handled. `Err(Error::Retriable)` makes the worker
    /// deliver the same batch again after a back-off.
    ///
    /// [`Error::Retriable`]: crate::Error::Retriable
    fn put(&mut self, records: &[SinkRecord]) -> Result<Vec<RecordFailure>>;

    /// What the worker calls for a batch: [`put`](Self::put) with the same contract, the
    /// records borrowed from the batch instead of copied out of it. The default copies them
    /// into [`SinkRecord`]s and calls `put`; a task that only reads its records can
    /// override it and skip a copy and three allocations a record.
    fn put_refs(&mut self, records: &[SinkRecordRef<'_>]) -> Result<Vec<RecordFailure>> {
        let owned: Vec<SinkRecord> = records.iter().map(SinkRecordRef::to_record).collect();
        self.put(&owned)
    }

    /// Flushes everything put so far and returns the offsets that are safe to commit,
    /// given the offsets of the records delivered so far. The default returns `offsets`
    /// unchanged (Kafka Connect's default); returning fewer partitions commits only
    /// those.
    fn pre_commit(
        &mut self,
        offsets: Vec<TopicPartitionOffset>,
    ) -> Result<Vec<TopicPartitionOffset>> {
        Ok(offsets)
    }

    /// Stops the task. The instance is discarded afterwards.
    fn stop(&mut self);
}
