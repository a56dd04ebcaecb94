//! [`SourceHarness`]: drives a [`SourceTask`] through the SDK's `source-task` glue, playing
//! the worker: it decodes each polled `record-batch`, acknowledges every record as if it
//! were written to Kafka, and commits source offsets into the mocked offset store.

use std::collections::HashMap;
use std::marker::PhantomData;

use serde_json::Value;

use super::{Kind, SlotGuard};
use crate::bindings::source::exports::wasm_connect::connector::source_task::Guest;
use crate::glue::Glue;
use crate::glue::convert::{ack_to_wit, config_to_wit, error_from_wit};
use crate::{Config, Error, RecordAck, Result, SourceRecord, SourceTask};

/// The `max_records` each poll asks for unless [`SourceHarness::max_records`] says
/// otherwise: the worker's value.
pub const DEFAULT_MAX_RECORDS: u32 = 1000;

/// How many polls [`SourceHarness::poll_until_empty`] makes before it gives up.
const MAX_POLLS: usize = 10_000;

/// Drives source task `T` as the worker does.
///
/// Every [`poll`](Self::poll) goes through the glue (records are numbered and encoded as
/// a `record-batch`, which the harness decodes back), then acknowledges each record
/// through `commit_record` with its sequence number and a Kafka offset of its own (one
/// counter per topic-partition; a record without a partition is written to partition 0).
/// [`commit`](Self::commit) stores the last acknowledged source offset of each source
/// partition, where [`offsets`](crate::offsets) finds it, then calls the task's `commit`.
/// [`restart`](Self::restart) stops the task and starts a new instance with the same
/// config; offsets acknowledged but not committed are lost, as after a worker crash.
pub struct SourceHarness<T: SourceTask> {
    config: Option<Config>,
    max_records: u32,
    /// The sequence number the glue gives the next polled record.
    next_sequence: u64,
    /// The next Kafka offset of each topic-partition.
    log_end: HashMap<(String, i32), i64>,
    /// Source partitions and offsets acknowledged since the last commit, in order.
    acked: Vec<(Value, Value)>,
    /// Every record polled, in order.
    records: Vec<SourceRecord>,
    _slot: SlotGuard,
    _task: PhantomData<fn() -> T>,
}

impl<T: SourceTask> Default for SourceHarness<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: SourceTask> SourceHarness<T> {
    /// A harness with no task yet. Panics if another `SourceHarness` is alive on this
    /// thread.
    pub fn new() -> Self {
        Self {
            config: None,
            max_records: DEFAULT_MAX_RECORDS,
            next_sequence: 0,
            log_end: HashMap::new(),
            acked: Vec::new(),
            records: Vec::new(),
            _slot: SlotGuard::take(Kind::Source),
            _task: PhantomData,
        }
    }

    /// Sets the `max_records` of each poll.
    pub fn max_records(mut self, max_records: u32) -> Self {
        self.max_records = max_records;
        self
    }

    /// Seeds a committed source offset before `start`: see
    /// [`set_committed_offset`](super::set_committed_offset).
    pub fn with_committed_offset(self, partition: Value, offset: Value) -> Self {
        super::set_committed_offset(&partition, &offset);
        self
    }

    /// Starts a task instance with `config` (a task config, as the connector's
    /// `task_configs` returns it).
    pub fn start(&mut self, config: Config) -> Result<()> {
        self.config = Some(config.clone());
        self.next_sequence = 0;
        <Glue<(), T> as Guest>::start(config_to_wit(config)).map_err(error_from_wit)
    }

    /// Polls once and acknowledges the records. An error from `poll` or from a
    /// `commit_record` is returned (the worker ignores the latter; a test should not). A
    /// batch with more records than asked for is an [`Error::Fatal`], as the worker fails
    /// the task for it.
    pub fn poll(&mut self) -> Result<Vec<SourceRecord>> {
        let batch = <Glue<(), T> as Guest>::poll(self.max_records).map_err(error_from_wit)?;
        let records = decode(&batch)?;
        if records.len() > self.max_records as usize {
            return Err(Error::fatal(format!(
                "poll returned {} records, more than the {} asked for",
                records.len(),
                self.max_records
            )));
        }
        let mut acks = Vec::with_capacity(records.len());
        for r in &records {
            let partition = r.partition.unwrap_or(0);
            let end = self.log_end.entry((r.topic.clone(), partition)).or_insert(0);
            acks.push(ack_to_wit(RecordAck {
                sequence: self.next_sequence,
                partition,
                offset: *end,
            }));
            *end += 1;
            self.next_sequence += 1;
            self.acked.push((r.source_partition.clone(), r.source_offset.clone()));
        }
        self.records.extend(records.iter().cloned());
        if !acks.is_empty() {
            <Glue<(), T> as Guest>::commit_records(acks).map_err(error_from_wit)?;
        }
        Ok(records)
    }

    /// Polls until a poll returns no record, and returns all records polled. Panics after
    /// 10,000 polls (a source that never runs dry needs [`poll`](Self::poll)).
    pub fn poll_until_empty(&mut self) -> Result<Vec<SourceRecord>> {
        let mut all = Vec::new();
        for _ in 0..MAX_POLLS {
            let records = self.poll()?;
            if records.is_empty() {
                return Ok(all);
            }
            all.extend(records);
        }
        panic!("the source still returned records after {MAX_POLLS} polls");
    }

    /// Commits: stores the last acknowledged source offset of each source partition as
    /// committed, then calls the task's `commit`.
    pub fn commit(&mut self) -> Result<()> {
        for (partition, offset) in self.acked.drain(..) {
            super::set_committed_offset(&partition, &offset);
        }
        <Glue<(), T> as Guest>::commit().map_err(error_from_wit)
    }

    /// The committed source offset of `partition`.
    pub fn committed_offset(&self, partition: &Value) -> Option<Value> {
        super::committed_offset(partition)
    }

    /// Stops the task, then starts a fresh instance (`T::default()`) with the same config.
    /// Offsets acknowledged since the last [`commit`](Self::commit) are forgotten.
    pub fn restart(&mut self) -> Result<()> {
        let config = self.config.clone().expect("restart before start");
        self.stop();
        self.acked.clear();
        self.start(config)
    }

    /// Stops the task and drops the instance.
    pub fn stop(&mut self) {
        <Glue<(), T> as Guest>::stop();
    }

    /// Every record polled since the harness was created, across restarts.
    pub fn records(&self) -> &[SourceRecord] {
        &self.records
    }
}

/// The records of a batch the glue encoded, as source records again.
fn decode(batch: &[u8]) -> Result<Vec<SourceRecord>> {
    let records = wasm_connect_batch::decode(batch)
        .map_err(|e| Error::fatal(format!("the task's batch is malformed: {e}")))?;
    records
        .into_iter()
        .enumerate()
        .map(|(i, r)| {
            let json = |field: &str, bytes: Option<Vec<u8>>| -> Result<Value> {
                let bytes = bytes.ok_or_else(|| {
                    Error::fatal(format!("source record {i} of the batch has no {field}"))
                })?;
                serde_json::from_slice(&bytes).map_err(|e| {
                    Error::fatal(format!(
                        "source record {i} of the batch: {field} is not JSON: {e}"
                    ))
                })
            };
            Ok(SourceRecord {
                source_partition: json("source partition", r.source_partition)?,
                source_offset: json("source offset", r.source_offset)?,
                topic: r.topic,
                partition: r.partition,
                key_kind: r.key_kind,
                key: r.key,
                value_kind: r.value_kind,
                value: r.value,
                headers: r.headers,
                timestamp: r.timestamp,
            })
        })
        .collect()
}
