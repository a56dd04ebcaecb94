//! [`EmbeddedProducer`]: writes records to embedded data topics through one writer task
//! per producer, fed by a channel, so calls keep their order.
//!
//! `send` queues its records on the channel before it returns and gets a oneshot for
//! their positions. The writer task appends whatever has queued up while the previous
//! transaction was being made durable (up to [`MAX_BATCH_RECORDS`]) in one transaction:
//! under load, many calls share one `fsync`. A failed shared transaction is retried one
//! call at a time, so one call's bad record (an unknown partition) fails only that call.
//! It must not choose partitions or create topics itself: the store does.

use tokio::sync::{mpsc, oneshot};

use crate::store::{DataRecord, EmbeddedBackend};
use crate::worker::topics::{Delivered, OutRecord, RecordProducer, SendFuture, TopicError};

/// Most records appended in one transaction; a single larger call is still one.
const MAX_BATCH_RECORDS: usize = 10_000;

/// One `send` call waiting for the writer task.
struct Job {
    records: Vec<DataRecord>,
    reply: oneshot::Sender<Result<Vec<Delivered>, TopicError>>,
}

/// A producer of embedded data topics.
pub(super) struct EmbeddedProducer {
    jobs: mpsc::UnboundedSender<Job>,
}

impl EmbeddedProducer {
    /// Starts the writer task of producer `client_id` on the current tokio runtime.
    pub(super) fn start(backend: EmbeddedBackend, client_id: &str) -> Result<Self, TopicError> {
        let runtime = tokio::runtime::Handle::try_current().map_err(|e| TopicError::Produce {
            topic: String::new(),
            reason: format!("producer '{client_id}' needs a tokio runtime: {e}"),
        })?;
        let (jobs, queue) = mpsc::unbounded_channel();
        runtime.spawn(write_loop(backend, client_id.to_owned(), queue));
        Ok(Self { jobs })
    }
}

impl RecordProducer for EmbeddedProducer {
    fn send(&self, records: Vec<OutRecord>) -> SendFuture {
        let topic = records.first().map(|r| r.topic.to_string()).unwrap_or_default();
        if records.is_empty() {
            return Box::pin(async { Ok(Vec::new()) });
        }
        let records = records.into_iter().map(data_record).collect();
        let (reply, delivered) = oneshot::channel();
        let queued = self.jobs.send(Job { records, reply });
        Box::pin(async move {
            let closed =
                || TopicError::Produce { topic, reason: "the producer is closed".to_owned() };
            if queued.is_err() {
                return Err(closed());
            }
            delivered.await.unwrap_or_else(|_| Err(closed()))
        })
    }
}

/// Appends queued jobs, batching those that piled up, until every sender is gone.
async fn write_loop(
    backend: EmbeddedBackend,
    client_id: String,
    mut queue: mpsc::UnboundedReceiver<Job>,
) {
    while let Some(first) = queue.recv().await {
        let mut count = first.records.len();
        let mut jobs = vec![first];
        while count < MAX_BATCH_RECORDS {
            let Ok(job) = queue.try_recv() else { break };
            count += job.records.len();
            jobs.push(job);
        }
        let (batches, replies): (Vec<_>, Vec<_>) =
            jobs.into_iter().map(|job| (job.records, job.reply)).unzip();
        let topics: Vec<String> = batches.iter().map(|b| b[0].topic.clone()).collect();
        let results = match backend.append_data_batches(batches).await {
            Ok(results) => results,
            Err(e) => topics.iter().map(|_| Err(e.clone())).collect(),
        };
        for ((result, reply), topic) in results.into_iter().zip(replies).zip(topics) {
            let result = result
                .map(|positions| {
                    positions
                        .into_iter()
                        .map(|p| Delivered { partition: p.partition, offset: p.offset })
                        .collect()
                })
                .map_err(|e| {
                    tracing::warn!(
                        producer = %client_id, topic = %topic, error = %e,
                        "Cannot write records"
                    );
                    TopicError::Produce { topic, reason: e.to_string() }
                });
            // The caller may have stopped waiting; the records are written all the same.
            let _ = reply.send(result);
        }
    }
    tracing::debug!(producer = %client_id, "The producer is closed");
}

/// The store's form of `record`.
pub(super) fn data_record(record: OutRecord) -> DataRecord {
    DataRecord {
        topic: record.topic.to_string(),
        partition: record.partition,
        timestamp_ms: record.timestamp,
        key: record.key.map(Vec::from),
        value: record.value.map(Vec::from),
        headers: record.headers,
    }
}
