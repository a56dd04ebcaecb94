//! The data path of a sink task: consume in the connector's group (`connect-<name>`),
//! convert, transform, `put` to the plugin, and commit the group's offsets only after the plugin's
//! `pre-commit` said they are safe. Runs in the task's supervisor; plugin calls run on the
//! runtime's guest pool.
//!
//! Delivery is at-least-once: an offset is committed only after the records before it
//! were put and the plugin flushed them (`pre-commit`), every `offset.flush.interval.ms`,
//! when partitions are revoked, and at stop. Partitions assigned and revoked by the group
//! become the plugin's `open` and `close`. Pausing the connector pauses the consumer.
//!
//! Its log lines name the connector and task through the supervisor's span (`task.rs`).
//! It must not decide restarts or write statuses: it returns how the task ended.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use tokio::sync::mpsc;
use wasm_connect_backoff::Backoff;
use wasm_connect_batch::{Encoder, Record};

use super::WorkerEvent;
use super::convert::{ConvertError, Converter, Side};
use super::errors::{ErrorReporter, FailedRecord, Failure, Retries, Stage, Tolerance};
use super::schema_lookup::{Lookups, converted};
use super::task_control::{Cmd, Exit, drain};
use super::topics::{ConsumerEvent, InRecord, RecordConsumer};
use super::transforms::{self, Chain, Outcome};
use crate::model::{ConnectorError, TargetState, TopicPartition, TopicPartitionOffset};
use crate::runtime::{InstanceError, SinkTaskInstance};
use crate::telemetry::data as metrics;

/// Longest wait for a consumer event before commands and the flush timer are looked at.
const EVENT_WAIT: Duration = Duration::from_millis(100);

/// The wait before reading again after a retriable consumer error: Kafka's consumer
/// defaults, `retry.backoff.ms` (100 ms) doubling up to `retry.backoff.max.ms` (1 s). An
/// error no retry mends (an unreadable store) fails the task at once.
const CONSUMER_RETRY: Backoff =
    Backoff::doubling(Duration::from_millis(100), Duration::from_millis(1000));

/// Everything a sink task's data path needs.
pub(super) struct SinkTask {
    pub connector: String,
    pub task: u32,
    pub instance: SinkTaskInstance,
    pub consumer: Box<dyn RecordConsumer>,
    pub key_converter: Arc<dyn Converter>,
    pub value_converter: Arc<dyn Converter>,
    pub chain: Chain,
    pub reporter: ErrorReporter,
    pub events: mpsc::UnboundedSender<WorkerEvent>,
    pub flush_interval: Duration,
    pub max_records: usize,
    pub shutdown_timeout: Duration,
    pub target: TargetState,
}

#[derive(Default)]
struct State {
    assigned: BTreeSet<TopicPartition>,
    /// Next offset to read, per partition, after what was put.
    consumed: BTreeMap<TopicPartition, i64>,
    /// Last committed offset per partition.
    committed: BTreeMap<TopicPartition, i64>,
    /// Whether the consumer is paused.
    paused: bool,
    /// Records read just before a pause took effect, delivered after the resume. Bounded:
    /// a paused consumer fetches nothing more.
    held: Vec<InRecord>,
    topics: BTreeSet<String>,
}

impl SinkTask {
    /// Runs until stopped or failed.
    pub(super) async fn run(mut self, commands: &mut mpsc::UnboundedReceiver<Cmd>) -> Exit {
        let mut state = State::default();
        let mut next_flush = tokio::time::Instant::now() + self.flush_interval;
        let mut consumer_failures = CONSUMER_RETRY.attempts();
        let exit = loop {
            if let Some(exit) = drain(commands, &mut self.target) {
                break exit;
            }
            self.follow_target(&mut state).await;
            if tokio::time::Instant::now() >= next_flush {
                if let Err(trace) = self.commit(&mut state, None).await {
                    break Exit::Failed(trace);
                }
                next_flush = tokio::time::Instant::now() + self.flush_interval;
            }
            let event = match self.consumer.next(EVENT_WAIT, self.max_records).await {
                Ok(event) => {
                    if consumer_failures.failures() > 0 {
                        tracing::info!(
                            failures = consumer_failures.failures(),
                            "The consumer reads again"
                        );
                        consumer_failures.reset();
                    }
                    event
                }
                Err(e) if !e.is_retriable() => break Exit::Failed(e.to_string()),
                Err(e) => {
                    let delay = consumer_failures.next_delay();
                    // Logged at the 1st, 2nd, 4th, 8th… failure in a row: a lasting error
                    // stays visible without a line per attempt.
                    if consumer_failures.failures().is_power_of_two() {
                        tracing::warn!(error = %e, failures = consumer_failures.failures(), retry_in_ms = delay.as_millis() as u64, "Consumer error; retrying");
                    }
                    tokio::time::sleep(delay).await;
                    continue;
                }
            };
            // A pause that arrived while waiting holds the records just read.
            if let Some(exit) = drain(commands, &mut self.target) {
                if let Some(ConsumerEvent::Revoked(tps)) = &event
                    && let Err(trace) = self.revoked(&mut state, tps.clone()).await
                {
                    break Exit::Failed(trace);
                }
                break exit;
            }
            let paused = self.target != TargetState::Started;
            let handled = match event {
                Some(ConsumerEvent::Assigned(tps)) => self.assigned(&mut state, tps).await,
                Some(ConsumerEvent::Revoked(tps)) => self.revoked(&mut state, tps).await,
                Some(ConsumerEvent::Records(records)) if paused => {
                    state.held.extend(records);
                    Ok(())
                }
                // Held records first: they precede these in their partitions.
                Some(ConsumerEvent::Records(records)) => {
                    let mut batch = std::mem::take(&mut state.held);
                    batch.extend(records);
                    self.deliver(&mut state, batch).await
                }
                None if !paused && !state.held.is_empty() => {
                    let held = std::mem::take(&mut state.held);
                    self.deliver(&mut state, held).await
                }
                None => Ok(()),
            };
            if let Err(trace) = handled {
                break Exit::Failed(trace);
            }
        };
        if !matches!(exit, Exit::Failed(_)) {
            let timeout = self.shutdown_timeout;
            let finish = async {
                self.commit(&mut state, None).await?;
                let open: Vec<TopicPartition> = state.assigned.iter().cloned().collect();
                if !open.is_empty() {
                    self.instance.close(&open).await.map_err(|e| e.trace())?;
                }
                Ok::<(), String>(())
            };
            match tokio::time::timeout(timeout, finish).await {
                Ok(Ok(())) => {}
                Ok(Err(trace)) => {
                    tracing::warn!(error = %trace, "Could not commit offsets at stop")
                }
                Err(_) => {
                    tracing::warn!("Committing offsets at stop timed out")
                }
            }
        }
        self.consumer.close().await;
        let _ = self.instance.stop().await;
        self.chain.close().await;
        exit
    }

    /// Pauses or resumes the consumer to match the target state.
    async fn follow_target(&mut self, state: &mut State) {
        let want_paused = self.target != TargetState::Started;
        if want_paused == state.paused {
            return;
        }
        let result =
            if want_paused { self.consumer.pause().await } else { self.consumer.resume().await };
        match result {
            Ok(()) => state.paused = want_paused,
            Err(e) => {
                tracing::warn!(error = %e, "Could not pause or resume the consumer; trying again")
            }
        }
    }

    async fn assigned(
        &mut self,
        state: &mut State,
        tps: Vec<TopicPartition>,
    ) -> Result<(), String> {
        tracing::info!(partitions = ?tps, "Partitions assigned");
        for tp in &tps {
            if state.topics.insert(tp.topic.clone()) {
                let _ = self.events.send(WorkerEvent::TopicActive {
                    connector: self.connector.clone(),
                    task: self.task,
                    topic: tp.topic.clone(),
                });
            }
        }
        state.assigned.extend(tps.iter().cloned());
        self.instance.open(&tps).await.map_err(|e| e.trace())
    }

    async fn revoked(&mut self, state: &mut State, tps: Vec<TopicPartition>) -> Result<(), String> {
        tracing::info!(partitions = ?tps, "Partitions revoked");
        self.commit(state, Some(&tps)).await?;
        // Held records of these partitions were never put; their next owner reads them.
        state.held.retain(|r| !tps.contains(&r.topic_partition()));
        for tp in &tps {
            state.assigned.remove(tp);
            state.consumed.remove(tp);
            state.committed.remove(tp);
        }
        self.instance.close(&tps).await.map_err(|e| e.trace())
    }

    /// Converts and puts one batch, routing failed records by the error policy.
    async fn deliver(&mut self, state: &mut State, records: Vec<InRecord>) -> Result<(), String> {
        let started = Instant::now();
        let mut records = records;
        // Looked up once per run of records of one partition, not per record.
        let mut last: Option<(Arc<str>, i32, bool)> = None;
        records.retain(|r| match &last {
            Some((topic, partition, kept)) if *partition == r.partition && *topic == r.topic => {
                *kept
            }
            _ => {
                let kept = state.assigned.contains(&r.topic_partition());
                last = Some((r.topic.clone(), r.partition, kept));
                kept
            }
        });
        if records.is_empty() {
            return Ok(());
        }
        metrics::RecordsConsumed {
            connector: &self.connector,
            task: self.task,
            count: records.len(),
        }
        .emit();
        let mut origin = Vec::with_capacity(records.len());
        let mut failures = Vec::new();
        let mut failed_classes = Vec::new();
        let (batch, count) = if self.chain.is_empty() {
            // No transforms: encode straight from the consumed bytes, no record copies.
            let enc = Self::encode(self.converters(), &records, &mut origin, &mut failures).await;
            let count = enc.len();
            (enc.finish(), count)
        } else {
            let converted =
                Self::convert(self.converters(), &records, &mut origin, &mut failures).await;
            let batch = self.transform(converted, &records, &mut origin, &mut failed_classes).await;
            (wasm_connect_batch::encode(&batch), batch.len())
        };
        failures.extend(failed_classes.iter().map(|(i, class, error)| Failure {
            stage: Stage::Transformation,
            record: FailedRecord::Sink(&records[*i]),
            error: error.clone(),
            error_kind: "DataException",
            class: class.as_deref(),
        }));
        if !failures.is_empty() {
            self.reporter.report(failures).await.map_err(|e| e.to_string())?;
        }
        if count > 0 {
            let put_failures = self.put(batch.into(), count).await?;
            let failures: Vec<Failure<'_>> = match put_failures {
                PutOutcome::Failed(list) => list
                    .into_iter()
                    .map(|(index, reason)| Failure {
                        stage: Stage::TaskPut,
                        record: FailedRecord::Sink(&records[origin[index]]),
                        error: reason,
                        error_kind: "RecordFailure",
                        class: None,
                    })
                    .collect(),
                PutOutcome::GaveUp(reason) => origin
                    .iter()
                    .map(|&i| Failure {
                        stage: Stage::TaskPut,
                        record: FailedRecord::Sink(&records[i]),
                        error: reason.clone(),
                        error_kind: "RetriableException",
                        class: None,
                    })
                    .collect(),
            };
            if !failures.is_empty() {
                self.reporter.report(failures).await.map_err(|e| e.to_string())?;
            }
        }
        // The last record of each run of one partition (offsets grow within a partition).
        for (i, r) in records.iter().enumerate() {
            let next = records.get(i + 1);
            if next.is_none_or(|n| n.partition != r.partition || n.topic != r.topic) {
                state.consumed.insert(r.topic_partition(), r.offset + 1);
            }
        }
        metrics::RecordsPut {
            connector: &self.connector,
            task: self.task,
            count,
            latency: started.elapsed(),
        }
        .emit();
        Ok(())
    }

    /// Converts `records` straight into a put batch, borrowing their bytes where the
    /// converter allows; `origin` gets the input index of each encoded record, `failures`
    /// the records a converter refused.
    async fn encode<'r>(
        converters: Converters<'_>,
        records: &'r [InRecord],
        origin: &mut Vec<usize>,
        failures: &mut Vec<Failure<'r>>,
    ) -> Encoder {
        let bytes: usize = records.iter().map(encoded_len).sum();
        let mut enc = Encoder::with_capacity(bytes);
        for (i, r) in records.iter().enumerate() {
            let (key, value) =
                converters.pair(r, |c, data| c.to_plugin_borrowed(&r.topic, data)).await;
            match (key, value) {
                (Ok((key_kind, key)), Ok((value_kind, value))) => {
                    enc.push_parts(
                        &r.topic,
                        Some(r.partition),
                        Some(r.offset),
                        r.timestamp,
                        (key_kind, key.as_deref()),
                        (value_kind, value.as_deref()),
                        r.headers.iter().map(|h| (h.key.as_str(), h.value.as_deref())),
                        None,
                        None,
                    );
                    origin.push(i);
                }
                (Err(e), _) => failures.push(convert_failure(Stage::KeyConverter, r, e)),
                (_, Err(e)) => failures.push(convert_failure(Stage::ValueConverter, r, e)),
            }
        }
        enc
    }

    /// The converters and whose their registry lookups are, borrowed for a batch.
    fn converters(&self) -> Converters<'_> {
        Converters {
            key: &*self.key_converter,
            value: &*self.value_converter,
            lookups: Lookups {
                connector: &self.connector,
                task: self.task,
                policy: self.reporter.policy(),
            },
        }
    }

    /// Converts `records` into plugin records for the transformation chain; `origin` and
    /// `failures` as in [`encode`](Self::encode).
    async fn convert<'r>(
        converters: Converters<'_>,
        records: &'r [InRecord],
        origin: &mut Vec<usize>,
        failures: &mut Vec<Failure<'r>>,
    ) -> Vec<Record> {
        let mut batch = Vec::with_capacity(records.len());
        for (i, r) in records.iter().enumerate() {
            let (key, value) = converters.pair(r, |c, data| c.to_plugin(&r.topic, data)).await;
            match (key, value) {
                (Ok((key_kind, key)), Ok((value_kind, value))) => {
                    batch.push(Record {
                        topic: r.topic.to_string(),
                        partition: Some(r.partition),
                        offset: Some(r.offset),
                        timestamp: r.timestamp,
                        key_kind,
                        key,
                        value_kind,
                        value,
                        headers: r.headers.clone(),
                        source_partition: None,
                        source_offset: None,
                    });
                    origin.push(i);
                }
                (Err(e), _) => failures.push(convert_failure(Stage::KeyConverter, r, e)),
                (_, Err(e)) => failures.push(convert_failure(Stage::ValueConverter, r, e)),
            }
        }
        batch
    }

    /// Runs the transformation chain after the converter; a dropped record counts as
    /// delivered. `origin` is narrowed to the kept records; failures go to `failed`.
    async fn transform(
        &mut self,
        converted: Vec<Record>,
        records: &[InRecord],
        origin: &mut Vec<usize>,
        failed: &mut Vec<(usize, Option<String>, String)>,
    ) -> Vec<Record> {
        let input = converted.into_iter().map(transforms::from_batch).collect();
        let outcomes = self.chain.apply(input).await;
        let header_converter = self.chain.header_converter();
        let mut batch = Vec::with_capacity(outcomes.len());
        let mut kept = Vec::with_capacity(outcomes.len());
        for (outcome, i) in outcomes.into_iter().zip(std::mem::take(origin)) {
            let r = &records[i];
            match outcome {
                Outcome::Keep(t) => match transforms::to_batch(t, header_converter) {
                    Ok(mut t) => {
                        t.offset = Some(r.offset);
                        batch.push(t);
                        kept.push(i);
                    }
                    Err(error) => failed.push((i, None, error)),
                },
                Outcome::Dropped => {}
                Outcome::Failed { class, error } => failed.push((i, Some(class), error)),
            }
        }
        *origin = kept;
        batch
    }

    /// Puts the encoded `batch` of `count` records, retrying retriable errors by the error
    /// policy.
    async fn put(&mut self, batch: Arc<Vec<u8>>, count: usize) -> Result<PutOutcome, String> {
        let mut retries = Retries::default();
        loop {
            match self.instance.put_batch(batch.clone(), count).await {
                Ok(failures) => {
                    return Ok(PutOutcome::Failed(
                        failures.into_iter().map(|f| (f.index as usize, f.reason)).collect(),
                    ));
                }
                Err(InstanceError::Connector(ConnectorError::Retriable(reason))) => {
                    match retries.failed(self.reporter.policy()) {
                        Some(delay) => {
                            tracing::warn!(error = %reason, retry_in_ms = delay.as_millis() as u64, "Retriable error in put; delivering the batch again after a back-off");
                            tokio::time::sleep(delay).await;
                        }
                        None if self.reporter.policy().tolerance == Tolerance::All => {
                            return Ok(PutOutcome::GaveUp(reason));
                        }
                        None => {
                            return Err(format!(
                                "put kept failing with a retriable error past errors.retry.timeout: {reason}"
                            ));
                        }
                    }
                }
                Err(e) => return Err(e.trace()),
            }
        }
    }

    /// Asks the plugin which consumed offsets are safe (`pre-commit`) and commits them;
    /// `only` limits it to those partitions. A failed commit is retried at the next one.
    async fn commit(
        &mut self,
        state: &mut State,
        only: Option<&[TopicPartition]>,
    ) -> Result<(), String> {
        let offsets: Vec<TopicPartitionOffset> = state
            .consumed
            .iter()
            .filter(|(tp, _)| only.is_none_or(|o| o.contains(tp)))
            .map(|(tp, &offset)| TopicPartitionOffset {
                topic: tp.topic.clone(),
                partition: tp.partition,
                offset,
            })
            .collect();
        if offsets.is_empty() {
            return Ok(());
        }
        let safe = match self.instance.pre_commit(&offsets).await {
            Ok(safe) => safe,
            Err(InstanceError::Connector(e)) => {
                tracing::warn!(error = %e, "pre-commit failed; offsets not committed this time");
                return Ok(());
            }
            Err(e) => return Err(e.trace()),
        };
        let safe: Vec<TopicPartitionOffset> = safe
            .into_iter()
            .filter(|o| {
                let tp = TopicPartition { topic: o.topic.clone(), partition: o.partition };
                state.assigned.contains(&tp)
                    && only.is_none_or(|only| only.contains(&tp))
                    && state.committed.get(&tp) != Some(&o.offset)
            })
            .collect();
        if safe.is_empty() {
            return Ok(());
        }
        let count = safe.len();
        let committed = self.consumer.commit(safe.clone()).await;
        metrics::OffsetsCommitted {
            connector: &self.connector,
            task: self.task,
            partitions: count,
            ok: committed.is_ok(),
        }
        .emit();
        match committed {
            Ok(()) => {
                for o in safe {
                    state.committed.insert(
                        TopicPartition { topic: o.topic, partition: o.partition },
                        o.offset,
                    );
                }
            }
            Err(e) => {
                tracing::error!(error = %e, "Could not commit consumer offsets; retrying at the next commit");
            }
        }
        Ok(())
    }
}

/// A sink task's converters, and the task and bound of their registry lookups.
#[derive(Clone, Copy)]
struct Converters<'a> {
    key: &'a dyn Converter,
    value: &'a dyn Converter,
    lookups: Lookups<'a>,
}

impl Converters<'_> {
    /// The key and the value of `r` converted by `convert` with the key's and the value's
    /// converter, after the lookups a Schema Registry converter asks for
    /// (`schema_lookup`). The value is not converted when the key fails.
    async fn pair<'r, T>(
        self,
        r: &'r InRecord,
        convert: impl Fn(&dyn Converter, Option<&'r [u8]>) -> Result<T, ConvertError>,
    ) -> (Result<T, ConvertError>, Result<T, ConvertError>) {
        let l = &self.lookups;
        let k = converted(self.key, Side::Key, l, || convert(self.key, r.key.as_deref())).await;
        if k.is_err() {
            return (k, Err(ConvertError::InvalidData("the key failed first".into())));
        }
        let v =
            converted(self.value, Side::Value, l, || convert(self.value, r.value.as_deref())).await;
        (k, v)
    }
}

/// A record a converter refused.
fn convert_failure<'r>(stage: Stage, record: &'r InRecord, e: ConvertError) -> Failure<'r> {
    Failure {
        stage,
        record: FailedRecord::Sink(record),
        error: e.to_string(),
        error_kind: "DataException",
        class: None,
    }
}

/// About the bytes `record` takes in a put batch (a capacity hint).
fn encoded_len(record: &InRecord) -> usize {
    let headers: usize =
        record.headers.iter().map(|h| 8 + h.key.len() + h.value.as_ref().map_or(0, Vec::len)).sum();
    48 + record.topic.len()
        + record.key.as_ref().map_or(0, Bytes::len)
        + record.value.as_ref().map_or(0, Bytes::len)
        + headers
}

/// What a `put` came to.
enum PutOutcome {
    /// The plugin handled the batch except these (index, reason).
    Failed(Vec<(usize, String)>),
    /// Retriable errors outlasted `errors.retry.timeout`, tolerated: the whole batch failed.
    GaveUp(String),
}
