//! [`SourceTask`]: the half of a source plugin that pulls records from an outside system.
//!
//! This module owns the trait and its contract only; `glue` numbers and encodes what
//! [`SourceTask::poll`] returns.

use crate::{Config, RecordAck, Result, SourceRecord};

/// A source task (Kafka Connect's `SourceTask`).
///
/// The worker creates one instance per task with [`Default`], in a sandbox of its own
/// with the grants its task config asks for. It calls [`start`](Self::start) once, then
/// [`poll`](Self::poll) repeatedly, interleaved with
/// [`commit_record`](Self::commit_record) and [`commit`](Self::commit), then
/// [`stop`](Self::stop) at most once. Calls never overlap.
pub trait SourceTask: Default + 'static {
    /// Starts the task with one of the configs its connector's `task_configs` returned.
    /// A task typically reads its committed offsets here with [`offsets`](crate::offsets).
    fn start(&mut self, config: Config) -> Result<()>;

    /// Returns the next records, at most `max_records` of them. An empty `Vec` means
    /// "nothing now": the worker waits a little before polling again, so do not sleep
    /// here. The records are numbered in order across all polls (see [`RecordAck`]).
    fn poll(&mut self, max_records: u32) -> Result<Vec<SourceRecord>>;

    /// A record is durably written; called once per record, in sequence order. The
    /// default does nothing.
    fn commit_record(&mut self, ack: RecordAck) -> Result<()> {
        let _ = ack;
        Ok(())
    }

    /// The worker committed source offsets up to the last acknowledged record. The
    /// default does nothing.
    fn commit(&mut self) -> Result<()> {
        Ok(())
    }

    /// Stops the task. The instance is discarded afterwards.
    fn stop(&mut self);
}
