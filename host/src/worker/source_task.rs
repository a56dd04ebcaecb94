//! The data path of a source task: poll the plugin, transform, convert, produce,
//! acknowledge, commit offsets. Runs in the task's supervisor (a tokio task); the plugin
//! calls themselves run on the runtime's guest pool, so nothing here blocks the herder.
//!
//! Delivery is at-least-once. Up to [`MAX_IN_FLIGHT`] polled batches are being written at
//! once (each acknowledged as a whole by the producer, which may be shared with other
//! tasks), and their writes complete in poll order (they are awaited front to back), so when
//! a batch is written every record polled before it is written too: the source offsets of
//! its records become committable (those of records a transform dropped too), the plugin
//! gets `commit-records` for them, and every `offset.flush.interval.ms` the committable
//! offsets go to the offsets store (the connector's `offsets.storage.topic`, then a copy
//! to the worker's offsets topic) followed by the plugin's `commit`. A crash loses at
//! most the records after the last flushed offsets, which the plugin polls again after
//! the restart. An offsets write waits at most `offset.flush.timeout.ms` (the offsets stay
//! committable for the next flush). On stop, in-flight writes are awaited (within
//! `task.shutdown.graceful.timeout.ms`) and the offsets flushed (within
//! `offset.flush.timeout.ms`) before the plugin's `stop`.
//!
//! Without exactly-once the plugin's next `poll` starts as soon as a batch is polled (when
//! the flow and [`MAX_IN_FLIGHT`] allow one more), on the guest executor, while this task
//! transforms, converts and sends the batch: the guest and the task work side by side
//! instead of in turn. At most one poll is outstanding, and it is taken before the next
//! starts, so records keep their poll order. The records of a poll started ahead are taken by the next turn of the loop (after a pause
//! too); at a stop they are dropped unsent, their offsets never committed, so the next run
//! polls them again.
//!
//! Under exactly-once delivery (`exactly.once.source.support=enabled`) the task has
//! [`Transactions`] (`source_transactions.rs`): its batches go into a transaction of its
//! own producer instead of the shared one, their offsets are committed with the records in
//! that transaction at its boundary (never by the periodic flush; to the connector's own
//! offsets topic when it names one, then copied to the worker's), and records are
//! acknowledged to the plugin only once committed. A batch the broker has acknowledged
//! leaves the task's flow and its writes in flight at once (its bookkeeping waits for the
//! commit), so the boundary, not the buffer, ends a transaction while the broker keeps up;
//! a transaction of [`MAX_TRANSACTION_BATCHES`] batches ends too. A failed commit fails the
//! task.
//!
//! With `transaction.boundary=connector` the task's requests (`transaction-context`),
//! taken after each poll, end its transactions where it asked (`transaction_plan.rs`
//! places them in the batch): a batch is sent in parts, the transaction committed or
//! aborted after each part that ends with a request. An abort discards the records (they
//! are acknowledged with no position) and commits their offsets in a transaction of their
//! own. Nothing else ends such a transaction: not a pause; at stop, an open one is aborted
//! (its records are polled again by the next run); and a transaction that fills the task's
//! buffer without a request fails the task ([`UNCOMMITTED_BUFFER_FULL`]).
//!
//! What the task may hand the worker is bounded by its [`Flow`] (`source_flow.rs`): it
//! does not poll while its unacknowledged bytes fill `buffer.memory`, nor while a rate
//! (`wasm.poll.bytes.per.second`, `wasm.poll.records.per.second`) is in debt; commands
//! and finished writes are still taken meanwhile.
//!
//! A poll that returns nothing is followed by a wait that doubles from [`IDLE_FIRST`] (50
//! ms) up to [`IDLE_CAP`] (1 s) while polls stay empty, reset by the first poll with
//! records: an idle task costs one guest call a second, as Kafka Connect's
//! `FileStreamSourceTask` sleeps 1 s in `poll` on an empty read, and the first record after
//! a long idle period waits at most the cap. Commands end the wait at once.
//!
//! Its log lines name the connector and task through the supervisor's span (`task.rs`).
//! It must not decide restarts or write statuses: it returns how the task ended.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::Arc;
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use bytes::Bytes;
use serde_json::Value;
use tokio::sync::mpsc;
use wasm_connect_backoff::{Attempts, Backoff};

use super::WorkerEvent;
use super::convert::Converter;
use super::errors::{ErrorReporter, FailedRecord, Failure, Retries, Stage};
use super::schema_lookup::Lookups;
use super::source_batch::{Prepared, note_offset, prepare};
use super::source_flow::{Flow, FlowLimits, record_bytes};
use super::source_transactions::{OWN_OFFSETS_TOPIC, Transactions};
use super::task_control::{Cmd, Exit, apply, drain};
use super::topic_creation::TopicCreation;
use super::topics::{DataTopics, Delivered, OutRecord, RecordProducer, SendFuture, TopicError};
use super::transaction_plan::{self, Segment, take_segment};
use super::transforms::{self, Chain};
use crate::model::{ConnectorError, RecordAck, TargetState, TransactionAction};
use crate::runtime::{InstanceError, PendingPoll, SourceTaskInstance};
use crate::store::{ConnectorOffsetStore, StoreError, offset_records};
use crate::telemetry::data as metrics;

/// Polled batches being written at once, at most. Their bytes are bounded by the task's
/// `buffer.memory` (`source_flow.rs`); this bounds the bookkeeping. It was 8, which is
/// what held a light task back beside a heavy one: the shared producer writes in order, so
/// a light task got 8 small batches through per write of the heavy one's 15 MiB batches
/// (issue 34). 64 small batches keep the producer busy while the next ones are polled
/// (a batch waits for the producer's linger and the broker's `acks=all` round trip).
pub const MAX_IN_FLIGHT: usize = 64;

/// Under exactly-once, the most batches one transaction holds: their bookkeeping (sequence
/// numbers and positions, acknowledged to the plugin after the commit) stays in memory
/// until the commit, so a long `transaction.boundary.interval.ms` must not let it grow
/// without bound.
pub const MAX_TRANSACTION_BATCHES: usize = 1024;

/// Why a task with connector-defined transaction boundaries fails when its open
/// transaction fills its buffer: its records are acknowledged only once committed, the
/// worker does not commit behind the connector's back, and the connector can ask for a
/// commit only while it polls, which a full buffer stops.
pub const UNCOMMITTED_BUFFER_FULL: &str = "The task's open transaction filled its buffer \
     (buffer.memory) without the connector requesting a commit: with \
     transaction.boundary=connector, the task must commit (or abort) its transactions \
     before they outgrow buffer.memory";

/// The wait after a poll that returned nothing, when the poll before it returned records.
const IDLE_FIRST: Duration = Duration::from_millis(50);

/// The longest wait after polls that returned nothing: an idle task is polled once a second.
const IDLE_CAP: Duration = Duration::from_secs(1);

/// Everything a source task's data path needs.
pub(super) struct SourceTask {
    pub connector: String,
    pub task: u32,
    pub instance: SourceTaskInstance,
    pub producer: Arc<dyn RecordProducer>,
    pub topics: Arc<dyn DataTopics>,
    pub creation: TopicCreation,
    pub key_converter: Arc<dyn Converter>,
    pub value_converter: Arc<dyn Converter>,
    pub chain: Chain,
    pub reporter: ErrorReporter,
    /// The connector's offsets: its own topic's (when it names one) before the worker's.
    pub offsets: ConnectorOffsetStore,
    pub events: mpsc::UnboundedSender<WorkerEvent>,
    pub flush_interval: Duration,
    /// `offset.flush.timeout.ms`: the longest an offsets write may take.
    pub flush_timeout: Duration,
    pub max_poll_records: u32,
    pub flow: FlowLimits,
    pub shutdown_timeout: Duration,
    pub target: TargetState,
    /// Exactly-once delivery: the task's transactions. `None`: at-least-once.
    pub transactions: Option<Transactions>,
}

/// The write of one batch: pending, or its outcome (kept, because a finished future must
/// not be polled again).
enum Write {
    Pending(SendFuture),
    Done(Result<Vec<Delivered>, TopicError>),
}

impl Write {
    /// Waits for the outcome. Cancel-safe: dropped midway, the write stays pending.
    async fn finish(&mut self) {
        if let Write::Pending(send) = self {
            let outcome = send.await;
            *self = Write::Done(outcome);
        }
    }

    /// Takes the outcome if it is already there, without waiting (nor a timer).
    fn try_finish(&mut self) {
        if let Write::Pending(send) = self
            && let Poll::Ready(outcome) =
                send.as_mut().poll(&mut Context::from_waker(Waker::noop()))
        {
            *self = Write::Done(outcome);
        }
    }
}

/// One polled batch being written.
struct InFlight {
    write: Write,
    /// Sequence numbers of the records sent, in order.
    sequences: Vec<u64>,
    /// Sequence numbers of the records not sent (dropped by a transform, or failed and
    /// tolerated), acknowledged with no position once the batch is written, as Kafka
    /// Connect calls `commitRecord(record, null)` for them.
    skipped: Vec<u64>,
    /// Source partition and offset (JSON text) of the polled records, sent or skipped, in
    /// poll order; of a run of records with the same partition, only the last offset.
    offsets: Vec<(Bytes, Bytes)>,
    started: Instant,
    /// Bytes of the batch as polled, counted in the task's flow until it is written.
    bytes: u64,
    /// Under exactly-once: written (acknowledged by the broker) and out of the task's flow,
    /// waiting for the transaction's commit.
    released: bool,
}

impl Write {
    /// The outcome, waiting for it.
    async fn outcome(self) -> Result<Vec<Delivered>, TopicError> {
        match self {
            Write::Pending(send) => send.await,
            Write::Done(outcome) => outcome,
        }
    }
}

impl InFlight {
    /// Takes in the batch (part) sent after this one, as one write: under exactly-once the
    /// writes are awaited only at the commit, so the bookkeeping of a transaction that
    /// spans many polls stays within [`MAX_IN_FLIGHT`] entries.
    fn absorb(&mut self, later: InFlight) {
        let earlier = std::mem::replace(&mut self.write, Write::Done(Ok(Vec::new())));
        self.write = Write::Pending(Box::pin(async move {
            let mut delivered = earlier.outcome().await?;
            delivered.extend(later.write.outcome().await?);
            Ok(delivered)
        }));
        self.sequences.extend(later.sequences);
        self.skipped.extend(later.skipped);
        self.offsets.extend(later.offsets);
        self.bytes += later.bytes;
    }
}

impl SourceTask {
    /// Whether the task defines its transaction boundaries (exactly-once, with
    /// `transaction.boundary=connector`).
    fn connector_defined(&self) -> bool {
        self.transactions.as_ref().is_some_and(Transactions::connector_defined)
    }

    /// Runs until stopped or failed.
    pub(super) async fn run(mut self, commands: &mut mpsc::UnboundedReceiver<Cmd>) -> Exit {
        let mut state = State::new(Flow::new(self.flow, tokio::time::Instant::now()));
        let mut next_flush = tokio::time::Instant::now() + self.flush_interval;
        let exit = loop {
            // Commands first, so a stop is never stuck behind polls.
            if let Some(exit) = self.take_stop(commands, &mut state) {
                break exit;
            }
            if self.connector_defined() {
                // Only the task ends its transactions; one that fills the buffer would
                // wait for a request that cannot come.
                let open = self.transactions.as_ref().is_some_and(Transactions::is_open);
                if open && !state.flow.has_room() {
                    break Exit::Failed(UNCOMMITTED_BUFFER_FULL.to_owned());
                }
            } else if self.transactions.is_some() {
                // Records are acknowledged once committed, so a full buffer (or a pause)
                // ends the transaction too.
                state.release_written();
                let full = state.writing() >= MAX_IN_FLIGHT
                    || state.in_flight.len() >= MAX_TRANSACTION_BATCHES
                    || !state.flow.has_room();
                let paused = self.target != TargetState::Started;
                if let Err(trace) = self.commit_transaction(&mut state, full || paused).await {
                    break Exit::Failed(trace);
                }
            } else if let Err(trace) = self.complete_writes(&mut state, false).await {
                // Finished writes that are done (or, with too many in flight, waits for one).
                break Exit::Failed(trace);
            }
            if tokio::time::Instant::now() >= next_flush {
                // Under exactly-once, offsets are committed with their transactions only.
                if self.transactions.is_none()
                    && let Err(trace) = self.flush(&mut state, false).await
                {
                    break Exit::Failed(trace);
                }
                next_flush = tokio::time::Instant::now() + self.flush_interval;
            }
            // A connector-defined transaction takes in its batches beyond MAX_IN_FLIGHT.
            let batches_full = state.writing() >= MAX_IN_FLIGHT && !self.connector_defined();
            if self.target != TargetState::Started || batches_full || !state.flow.has_room() {
                self.wait(commands, &mut state, next_flush, None).await;
                continue;
            }
            let debt = state.flow.wait(tokio::time::Instant::now());
            if !debt.is_zero() {
                self.wait(commands, &mut state, next_flush, Some(debt)).await;
                continue;
            }
            match self.poll_once(&mut state).await {
                Ok(None) => {}
                Ok(Some(pause)) => self.wait(commands, &mut state, next_flush, Some(pause)).await,
                Err(trace) => break Exit::Failed(trace),
            }
        };
        if let Some(producer) = self.transactions.as_ref().map(|t| t.producer.clone()) {
            if matches!(exit, Exit::Failed(_)) {
                // What the failed transaction wrote is never committed; aborting now spares
                // `read_committed` readers the wait for its timeout.
                if let Err(e) = producer.abort().await {
                    tracing::warn!(error = %e, "Could not abort the open transaction");
                }
            } else if self.connector_defined() {
                // The task did not ask for this transaction to commit: as Kafka Connect, no
                // final commit. Its records are polled again by the next run.
                if self.transactions.as_ref().is_some_and(Transactions::is_open) {
                    tracing::info!(
                        "Aborting the open transaction at stop: the task did not request its commit"
                    );
                    if let Err(e) = producer.abort().await {
                        tracing::warn!(error = %e, "Could not abort the open transaction");
                    }
                }
            } else {
                let timeout = self.shutdown_timeout;
                let commit = self.commit_transaction(&mut state, true);
                match tokio::time::timeout(timeout, commit).await {
                    Ok(Ok(())) => {}
                    Ok(Err(trace)) => {
                        tracing::warn!(error = %trace, "Could not commit the last transaction at stop")
                    }
                    Err(_) => tracing::warn!("The last transaction did not commit in time at stop"),
                }
            }
        } else if !matches!(exit, Exit::Failed(_)) {
            let timeout = self.shutdown_timeout;
            let drain = self.complete_writes(&mut state, true);
            let drained = tokio::time::timeout(timeout, drain).await;
            if let Ok(Err(trace)) | Err(trace) = drained.map_err(|_| "timed out".to_string()) {
                tracing::warn!(error = %trace, "Records still being written at stop");
            }
            if let Err(trace) = self.flush(&mut state, true).await {
                tracing::warn!(error = %trace, "Could not commit offsets at stop");
            }
        }
        let _ = self.instance.stop().await;
        self.chain.close().await;
        exit
    }

    /// Applies pending commands; `Some` when the task must stop.
    fn take_stop(
        &mut self,
        commands: &mut mpsc::UnboundedReceiver<Cmd>,
        state: &mut State,
    ) -> Option<Exit> {
        state.stop.take().or_else(|| drain(commands, &mut self.target))
    }

    /// Waits for a command, the front write, the next flush, or `idle`, whichever is first.
    async fn wait(
        &mut self,
        commands: &mut mpsc::UnboundedReceiver<Cmd>,
        state: &mut State,
        next_flush: tokio::time::Instant,
        idle: Option<Duration>,
    ) {
        // A task holding nothing to flush waits out its idle wait whole: an empty flush is a
        // no-op, and waking for it would poll again before the wait is over.
        let holds_nothing = state.in_flight.is_empty() && state.committable.is_empty();
        let mut idle = match idle {
            Some(d) if holds_nothing => tokio::time::Instant::now() + d,
            Some(d) => (tokio::time::Instant::now() + d).min(next_flush),
            None => next_flush,
        };
        // Under exactly-once, writes finish at the commit: the boundary is what to wait for.
        let eos = self.transactions.as_ref();
        if let Some(due) = eos.and_then(Transactions::next_due) {
            idle = idle.min(due);
        }
        let command = {
            let front = async {
                match state.in_flight.front_mut() {
                    Some(f) if eos.is_none() => f.write.finish().await,
                    _ => std::future::pending().await,
                }
            };
            tokio::select! {
                command = commands.recv() => Some(command),
                () = front => None,
                () = tokio::time::sleep_until(idle) => None,
            }
        };
        if let Some(command) = command {
            state.stop = apply(command, &mut self.target);
        }
    }

    /// Whether the next poll may start now, on the guest executor, while the batch just
    /// polled (already counted in the flow) is transformed, converted and sent on this
    /// task: the checks the loop makes before a poll, made early, so they can only be
    /// stricter. Not under exactly-once, whose transaction requests and boundaries are
    /// taken between polls. The records of a poll started ahead are taken by the next
    /// [`poll_once`](Self::poll_once), in order, even after a pause; at a stop they are
    /// dropped unsent, and the next run polls them again from the committed offsets.
    fn may_poll_ahead(&self, state: &State) -> bool {
        self.transactions.is_none()
            && self.target == TargetState::Started
            && state.writing() + 1 < MAX_IN_FLIGHT
            && state.flow.has_room()
            && state.flow.wait(tokio::time::Instant::now()).is_zero()
    }

    /// Polls one batch (or takes the poll started ahead) and starts writing it.
    /// `Ok(Some(wait))`: nothing was polled, wait that long before polling again.
    async fn poll_once(&mut self, state: &mut State) -> Result<Option<Duration>, String> {
        let started = Instant::now();
        let polled = match state.next_poll.take() {
            Some(next) => next.records().await,
            None => self.instance.poll(self.max_poll_records).await,
        };
        let records = match polled {
            Ok(records) => {
                state.poll_retries.succeeded();
                records
            }
            Err(InstanceError::Connector(ConnectorError::Retriable(reason))) => {
                return match state.poll_retries.failed(self.reporter.policy()) {
                    Some(delay) => {
                        tracing::warn!(error = %reason, retry_in_ms = delay.as_millis() as u64, "Retriable error in poll; polling again after a back-off");
                        Ok(Some(delay))
                    }
                    None => {
                        // Past errors.retry.timeout: a failed poll without records, reported
                        // as Kafka Connect does (TASK_POLL); tolerated, polling goes on.
                        let failure = Failure {
                            stage: Stage::TaskPoll,
                            record: FailedRecord::NoRecord,
                            error: reason,
                            error_kind: "retriable",
                            class: None,
                        };
                        match self.reporter.report(vec![failure]).await {
                            Ok(()) => Ok(Some(IDLE_FIRST)),
                            Err(e) => Err(e.to_string()),
                        }
                    }
                };
            }
            Err(e) => return Err(e.trace()),
        };
        // The task's transaction requests for this batch (a conflict fails the task).
        let segments = if self.connector_defined() {
            let requests = self.instance.take_transaction_requests(records.len()).await;
            Some(transaction_plan::plan(records.len(), &requests.map_err(|e| e.trace())?))
        } else {
            None
        };
        if records.is_empty() {
            if let Some(segment) = segments.and_then(|s| s.into_iter().next()) {
                self.end_transaction(state, segment.then).await?;
            }
            return Ok(Some(state.idle.next_delay()));
        }
        state.idle.reset();
        let bytes = records.iter().map(record_bytes).sum();
        state.flow.polled(records.len(), bytes, tokio::time::Instant::now());
        metrics::RecordsPolled {
            connector: &self.connector,
            task: self.task,
            count: records.len(),
        }
        .emit();
        if self.may_poll_ahead(state) {
            state.next_poll = Some(self.instance.start_poll(self.max_poll_records));
        }
        // The chain runs on copies: a failed record is reported as the plugin polled it.
        let outcomes = if self.chain.is_empty() {
            None
        } else {
            let input = records.iter().map(|r| transforms::from_batch(r.into())).collect();
            Some(self.chain.apply(input).await)
        };
        let first = state.next_sequence;
        state.next_sequence += records.len() as u64;
        // Each part of a split batch carries its own records' offsets and bytes.
        let parts = segments.map(|segments| {
            let ends: Vec<usize> = segments.iter().map(|s| s.end).collect();
            let offsets = transaction_plan::offsets_by_segment(
                records.iter().map(|r| r.source_partition.as_ref().zip(r.source_offset.as_ref())),
                &ends,
                note_offset,
            );
            let mut bytes = vec![0; ends.len()];
            for (segment, r) in bytes.iter_mut().zip(segment_records(&ends, &records)) {
                *segment = r.iter().map(record_bytes).sum();
            }
            (segments, offsets, bytes)
        });
        let mut batch = prepare(
            records,
            outcomes,
            self.chain.header_converter(),
            (&*self.key_converter, &*self.value_converter),
            &Lookups {
                connector: &self.connector,
                task: self.task,
                policy: self.reporter.policy(),
            },
            first,
        )
        .await;
        let refused = std::mem::take(&mut batch.refused);
        if !refused.is_empty() {
            let failures = refused
                .iter()
                .map(|r| Failure {
                    stage: r.stage,
                    record: FailedRecord::Source(&r.record),
                    error: r.error.clone(),
                    error_kind: "DataException",
                    class: r.class.as_deref(),
                })
                .collect();
            self.reporter.report(failures).await.map_err(|e| e.to_string())?;
        }
        if let Some(transactions) = &self.transactions
            && batch.out.iter().any(|r| *r.topic == *transactions.offsets_topic)
        {
            return Err(OWN_OFFSETS_TOPIC.to_owned());
        }
        self.ensure_topics(state, &batch.out).await?;
        if let Some((segments, offsets, bytes)) = parts {
            self.send_segments(state, batch, first, started, segments, offsets, bytes).await?;
            return Ok(None);
        }
        let Prepared { out, sequences, skipped, offsets, .. } = batch;
        let write = match &mut self.transactions {
            Some(transactions) => {
                transactions.sent(&offsets, out.len());
                Write::Pending(transactions.producer.send(out))
            }
            None => Write::Pending(self.producer.send(out)),
        };
        state.in_flight.push_back(InFlight {
            write,
            sequences,
            skipped,
            offsets,
            started,
            bytes,
            released: false,
        });
        Ok(None)
    }

    /// Under connector-defined boundaries: sends the batch segment by segment (records
    /// numbered from `first`), each into the open transaction, which the segment's request
    /// then commits or aborts. `offsets` and `bytes` are each segment's.
    #[allow(clippy::too_many_arguments)]
    async fn send_segments(
        &mut self,
        state: &mut State,
        mut batch: Prepared,
        first: u64,
        started: Instant,
        segments: Vec<Segment>,
        offsets: Vec<Vec<(Bytes, Bytes)>>,
        bytes: Vec<u64>,
    ) -> Result<(), String> {
        for ((segment, offsets), bytes) in segments.into_iter().zip(offsets).zip(bytes) {
            let part = take_segment(&mut batch, first + segment.end as u64);
            let transactions = self.transactions.as_mut().expect("connector-defined boundaries");
            transactions.sent(&offsets, part.out.len());
            let write = Write::Pending(transactions.producer.send(part.out));
            let sent = InFlight {
                write,
                sequences: part.sequences,
                skipped: part.skipped,
                offsets,
                started,
                bytes,
                released: false,
            };
            let full = state.in_flight.len() >= MAX_IN_FLIGHT;
            match state.in_flight.back_mut() {
                Some(last) if full => last.absorb(sent),
                _ => state.in_flight.push_back(sent),
            }
            self.end_transaction(state, segment.then).await?;
        }
        Ok(())
    }

    /// Ends the open transaction as the task asked: commits it, aborts it, or (`None`)
    /// leaves it open.
    async fn end_transaction(
        &mut self,
        state: &mut State,
        then: Option<TransactionAction>,
    ) -> Result<(), String> {
        match then {
            Some(TransactionAction::Commit) => self.commit_transaction(state, true).await,
            Some(TransactionAction::Abort) => self.abort_transaction(state).await,
            None => Ok(()),
        }
    }

    /// Aborts the open transaction at the task's request, as Kafka Connect does: its
    /// records are discarded and acknowledged with no position, and the source offsets they
    /// carried are still committed, in a transaction of their own, so the task does not
    /// poll them again; then the plugin's `commit`. An abort of a transaction without
    /// records is ignored with a warning (its offsets, if any, stay for the next commit).
    async fn abort_transaction(&mut self, state: &mut State) -> Result<(), String> {
        let Some(transactions) = self.transactions.as_mut() else { return Ok(()) };
        if transactions.records() == 0 {
            tracing::warn!(
                "Ignoring request by task to abort transaction as the current transaction is empty"
            );
            return Ok(());
        }
        transactions.producer.abort().await.map_err(|e| e.to_string())?;
        // Every write in flight is the aborted transaction's (a commit awaits them all).
        let mut acks = Vec::new();
        for aborted in state.in_flight.drain(..) {
            if !aborted.released {
                state.flow.written(aborted.bytes);
            }
            let sequences = aborted.sequences.iter().chain(&aborted.skipped);
            acks.extend(sequences.map(|&sequence| RecordAck {
                sequence,
                partition: -1,
                offset: -1,
            }));
        }
        state.released = 0;
        acks.sort_by_key(|a| a.sequence);
        tracing::debug!(
            records = transactions.records(),
            "Aborted the transaction at the task's request"
        );
        self.commit_offsets().await?;
        if !acks.is_empty() {
            match self.instance.commit_records(acks).await {
                Ok(()) | Err(InstanceError::Connector(_)) => {}
                Err(e) => return Err(e.trace()),
            }
        }
        self.commit_plugin().await
    }

    /// Creates the destination topics seen for the first time, and reports them active.
    async fn ensure_topics(&self, state: &mut State, out: &[OutRecord]) -> Result<(), String> {
        for r in out {
            if state.known_topics.contains(&*r.topic) {
                continue;
            }
            let exists = self.topics.topic_exists(&r.topic).await.map_err(|e| e.to_string())?;
            if !exists {
                let spec = self.creation.new_topic(&r.topic);
                let created = self.topics.create_topic(&spec).await.map_err(|e| e.to_string())?;
                if created {
                    tracing::info!(topic = %r.topic, partitions = spec.partitions, replication_factor = spec.replication_factor, "Created topic");
                }
            }
            state.known_topics.insert(r.topic.to_string());
            let _ = self.events.send(WorkerEvent::TopicActive {
                connector: self.connector.clone(),
                task: self.task,
                topic: r.topic.to_string(),
            });
        }
        Ok(())
    }

    /// Handles finished writes, front to back: acknowledges them to the plugin and makes
    /// their offsets committable. Waits for the front write when `all` is set or too many
    /// are in flight; otherwise handles only those already done.
    async fn complete_writes(&mut self, state: &mut State, all: bool) -> Result<(), String> {
        loop {
            let must_wait = all || state.writing() >= MAX_IN_FLIGHT;
            let Some(front) = state.in_flight.front_mut() else { break };
            if must_wait {
                front.write.finish().await;
            } else {
                front.write.try_finish();
            }
            if matches!(front.write, Write::Pending(_)) {
                break;
            }
            let done = state.in_flight.pop_front().expect("the front exists");
            let InFlight {
                write: Write::Done(result),
                sequences,
                skipped,
                offsets,
                started,
                bytes,
                released,
            } = done
            else {
                unreachable!("the front write is done: checked above")
            };
            if released {
                state.released -= 1;
            } else {
                state.flow.written(bytes);
            }
            let delivered = result.map_err(|e| e.to_string())?;
            let mut acks: Vec<RecordAck> = sequences
                .iter()
                .zip(&delivered)
                .map(|(&sequence, d)| RecordAck {
                    sequence,
                    partition: d.partition,
                    offset: d.offset,
                })
                .collect();
            let produced = acks.len();
            if !skipped.is_empty() {
                acks.extend(skipped.iter().map(|&sequence| RecordAck {
                    sequence,
                    partition: -1,
                    offset: -1,
                }));
                acks.sort_by_key(|a| a.sequence);
            }
            metrics::RecordsProduced {
                connector: &self.connector,
                task: self.task,
                count: produced,
                latency: started.elapsed(),
            }
            .emit();
            // Under exactly-once the offsets were committed with the records.
            for (p, o) in offsets.into_iter().filter(|_| self.transactions.is_none()) {
                if let (Some(p), Some(o)) = (json(&p), json(&o)) {
                    state.committable.insert(p.to_string(), (p, o));
                }
            }
            if !acks.is_empty() {
                match self.instance.commit_records(acks).await {
                    Ok(()) | Err(InstanceError::Connector(_)) => {}
                    Err(e) => return Err(e.trace()),
                }
            }
        }
        Ok(())
    }

    /// Under exactly-once: commits the open transaction (its records and their offsets) if
    /// its boundary has come, or at once with `now`; then acknowledges its records to the
    /// plugin and calls its `commit`, as Kafka Connect does after `commitTransaction`. A
    /// failed commit fails the task (Kafka Connect's `ConnectException`).
    async fn commit_transaction(&mut self, state: &mut State, now: bool) -> Result<(), String> {
        let Some(transactions) = self.transactions.as_mut() else { return Ok(()) };
        if !transactions.is_open() || !(now || transactions.due(tokio::time::Instant::now())) {
            return Ok(());
        }
        self.commit_offsets().await?;
        self.complete_writes(state, true).await?;
        self.commit_plugin().await
    }

    /// Under exactly-once: writes the open transaction's offsets into it and commits it,
    /// which ends it. A failed commit fails the task.
    async fn commit_offsets(&mut self) -> Result<(), String> {
        let Some(transactions) = self.transactions.as_mut() else { return Ok(()) };
        let offsets = transactions.offsets();
        let count = offsets.len();
        let committed =
            transactions.producer.commit(offset_records(&self.connector, &offsets)).await;
        metrics::OffsetsCommitted {
            connector: &self.connector,
            task: self.task,
            partitions: count,
            ok: committed.is_ok(),
        }
        .emit();
        committed.map_err(|e| e.to_string())?;
        transactions.ended();
        self.offsets.written(&self.connector, offsets);
        Ok(())
    }

    /// The plugin's `commit`, after offsets are committed: a connector error is its own
    /// business (Kafka Connect logs it), a trap fails the task.
    async fn commit_plugin(&mut self) -> Result<(), String> {
        match self.instance.commit().await {
            Ok(()) | Err(InstanceError::Connector(_)) => Ok(()),
            Err(e) => Err(e.trace()),
        }
    }

    /// Writes the committable offsets to the offsets store, within `offset.flush.timeout.ms`,
    /// then tells the plugin. A failed or late write keeps them for the next flush (none
    /// when `stopping`: the records after the last commit are then polled again by the
    /// next run).
    async fn flush(&mut self, state: &mut State, stopping: bool) -> Result<(), String> {
        if state.committable.is_empty() {
            return Ok(());
        }
        let entries: Vec<(Value, Option<Value>)> =
            state.committable.values().map(|(p, o)| (p.clone(), Some(o.clone()))).collect();
        let count = entries.len();
        let put = self.offsets.put(&self.connector, entries);
        let written = match tokio::time::timeout(self.flush_timeout, put).await {
            Ok(written) => written,
            Err(_) => Err(StoreError::Unavailable(format!(
                "not acknowledged within offset.flush.timeout.ms ({} ms)",
                self.flush_timeout.as_millis()
            ))),
        };
        metrics::OffsetsCommitted {
            connector: &self.connector,
            task: self.task,
            partitions: count,
            ok: written.is_ok(),
        }
        .emit();
        match written {
            Ok(()) => {
                state.committable.clear();
                self.commit_plugin().await
            }
            Err(e) if stopping => {
                tracing::warn!(
                    error = %e,
                    partitions = count,
                    "Could not commit source offsets at stop; the records after the last \
                     commit will be polled again"
                );
                Ok(())
            }
            Err(e) => {
                tracing::error!(error = %e, "Could not commit source offsets; retrying at the next flush");
                Ok(())
            }
        }
    }
}

/// The records of each segment ending at `ends` (ascending, the last at the batch's end).
fn segment_records<'a>(
    ends: &'a [usize],
    records: &'a [crate::runtime::PolledRecord],
) -> impl Iterator<Item = &'a [crate::runtime::PolledRecord]> {
    let starts = std::iter::once(0).chain(ends.iter().copied());
    starts.zip(ends).map(move |(start, &end)| &records[start.min(end)..end])
}

/// A source partition or offset from a batch: JSON, or `None` when not JSON.
fn json(bytes: &[u8]) -> Option<Value> {
    serde_json::from_slice(bytes).ok()
}

struct State {
    /// What the task may still hand the worker.
    flow: Flow,
    in_flight: VecDeque<InFlight>,
    /// Under exactly-once: how many writes at the front of `in_flight` are released
    /// (written, out of the flow, waiting for the commit).
    released: usize,
    /// Sequence number of the next polled record.
    next_sequence: u64,
    /// Offsets written and not yet committed, by canonical partition JSON.
    committable: BTreeMap<String, (Value, Value)>,
    /// Topics known to exist.
    known_topics: BTreeSet<String>,
    /// Retries of a retriable poll error.
    poll_retries: Retries,
    /// Set by `wait` when a stop arrived (or the handle was dropped).
    stop: Option<Exit>,
    /// The poll started ahead while the last batch was being sent (`may_poll_ahead`).
    next_poll: Option<PendingPoll>,
    /// The waits after empty polls: doubling from [`IDLE_FIRST`] to [`IDLE_CAP`].
    idle: Attempts,
}

impl State {
    /// Writes not yet acknowledged by the broker.
    fn writing(&self) -> usize {
        self.in_flight.len() - self.released
    }

    /// Under exactly-once: releases the writes the broker has acknowledged, front to back,
    /// from the task's flow; they stay in `in_flight` until the commit acknowledges them to
    /// the plugin.
    fn release_written(&mut self) {
        while let Some(f) = self.in_flight.get_mut(self.released) {
            f.write.try_finish();
            if matches!(f.write, Write::Pending(_)) {
                break;
            }
            self.flow.written(f.bytes);
            f.released = true;
            self.released += 1;
        }
    }

    fn new(flow: Flow) -> Self {
        Self {
            flow,
            in_flight: VecDeque::new(),
            released: 0,
            next_sequence: 0,
            committable: BTreeMap::new(),
            known_topics: BTreeSet::new(),
            poll_retries: Retries::default(),
            stop: None,
            next_poll: None,
            idle: Backoff::doubling(IDLE_FIRST, IDLE_CAP).attempts(),
        }
    }
}
