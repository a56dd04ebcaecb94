//! [`Transactions`]: a source task's exactly-once delivery (KIP-618), as Kafka Connect's
//! `ExactlyOnceWorkerSourceTask` runs it: the task's records go into a transaction of its
//! own producer, the source offsets they carry are collected, and at the transaction's
//! boundary the offsets are written in the same transaction, which commits. Nothing
//! reaches a `read_committed` reader (or the embedded store) before its offsets do, so a
//! task that restarts after a crash resumes exactly after the last committed record.
//!
//! Boundaries (`transaction.boundary`): `poll` commits after every polled batch, `interval`
//! once `transaction.boundary.interval.ms` (default `offset.flush.interval.ms`) has passed
//! since the last commit. Either also commits when the task stops or is paused, and when
//! its buffer (`buffer.memory`, or its batches in flight) is full, since records are
//! acknowledged only once committed. `connector` commits and aborts where the task asked
//! (`transaction_plan.rs` places its requests in the batch); nothing else ends its
//! transactions.
//!
//! It owns the open transaction's bookkeeping and the boundary rule; the task loop
//! (`source_task.rs`) decides when to ask, and acknowledges the records after a commit.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio::time::Instant;

use super::DataPlane;
use super::topics::TransactionalProducer;
use crate::model::{Properties, TransactionBoundary};
use crate::store::ConnectorOffsetStore;

/// Kafka Connect's message for a record bound for the task's own offsets topic: reading
/// the offsets to their end would wait for the task's own open transaction.
pub const OWN_OFFSETS_TOPIC: &str =
    "Source tasks may not produce to their own offsets topics when exactly-once support is enabled";

/// The transactions of task `task` of `connector`, as its config asks: its producer, with
/// `transactional.id` `<prefix>-<connector>-<task>` (created here, so an older producer
/// with the id is fenced now), writing offsets to the primary topic of `offsets` (the
/// connector's `offsets.storage.topic`, else the worker's offsets topic). A key with a bad
/// value fails the task's start naming the key.
pub(super) async fn start(
    data: &DataPlane,
    offsets: &ConnectorOffsetStore,
    prefix: &str,
    connector: &str,
    task: u32,
    config: &Properties,
    overrides: &[(String, String)],
) -> Result<Transactions, String> {
    let boundary = match config.get("transaction.boundary") {
        None => TransactionBoundary::default(),
        Some(v) => v.parse().map_err(|()| {
            format!(
                "Invalid value {v} for configuration transaction.boundary: String must be one \
                 of (case insensitive): CONNECTOR, INTERVAL, POLL"
            )
        })?,
    };
    let interval = match config.get("transaction.boundary.interval.ms") {
        None => data.offset_flush_interval,
        Some(v) => Duration::from_millis(v.trim().parse::<u64>().map_err(|_| {
            format!(
                "Invalid value {v} for configuration transaction.boundary.interval.ms: Value \
                 must be a non-negative number of milliseconds"
            )
        })?),
    };
    let offsets_topic = offsets.topic_name().to_owned();
    let id = format!("{prefix}-{connector}-{task}");
    let producer = data
        .topics
        .transactional_producer(&id, &offsets_topic, overrides)
        .await
        .map_err(|e| format!("cannot start the task's transactional producer ({id}): {e}"))?;
    Ok(Transactions::new(producer, offsets_topic, boundary, interval))
}

/// A source task's transactions.
pub(super) struct Transactions {
    pub producer: Arc<dyn TransactionalProducer>,
    /// The offsets topic the transactions write to; the task may not produce to it.
    pub offsets_topic: String,
    boundary: TransactionBoundary,
    interval: Duration,
    last_commit: Instant,
    /// Whether records or offsets were sent since the last commit.
    open: bool,
    /// Records sent since the last commit (or abort).
    records: usize,
    /// Offsets of the records sent in the open transaction, by canonical partition JSON.
    offsets: BTreeMap<String, (Value, Value)>,
}

impl Transactions {
    /// Transactions of `producer` ending at `boundary` (`interval` for the interval one).
    pub fn new(
        producer: Arc<dyn TransactionalProducer>,
        offsets_topic: String,
        boundary: TransactionBoundary,
        interval: Duration,
    ) -> Self {
        Self {
            producer,
            offsets_topic,
            boundary,
            interval,
            last_commit: Instant::now(),
            open: false,
            records: 0,
            offsets: BTreeMap::new(),
        }
    }

    /// A polled batch (or part of one) was sent: its `records` and its source offsets
    /// (JSON text, partition and offset; text that is not JSON is skipped, as the
    /// at-least-once path skips it) join the transaction.
    pub fn sent(&mut self, offsets: &[(bytes::Bytes, bytes::Bytes)], records: usize) {
        self.open = true;
        self.records += records;
        for (p, o) in offsets {
            if let (Ok(p), Ok(o)) =
                (serde_json::from_slice::<Value>(p), serde_json::from_slice::<Value>(o))
            {
                self.offsets.insert(p.to_string(), (p, o));
            }
        }
    }

    /// Whether a transaction is open.
    pub fn is_open(&self) -> bool {
        self.open
    }

    /// Records sent in the open transaction.
    pub fn records(&self) -> usize {
        self.records
    }

    /// Whether the task defines the boundaries (`transaction.boundary=connector`).
    pub fn connector_defined(&self) -> bool {
        self.boundary == TransactionBoundary::Connector
    }

    /// Whether the open transaction has reached its boundary at `now`.
    pub fn due(&self, now: Instant) -> bool {
        self.open
            && match self.boundary {
                TransactionBoundary::Poll => true,
                TransactionBoundary::Interval => now >= self.last_commit + self.interval,
                // Only the task's requests end its transactions.
                TransactionBoundary::Connector => false,
            }
    }

    /// When the interval boundary falls next, if a transaction is open and waits for it.
    pub fn next_due(&self) -> Option<Instant> {
        (self.open && self.boundary == TransactionBoundary::Interval)
            .then_some(self.last_commit + self.interval)
    }

    /// The offsets to write with the commit, as the offsets store takes them.
    pub fn offsets(&self) -> Vec<(Value, Option<Value>)> {
        self.offsets.values().map(|(p, o)| (p.clone(), Some(o.clone()))).collect()
    }

    /// The transaction committed: the next one starts empty. (An abort is followed by the
    /// commit of its offsets, which ends it.)
    pub fn ended(&mut self) {
        self.open = false;
        self.records = 0;
        self.offsets.clear();
        self.last_commit = Instant::now();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::worker::topics::{OutRecord, SendFuture, TopicError};

    struct Nothing;

    #[async_trait::async_trait]
    impl TransactionalProducer for Nothing {
        fn send(&self, _: Vec<OutRecord>) -> SendFuture {
            Box::pin(async { Ok(Vec::new()) })
        }
        async fn commit(&self, _: Vec<crate::store::LogRecord>) -> Result<(), TopicError> {
            Ok(())
        }
        async fn abort(&self) -> Result<(), TopicError> {
            Ok(())
        }
    }

    fn offsets(pairs: &[(&str, &str)]) -> Vec<(bytes::Bytes, bytes::Bytes)> {
        pairs
            .iter()
            .map(|(p, o)| (bytes::Bytes::from(p.to_string()), bytes::Bytes::from(o.to_string())))
            .collect()
    }

    #[tokio::test(start_paused = true)]
    async fn poll_ends_each_batch_and_interval_waits_for_its_time() {
        let second = Duration::from_secs(1);
        let mut poll =
            Transactions::new(Arc::new(Nothing), "o".into(), TransactionBoundary::Poll, second);
        assert!(!poll.due(Instant::now()), "nothing sent, nothing to commit");
        poll.sent(&offsets(&[(r#"{"f":"a"}"#, r#"{"p":1}"#)]), 1);
        assert!(poll.due(Instant::now()));

        let mut interval =
            Transactions::new(Arc::new(Nothing), "o".into(), TransactionBoundary::Interval, second);
        interval.sent(&offsets(&[(r#"{"f":"a"}"#, r#"{"p":1}"#)]), 1);
        assert!(!interval.due(Instant::now()));
        assert_eq!(interval.next_due(), Some(Instant::now() + second));
        tokio::time::advance(second).await;
        assert!(interval.due(Instant::now()));
        interval.ended();
        assert!(!interval.due(Instant::now() + second * 2), "ended: nothing open");
    }

    #[test]
    fn the_last_offset_of_each_partition_is_committed() {
        let mut t = Transactions::new(
            Arc::new(Nothing),
            "o".into(),
            TransactionBoundary::Poll,
            Duration::ZERO,
        );
        t.sent(&offsets(&[(r#"{"f":"a"}"#, r#"{"p":1}"#), (r#"{"f":"b"}"#, r#"{"p":7}"#)]), 2);
        t.sent(&offsets(&[(r#"{"f":"a"}"#, r#"{"p":2}"#), ("not json", "1")]), 2);
        assert_eq!(t.records(), 4);
        let got = t.offsets();
        assert_eq!(got.len(), 2, "{got:?}");
        assert!(got.contains(&(serde_json::json!({"f":"a"}), Some(serde_json::json!({"p":2})))));
        assert!(got.contains(&(serde_json::json!({"f":"b"}), Some(serde_json::json!({"p":7})))));
    }
}
