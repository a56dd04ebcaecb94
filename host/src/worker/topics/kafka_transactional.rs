//! [`KafkaTransactional`]: one source task's [`TransactionalProducer`] on Kafka, over a
//! [`KafkaProducer`] of its own with the task's `transactional.id`, as Kafka Connect's
//! `ExactlyOnceWorkerSourceTask` uses its producer: the task's records, then its offsets
//! (ordinary records of the offsets topic, keyed as the offsets store keys them, so the
//! producer's murmur2 partitioner puts them where Kafka Connect would), then
//! `commitTransaction`. A `read_committed` reader sees both or neither.
//!
//! An abort first waits (briefly) for the records sent to be written, so that they are in
//! the log, aborted, rather than dropped from the producer's queue: what the transaction
//! held is the same for every abort, and a `read_uncommitted` reader sees it.
//!
//! It owns the transaction's open/closed state; the blocking transaction calls run on
//! tokio's blocking pool. A commit first waits for the transaction's records to be
//! acknowledged ([`KafkaProducer::wait_delivered`]), which librdkafka's own flush inside
//! `commitTransaction` does about 100 ms slower. It must not decide when transactions end:
//! the task does.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use bytes::Bytes;

use super::kafka_producer::{KafkaProducer, fenced_message};
use super::{OutRecord, RecordProducer, SendFuture, TopicError, TransactionalProducer};
use crate::store::LogRecord;

/// How long a commit or an abort may block: the broker bounds a transaction by
/// `transaction.timeout.ms` anyway, and Kafka Connect waits without bound.
const END_TIMEOUT: Duration = Duration::from_secs(300);

/// How long an abort waits for the records sent to be written first; past it, what is
/// still queued is dropped by the abort.
const FLUSH_BEFORE_ABORT: Duration = Duration::from_secs(10);

/// How long registering the `transactional.id` may take (its coordinator may first have
/// to abort what a fenced producer left open).
pub(super) const INIT_TIMEOUT: Duration = Duration::from_secs(120);

/// A source task's transactional producer on Kafka.
pub(super) struct KafkaTransactional {
    producer: Arc<KafkaProducer>,
    offsets_topic: Arc<str>,
    /// Whether a transaction is open.
    open: AtomicBool,
}

impl KafkaTransactional {
    /// Registers `producer`'s `transactional.id` (fencing older producers with it).
    pub(super) async fn start(
        producer: KafkaProducer,
        offsets_topic: &str,
    ) -> Result<Self, TopicError> {
        let producer = Arc::new(producer);
        let p = producer.clone();
        blocking(move || p.init_transactions(INIT_TIMEOUT)).await?;
        Ok(Self { producer, offsets_topic: offsets_topic.into(), open: AtomicBool::new(false) })
    }

    /// `result`, its error saying the producer was fenced when the client concluded so:
    /// a call (or a record's delivery) that raced with the fencing may have failed
    /// otherwise, and the task's trace must still say why it ended.
    fn explained<T>(
        producer: &KafkaProducer,
        result: Result<T, TopicError>,
    ) -> Result<T, TopicError> {
        result.map_err(|e| {
            if producer.is_fenced() && !e.to_string().contains("fenced by a newer one") {
                TopicError::Transaction(fenced_message("write in the transaction", &e))
            } else {
                e
            }
        })
    }

    fn ensure_open(&self) -> Result<(), TopicError> {
        if !self.open.swap(true, Ordering::SeqCst)
            && let Err(e) = self.producer.begin_transaction()
        {
            self.open.store(false, Ordering::SeqCst);
            return Err(e);
        }
        Ok(())
    }
}

#[async_trait]
impl TransactionalProducer for KafkaTransactional {
    fn send(&self, records: Vec<OutRecord>) -> SendFuture {
        if let Err(e) = self.ensure_open() {
            return Box::pin(async move { Err(e) });
        }
        let producer = self.producer.clone();
        let sent = self.producer.send(records);
        Box::pin(async move { Self::explained(&producer, sent.await) })
    }

    async fn commit(&self, offsets: Vec<LogRecord>) -> Result<(), TopicError> {
        self.ensure_open()?;
        let offsets = offsets
            .into_iter()
            .map(|r| OutRecord {
                topic: self.offsets_topic.clone(),
                key: Some(Bytes::from(r.key)),
                value: r.value.map(Bytes::from),
                ..OutRecord::default()
            })
            .collect();
        // The offsets go last: once they are acknowledged, what is left in flight is at
        // most some of the task's records, which `wait_delivered` sees through before the
        // commit (librdkafka's flush inside the commit is slower at it).
        let written = self.producer.send(offsets).await;
        let p = self.producer.clone();
        let committed = blocking(move || {
            p.wait_delivered(END_TIMEOUT);
            p.commit_transaction(END_TIMEOUT)
        })
        .await;
        self.open.store(false, Ordering::SeqCst);
        Self::explained(&self.producer, committed.and(written.map(drop)))
    }

    async fn abort(&self) -> Result<(), TopicError> {
        if !self.open.swap(false, Ordering::SeqCst) {
            return Ok(());
        }
        let p = self.producer.clone();
        let aborted = blocking(move || {
            if let Err(e) = p.flush(FLUSH_BEFORE_ABORT) {
                tracing::debug!(error = %e, "Aborting with records still queued");
            }
            p.abort_transaction(END_TIMEOUT)
        })
        .await;
        Self::explained(&self.producer, aborted)
    }
}

/// Runs a blocking transaction call on the blocking pool.
async fn blocking(
    call: impl FnOnce() -> Result<(), TopicError> + Send + 'static,
) -> Result<(), TopicError> {
    tokio::task::spawn_blocking(call)
        .await
        .map_err(|e| TopicError::Transaction(format!("the transaction call failed: {e}")))?
}
